/**
 * `affectedTargets` (harn-verification.md §1.3, §6.1; docs/design.md §4): runs each adapter
 * row's command through our runner (process group, timeout, reaping), feeds stdout to
 * core's parsers and reducer, and adds what only the host knows: the workspace files the
 * built-in `pnpm.workspace.v1` reads, both sides of changed lockfiles, the code index for
 * the fallback, and whether an adapter command changed a lockfile.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  type AdapterRun,
  type AffectedTargetsFact,
  adapterTemplateContext,
  classifyChangedFile,
  type ImportGraphView,
  LOCKFILE_NAMES,
  normalizeChangedPaths,
  readAdapterRow,
  reduceAffectedTargets,
  renderSpec,
  shellQuote,
  TurngateValidationError,
} from "@turngate/core";
import { runShellCommand } from "../../runner/shell.js";
import { toCommandResult } from "../profiles/command-result.js";
import { resolveSpec } from "../profiles/command-spec.js";
import { readPnpmWorkspace } from "./pnpm-workspace.js";

/** Default bound of one adapter command (ms). */
export const DEFAULT_ADAPTER_TIMEOUT_MS = 120_000;

/** Options of {@link affectedTargets} (wire names, as Harn's options dict). */
export interface AffectedTargetsOptions {
  /** Workspace root: the commands' working directory and `{{ root }}`. */
  root: string;
  template_context?: Record<string, unknown>;
  /** Merged under each row's `command_options`; `timeout_ms` (ms) is read. */
  command_options?: Record<string, unknown>;
  /** `false` disables the code-index fallback. */
  fallback?: boolean;
  include_fallback?: boolean;
  fail_on_adapter_error?: boolean;
  /** Extra root config globs whose change affects every target. */
  global_files?: string[];
  /** The code index (or any import graph) the fallback walks. */
  codeIndex?: ImportGraphView | null;
  /** The old text of a changed lockfile (`null`: it did not exist), e.g. from `git show BASE:path`. */
  lockfileBefore?: (path: string) => Promise<string | null | undefined>;
  /** Environment of the adapter commands; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Shell of the adapter commands (see `runShellCommand`). */
  shell?: string;
}

async function lockfileStamps(
  root: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const p of paths) {
    try {
      out.set(
        p,
        createHash("sha256")
          .update(await readFile(join(root, p)))
          .digest("hex"),
      );
    } catch {
      out.set(p, "");
    }
  }
  return out;
}

function timeoutOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Runs one adapter: `pnpm.workspace.v1` without a spec reads the workspace (no command);
 * otherwise the rendered spec runs in `root` with stderr kept apart from stdout (parsers
 * read stdout only). Returns the run for core's reducer; never rejects for a bad spec or a
 * failing command (they become `error` / a failed result).
 */
async function runAdapter(
  row: ReturnType<typeof readAdapterRow>,
  changed: string[],
  options: AffectedTargetsOptions,
  watched: readonly string[],
): Promise<AdapterRun> {
  const base = { id: row.id, parser_id: row.parser_id };
  if (row.spec === undefined) {
    if (row.parser_id !== "pnpm.workspace.v1") return base;
    try {
      const ws = await readPnpmWorkspace(options.root);
      if (ws === null)
        return { ...base, error: "pnpm.workspace.v1: no pnpm-workspace.yaml in the root" };
      return {
        ...base,
        result: { status: "completed", ok: true, exit_code: 0, stdout: JSON.stringify(ws) },
        fact: { command: null },
      };
    } catch (error) {
      return { ...base, error: `pnpm.workspace.v1: ${(error as Error).message}` };
    }
  }
  const ctx = adapterTemplateContext(
    changed,
    options.root,
    options.template_context,
    row.template_context,
  );
  const commandOptions = { ...(options.command_options ?? {}), ...row.command_options };
  let resolved: ReturnType<typeof resolveSpec>;
  try {
    resolved = resolveSpec(renderSpec(row.spec, ctx), `adapters.${row.id}.spec`);
  } catch (error) {
    return { ...base, error: (error as Error).message };
  }
  const cwd = resolved.cwd === undefined ? options.root : resolve(options.root, resolved.cwd);
  const tmp = await mkdtemp(join(tmpdir(), "turngate-adapter-"));
  const stderrPath = join(tmp, "stderr");
  const before = await lockfileStamps(options.root, watched);
  try {
    const run = await runShellCommand(`( ${resolved.command}\n) 2>${shellQuote(stderrPath)}`, {
      cwd,
      timeoutMs:
        resolved.timeoutMs ?? timeoutOf(commandOptions.timeout_ms) ?? DEFAULT_ADAPTER_TIMEOUT_MS,
      ...(options.env !== undefined ? { env: options.env } : {}),
      ...(options.shell !== undefined ? { shell: options.shell } : {}),
    });
    const result = toCommandResult(run);
    const stderr = await readFile(stderrPath, "utf8").catch(() => "");
    const after = await lockfileStamps(options.root, watched);
    const changedLocks = watched.filter((p) => before.get(p) !== after.get(p));
    const fact: Record<string, unknown> = {
      command: resolved.command,
      duration_ms: result.duration_ms,
    };
    if (stderr.trim() !== "")
      fact.stderr = stderr.length > 4000 ? `${stderr.slice(0, 4000)}…` : stderr;
    if (changedLocks.length > 0) fact.workspace_changed = changedLocks;
    if (result.spawn_error !== undefined) fact.spawn_error = result.spawn_error;
    return { ...base, result: { ...result, stderr }, fact };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * `verification_affected_targets(changed_paths, adapters, options)` (§1.3). Input:
 * `changedPaths` (string-list rule: blanks and duplicates dropped; give a renamed or
 * deleted file's old path too), `adapters` (rows `{id|name, parser_id|parser,
 * spec|command, template_context, command_options}`; the spec's strings are rendered with
 * `changed_paths`, `changed_paths_json`, `changed_paths_space` (shell-quoted) and `root`),
 * `options` ({@link AffectedTargetsOptions}). Adapters run one after another; each
 * command's stdout goes to its parser, its stderr into the fact. A row with parser
 * `pnpm.workspace.v1` and no spec reads `pnpm-workspace.yaml` and the manifests itself.
 * An adapter command that changes a lockfile is reported in its fact
 * (`workspace_changed`). Output: core's `AffectedTargetsFact` (targets with `reason`,
 * `via`, `unmapped`, `run_all`, …).
 *
 * Throws `TurngateValidationError` (`root` not a string, `adapters` not a list);
 * `AffectedParseError` only with `fail_on_adapter_error`. A bad spec, a command that fails,
 * times out or prints garbage is an adapter fact, never an exception.
 */
export async function affectedTargets(
  changedPaths: unknown,
  adapters: readonly unknown[] | null | undefined,
  options: AffectedTargetsOptions,
): Promise<AffectedTargetsFact> {
  if (typeof options?.root !== "string" || options.root === "") {
    throw new TurngateValidationError("affected targets options", [
      { path: "root", message: "must be a non-empty path" },
    ]);
  }
  if (adapters !== null && adapters !== undefined && !Array.isArray(adapters)) {
    throw new TurngateValidationError("affected targets request", [
      { path: "adapters", message: "must be a list of adapter rows" },
    ]);
  }
  const root = resolve(options.root);
  const opts = { ...options, root };
  const changed = normalizeChangedPaths(changedPaths);
  const rootLocks = LOCKFILE_NAMES.filter((n) => existsSync(join(root, n)));
  const watched = [
    ...new Set([...rootLocks, ...changed.filter((p) => classifyChangedFile(p) === "lockfile")]),
  ];
  const runs: AdapterRun[] = [];
  for (const [i, raw] of (adapters ?? []).entries()) {
    runs.push(await runAdapter(readAdapterRow(raw, i), changed, opts, watched));
  }
  const lockfiles: Record<string, { before: string | null; after: string | null }> = {};
  if (options.lockfileBefore !== undefined) {
    for (const p of changed.filter((c) => classifyChangedFile(c) === "lockfile")) {
      const before = await options.lockfileBefore(p);
      if (before === undefined) continue;
      const after = await readFile(join(root, p), "utf8").catch(() => null);
      lockfiles[p] = { before, after };
    }
  }
  return reduceAffectedTargets({
    changedPaths: changed,
    adapters: runs,
    root,
    importGraph: options.codeIndex ?? null,
    ...(options.fallback !== undefined ? { fallback: options.fallback } : {}),
    ...(options.include_fallback !== undefined
      ? { includeFallback: options.include_fallback }
      : {}),
    ...(options.fail_on_adapter_error !== undefined
      ? { failOnAdapterError: options.fail_on_adapter_error }
      : {}),
    ...(options.global_files !== undefined ? { globalFiles: options.global_files } : {}),
    lockfiles,
  });
}
