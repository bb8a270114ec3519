/**
 * The affected-targets fact (harn-verification.md §1.3, §1.3.1, §1.3.2, §2.8, §2.11) with
 * our changes (docs/design.md §4): a `reason` on every target, `via` chains for dependents,
 * root config files and lockfiles handled explicitly, unmapped files listed, a transitive
 * fallback. Pure: the host runs the adapter commands and hands their results in.
 */

import { TurngateValidationError } from "../../errors.js";
import { type Dict, isDict, stringList } from "../harn-values.js";
import { type CommandResultLike, checkExit, resultOk } from "../profiles/command-result.js";
import { classifyChangedFile } from "./global-files.js";
import type { ImportGraphView } from "./import-graph.js";
import { AffectedParseError, parseAffectedOutput } from "./parsers/index.js";
import { dirnameOf, pathUnder } from "./paths.js";
import { pnpmLockChangedImporters } from "./pnpm-lock-diff.js";
import { dependentsOf, type ProjectNode } from "./project-graph.js";
import { type AffectedTarget, mergeTargets } from "./target.js";

/** `AdapterFact` (§2.8) plus ours: `project_count` and `project_roots` (project id → its workspace-relative root, for checks mapped by `cwd`), and what the host adds (`duration_ms`, `workspace_changed`). */
export interface AdapterFact {
  id: string;
  parser_id: string;
  status: string;
  ok: boolean;
  target_count: number;
  exit?: number | null;
  error?: string;
  [key: string]: unknown;
}

/**
 * One adapter as the host ran it. `result` absent and `error` absent → `not_configured`
 * (no spec). `error` → the command could not run (bad spec, spawn failure): a failed
 * fact, never an exception. `fact` → extra keys for the fact (e.g. `duration_ms`).
 */
export interface AdapterRun {
  id: string;
  parser_id: string;
  result?: CommandResultLike;
  error?: string;
  fact?: Dict;
}

/** The fallback block (§1.3.2): `errors` only when it ran. */
export interface AffectedFallback {
  enabled: boolean;
  available: boolean;
  targets: AffectedTarget[];
  errors?: string[];
}

/**
 * `VerificationAffectedTargetsFact` (§2.8) plus ours: `unmapped`, `global_files`,
 * `lockfiles` (the changed paths of each class), `run_all` (a global file, an unmapped
 * file or a lockfile whose effect could not be narrowed: every check should run) and
 * `run_all_reasons` (one line each, e.g. `global_file: babel.config.json`).
 */
export interface AffectedTargetsFact {
  changed_paths: string[];
  targets: AffectedTarget[];
  adapters: AdapterFact[];
  fallback: AffectedFallback;
  unmapped: string[];
  global_files: string[];
  lockfiles: string[];
  run_all: boolean;
  run_all_reasons: string[];
}

/** Input of {@link reduceAffectedTargets}. */
export interface ReduceAffectedInput {
  /** Normalized with the string-list rule (§2.10). */
  changedPaths: unknown;
  adapters: readonly AdapterRun[];
  /** Absolute workspace root (maps absolute tool paths). */
  root?: string;
  /** The code index's import graph, for the fallback; absent → the fallback is not `available`. */
  importGraph?: ImportGraphView | null;
  /** `false` disables the fallback (§1.3.2). */
  fallback?: boolean;
  /** Run the fallback even when adapters produced targets. */
  includeFallback?: boolean;
  /** Rethrow parser errors instead of recording them in the adapter fact. */
  failOnAdapterError?: boolean;
  /** Extra root config globs (Harn `match_name`) whose change affects everything. */
  globalFiles?: readonly string[];
  /** Both sides of changed lockfiles (`null` = absent on that side), keyed by path. */
  lockfiles?: Readonly<Record<string, { before: string | null; after: string | null }>>;
}

const fileTarget = (
  path: string,
  source: string,
  reason: AffectedTarget["reason"],
  extra: Dict = {},
): AffectedTarget => ({
  id: `file:${path}`,
  label: path,
  kind: "file",
  source,
  files: [path],
  reason,
  ...extra,
});

/**
 * Code-index fallback (§1.3.2), transitive (our change): for each path, when the index
 * knows it as a source or something imports it, `file:<P>` (`reason: "fallback"`,
 * `fallback_reason: "changed_file"`) and every file that imports it directly or through
 * others (`reason: "dependent"`, `via` = the files from P to the one it imports,
 * `changed_path: P`, `fallback_reason: "reverse_dependency"`), in one breadth-first walk
 * from all changed files (a file reached from two is listed once, by its shortest chain). Without an
 * index every path is kept as `file:<P>` (`available: false`). Returns the targets and the
 * paths it mapped; an index that throws is recorded in `errors`.
 */
function fallbackTargets(
  paths: readonly string[],
  graph: ImportGraphView | null | undefined,
): { fallback: AffectedFallback; mapped: Set<string> } {
  const targets: AffectedTarget[] = [];
  const errors: string[] = [];
  const mapped = new Set<string>();
  const seen = new Set<string>();
  const queue: { path: string; chain: string[]; from: string; next?: readonly string[] }[] = [];
  const reached = new Set<string>();
  for (const p of paths) {
    if (graph === undefined || graph === null) {
      mergeTargets(
        targets,
        [fileTarget(p, "code_index", "fallback", { fallback_reason: "changed_file" })],
        seen,
      );
      mapped.add(p);
      continue;
    }
    let direct: readonly string[] | undefined;
    try {
      direct = graph.importers(p);
    } catch (error) {
      errors.push(String((error as Error).message ?? error));
      continue;
    }
    if (!graph.isSource(p) && (direct === undefined || direct.length === 0)) continue;
    mapped.add(p);
    mergeTargets(
      targets,
      [fileTarget(p, "code_index", "fallback", { fallback_reason: "changed_file" })],
      seen,
    );
    if (!reached.has(p)) {
      reached.add(p);
      queue.push({ path: p, chain: [p], from: p, next: direct ?? [] });
    }
  }
  // One breadth-first walk from every changed file at once: each importer is reached by a
  // shortest chain from the first changed file that reaches it.
  for (let i = 0; i < queue.length; i++) {
    const cur = queue[i] as (typeof queue)[number];
    let next: readonly string[];
    if (cur.next !== undefined) next = cur.next;
    else {
      try {
        next = (graph as ImportGraphView).importers(cur.path) ?? [];
      } catch (error) {
        errors.push(String((error as Error).message ?? error));
        next = [];
      }
    }
    for (const q of next) {
      if (reached.has(q)) continue;
      reached.add(q);
      mergeTargets(
        targets,
        [
          fileTarget(q, "code_index", "dependent", {
            via: cur.chain,
            changed_path: cur.from,
            fallback_reason: "reverse_dependency",
          }),
        ],
        seen,
      );
      queue.push({ path: q, chain: [...cur.chain, q], from: cur.from });
    }
  }
  const available = graph !== undefined && graph !== null && errors.length === 0;
  return { fallback: { enabled: true, available, targets, errors }, mapped };
}

/**
 * Builds the affected-targets fact from the adapters' results (§1.3), in this order:
 * 1. each adapter → one fact: `not_configured` (no spec), a failed fact with `error` (the
 *    command could not run, or its stdout does not parse: `status` = the result's status
 *    or `failed`, `target_count` 0), else `{status: result.status ?? "completed", ok:
 *    result-ok rule, exit: exit rule, target_count}`; a failed command whose stdout parses
 *    still gives targets. Targets merge by id, first wins (§2.11).
 * 2. dependents: projects of a workspace graph that depend on a direct target,
 *    transitively (`reason: "dependent"`, `via` = target ids from the direct one, `files`
 *    = the direct one's files);
 * 3. lockfiles: a changed `pnpm-lock.yaml` with both sides given → the packages whose
 *    importer changed (`lockfile_importer`); any other lockfile, or one that cannot be
 *    narrowed → every project under the lockfile's folder (`run_all` when it is the root);
 * 4. global files → every project (`reason: "global_file"`);
 *    with no project known, a lockfile or global file is its own `file:<P>` target;
 * 5. fallback (§1.3.2, transitive) when no target exists yet or `includeFallback`,
 *    unless `fallback === false`;
 * 6. every remaining changed path that no target lists → `unmapped` (and a `file:<P>`
 *    target with `source: "unmapped"`).
 * Throws `AffectedParseError` only with `failOnAdapterError`.
 */
export function reduceAffectedTargets(input: ReduceAffectedInput): AffectedTargetsFact {
  validateInput(input);
  const changed = stringList(input.changedPaths);
  const globalFiles: string[] = [];
  const lockfiles: string[] = [];
  const sources: string[] = [];
  for (const p of changed) {
    const c = classifyChangedFile(p, input.globalFiles ?? []);
    (c === "global_file" ? globalFiles : c === "lockfile" ? lockfiles : sources).push(p);
  }
  const targets: AffectedTarget[] = [];
  const seen = new Set<string>();
  const facts: AdapterFact[] = [];
  const graphs: { projects: ProjectNode[]; direct: AffectedTarget[] }[] = [];
  const runAll: string[] = [];
  for (const run of input.adapters) {
    const extra = run.fact ?? {};
    if (run.result === undefined && run.error === undefined) {
      facts.push({
        id: run.id,
        parser_id: run.parser_id,
        status: "not_configured",
        ok: false,
        target_count: 0,
        ...extra,
      });
      continue;
    }
    if (run.result === undefined) {
      facts.push({
        id: run.id,
        parser_id: run.parser_id,
        status: "failed",
        ok: false,
        exit: null,
        target_count: 0,
        error: run.error as string,
        ...extra,
      });
      continue;
    }
    const result = run.result;
    const exit = checkExit(result);
    let parsed: ReturnType<typeof parseAffectedOutput>;
    try {
      parsed = parseAffectedOutput(run.parser_id, result.stdout, {
        adapterId: run.id,
        changedPaths: changed,
        ...(input.root !== undefined ? { root: input.root } : {}),
      });
    } catch (error) {
      if (input.failOnAdapterError === true || !(error instanceof AffectedParseError)) throw error;
      facts.push({
        id: run.id,
        parser_id: run.parser_id,
        status: result.status ?? "failed",
        ok: false,
        exit,
        target_count: 0,
        error: error.message,
        ...extra,
      });
      continue;
    }
    mergeTargets(targets, parsed.targets, seen);
    if (parsed.projects !== undefined)
      graphs.push({ projects: parsed.projects, direct: parsed.targets });
    facts.push({
      id: run.id,
      parser_id: run.parser_id,
      status: result.status ?? "completed",
      ok: resultOk(result),
      exit,
      target_count: parsed.targets.length,
      ...(parsed.projects !== undefined
        ? {
            project_count: parsed.projects.length,
            project_roots: Object.fromEntries(parsed.projects.map((p) => [p.id, p.root])),
          }
        : {}),
      ...extra,
    });
  }
  // 2. dependents through each workspace graph.
  for (const g of graphs) {
    const byId = new Map(g.projects.map((p) => [p.id, p]));
    const directFiles = new Map(g.direct.map((t) => [t.id, t.files]));
    const start = g.direct.map((t) => t.id).filter((id) => byId.has(id));
    for (const d of dependentsOf(g.projects, start)) {
      const node = byId.get(d.id) as ProjectNode;
      mergeTargets(
        targets,
        [
          {
            ...node.base,
            files: [...(directFiles.get(d.from) ?? [])],
            reason: "dependent",
            via: d.via,
          } as AffectedTarget,
        ],
        seen,
      );
    }
  }
  const allProjects = graphs.flatMap((g) => g.projects);
  const projectTarget = (
    n: ProjectNode,
    reason: AffectedTarget["reason"],
    files: string[],
    extra: Dict = {},
  ) => ({ ...n.base, files, reason, ...extra }) as AffectedTarget;
  // 3. lockfiles.
  for (const lock of lockfiles) {
    const folder = dirnameOf(lock);
    const under = allProjects.filter(
      (n) => pathUnder(folder, n.root === "" ? "." : n.root) || folder === "",
    );
    const sides = input.lockfiles?.[lock];
    const name = lock.slice(lock.lastIndexOf("/") + 1);
    if (name === "pnpm-lock.yaml" && sides !== undefined) {
      const diff = pnpmLockChangedImporters(sides.before, sides.after);
      if (!diff.all) {
        for (const importer of diff.importers) {
          const root =
            importer === "." ? folder : folder === "" ? importer : `${folder}/${importer}`;
          for (const n of allProjects.filter((p) => p.root === root)) {
            mergeTargets(
              targets,
              [projectTarget(n, "lockfile", [lock], { lockfile_importer: importer })],
              seen,
            );
          }
        }
        if (allProjects.length === 0)
          mergeTargets(targets, [fileTarget(lock, "lockfile", "lockfile")], seen);
        continue;
      }
      runAll.push(`lockfile: ${lock} (${diff.why})`);
    } else if (folder === "") {
      runAll.push(`lockfile: ${lock}`);
    }
    for (const n of under) mergeTargets(targets, [projectTarget(n, "lockfile", [lock])], seen);
    if (under.length === 0) mergeTargets(targets, [fileTarget(lock, "lockfile", "lockfile")], seen);
  }
  // 4. global files.
  for (const g of globalFiles) runAll.push(`global_file: ${g}`);
  if (globalFiles.length > 0) {
    for (const n of allProjects)
      mergeTargets(targets, [projectTarget(n, "global_file", [...globalFiles])], seen);
    if (allProjects.length === 0) {
      mergeTargets(
        targets,
        globalFiles.map((g) => fileTarget(g, "global", "global_file")),
        seen,
      );
    }
  }
  // 5. fallback.
  let fallback: AffectedFallback = { enabled: false, available: false, targets: [] };
  const mapped = new Set<string>([...globalFiles, ...lockfiles]);
  for (const t of targets)
    for (const f of Array.isArray(t.files) ? t.files : []) mapped.add(String(f));
  if (input.fallback !== false && (targets.length === 0 || input.includeFallback === true)) {
    const fb = fallbackTargets(
      sources.filter((p) => input.includeFallback === true || !mapped.has(p)),
      input.importGraph,
    );
    fallback = fb.fallback;
    mergeTargets(targets, fb.fallback.targets, seen);
    for (const p of fb.mapped) mapped.add(p);
  }
  // 6. unmapped.
  const unmapped = sources.filter((p) => !mapped.has(p));
  for (const p of unmapped) runAll.push(`unmapped: ${p}`);
  mergeTargets(
    targets,
    unmapped.map((p) => fileTarget(p, "unmapped", "unmapped")),
    seen,
  );
  return {
    changed_paths: changed,
    targets,
    adapters: facts,
    fallback,
    unmapped,
    global_files: globalFiles,
    lockfiles,
    run_all: runAll.length > 0,
    run_all_reasons: runAll,
  };
}

/** Is `value` an affected-targets fact (a cheap shape check for hosts that store one)? */
export function isAffectedTargetsFact(value: unknown): value is AffectedTargetsFact {
  return isDict(value) && Array.isArray(value.targets) && Array.isArray(value.changed_paths);
}

function invalid(path: string, message: string): never {
  throw new TurngateValidationError("affected targets input", [{ path, message }]);
}

const isStringList = (v: unknown): boolean =>
  Array.isArray(v) && v.every((x) => typeof x === "string");

/** Field checks of {@link reduceAffectedTargets}'s input (wire names in messages). */
function validateInput(input: ReduceAffectedInput): void {
  if (!isDict(input)) invalid("", "must be an object");
  if (!Array.isArray(input.adapters)) invalid("adapters", "must be a list");
  input.adapters.forEach((run, i) => {
    if (!isDict(run)) invalid(`adapters.${i}`, "must be an object");
    if (typeof run.id !== "string") invalid(`adapters.${i}.id`, "must be a string");
    if (typeof run.parser_id !== "string") invalid(`adapters.${i}.parser_id`, "must be a string");
    if (run.result !== undefined && !isDict(run.result)) {
      invalid(`adapters.${i}.result`, "must be an object");
    }
    if (isDict(run.result)) {
      const r = run.result as Dict;
      if (r.stdout !== undefined && r.stdout !== null && typeof r.stdout !== "string") {
        invalid(`adapters.${i}.result.stdout`, "must be a string");
      }
      if (r.status !== undefined && r.status !== null && typeof r.status !== "string") {
        invalid(`adapters.${i}.result.status`, "must be a string");
      }
    }
    if (run.error !== undefined && typeof run.error !== "string") {
      invalid(`adapters.${i}.error`, "must be a string");
    }
    if (run.fact !== undefined && !isDict(run.fact))
      invalid(`adapters.${i}.fact`, "must be an object");
  });
  if (input.root !== undefined && typeof input.root !== "string")
    invalid("root", "must be a string");
  if (input.globalFiles !== undefined && !isStringList(input.globalFiles)) {
    invalid("global_files", "must be a list of strings");
  }
  const g = input.importGraph as unknown;
  if (g !== undefined && g !== null) {
    const view = g as { importers?: unknown; isSource?: unknown };
    if (
      typeof g !== "object" ||
      typeof view.importers !== "function" ||
      typeof view.isSource !== "function"
    ) {
      invalid("import_graph", "must have importers(path) and isSource(path)");
    }
  }
  if (input.lockfiles !== undefined) {
    if (!isDict(input.lockfiles)) invalid("lockfiles", "must be an object");
    for (const [k, v] of Object.entries(input.lockfiles)) {
      const ok = (x: unknown) => x === null || typeof x === "string";
      if (!isDict(v) || !ok(v.before) || !ok(v.after)) {
        invalid(`lockfiles.${k}`, "must be {before, after} with string or null sides");
      }
    }
  }
}
