/**
 * Gathering the result-cache key (issue 20 item 1): the machine- and turn-level parts once
 * per turn (`cacheKeyContext`: tree, lockfiles, toolchain, os/arch, out-of-scope rows),
 * then one key per check (`checkCacheKey`). The pure hashing is core's `cacheKey`.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type CacheKeyInput,
  type CacheKeyToolchainFact,
  cacheKey,
  cacheKeyOutsideRows,
  LOCKFILE_NAMES,
  normalizeCheckCwd,
  type VerificationCommand,
} from "@turngate/core";
import { toolchainFacts } from "../facts/profiles/toolchain.js";
import { pythonInterpreter } from "../presets/detect.js";
import { sourceTreeId } from "../proofs/source-tree.js";
import { isSecretName } from "../runner/check-env.js";
import { runGit } from "../workspace/listing/git.js";
import { type SourceTreeChange, sourceTreeFromChanges } from "./tree-from-changes.js";

/**
 * File names whose digests join every key (wherever they are in the source scope, or at the
 * root even when ignored): core's affected-targets `LOCKFILE_NAMES` without `go.mod`, which
 * is a manifest in the source tree (so already in the key's tree), not a lockfile.
 */
export const CACHE_KEY_LOCKFILE_NAMES: readonly string[] = LOCKFILE_NAMES.filter(
  (name) => name !== "go.mod",
);

/** Options of {@link cacheKeyContext}. */
export interface CacheKeyContextOptions {
  /** The workspace root (the git work tree's top level). */
  root: string;
  /** The source tree at the baseline (`Session.baselineTree.tree`); null/absent: computed in full. */
  baselineTree?: string | null;
  /** The turn's workspace changes (`observeWorkspace()`): source ones update the tree, others are rows. */
  changes: readonly {
    path: string;
    change: SourceTreeChange["change"];
    scope: string;
    content_digest: string;
  }[];
  /** The mutation ledger's rows (`Session.records`): those outside the source scope join the key. */
  records: readonly { path: string; content_digest: string }[];
  /**
   * Toolchain rows (`cache.toolchain`: `{id, probe}` as `toolchainFacts` takes), probed now
   * after {@link defaultToolchainRows}: a row with a default's id replaces it, others add.
   */
  toolchain?: readonly unknown[];
  /** turngate's version. */
  turngate: string;
  env?: NodeJS.ProcessEnv;
}

/** The per-turn part of every key, and what was left out. */
export interface CacheKeyContext {
  base: Omit<CacheKeyInput, "check">;
  /** Out-of-scope rows an exclusion left out (`{path, exclusion}`). */
  excluded: { path: string; exclusion: string }[];
}

/**
 * The per-turn part of the result-cache key: `tree` by `sourceTreeFromChanges` (baseline
 * tree + the observed source changes; a temporary index, the user's index untouched),
 * `lockfiles` (`lockfileDigests`: tracked lockfiles, the turn's new ones, and those at
 * the root even when ignored), `toolchain`
 * (`toolchainFacts` of {@link defaultToolchainRows} merged with `options.toolchain`, run
 * with `env` — so its `PATH` — in the root; probe timings dropped; an absent tool is a fact
 * `{available: false, version: null, raw_version: ""}`), `platform` (`process.platform`,
 * `process.arch`), `outside` (ledger rows whose path is not a source-scope change, after
 * `cacheKeyOutsideRows`' exclusions) and `turngate`.
 * Output: `{context}` or `{context: null, reason}` when there is no git tree (not a git
 * work tree, git failed): the cache is then not used. Never throws.
 */
export async function cacheKeyContext(
  options: CacheKeyContextOptions,
): Promise<{ context: CacheKeyContext; reason?: undefined } | { context: null; reason: string }> {
  const env = options.env ?? process.env;
  const source = options.changes.filter((c) => c.scope === "source");
  const sourcePaths = new Set(source.map((c) => c.path));
  const [tree, lockfiles, toolchain] = await Promise.all([
    options.baselineTree
      ? sourceTreeFromChanges(options.root, options.baselineTree, source, env)
      : sourceTreeId(options.root, env),
    lockfileDigests(
      options.root,
      env,
      source.filter((c) => c.change !== "deleted").map((c) => c.path),
    ),
    keyToolchain(
      mergeToolchainRows(defaultToolchainRows(options.root, env), options.toolchain ?? []),
      options.root,
      env,
    ),
  ]);
  if (tree.tree === null) return { context: null, reason: `no source tree (${tree.reason})` };
  const rows = cacheKeyOutsideRows(options.records.filter((r) => !sourcePaths.has(r.path)));
  return {
    context: {
      base: {
        tree: tree.tree,
        lockfiles,
        toolchain,
        platform: { os: process.platform, arch: process.arch },
        outside: rows.outside,
        turngate: options.turngate,
      },
      excluded: rows.excluded,
    },
  };
}

/** How a check runs, beyond its command: the shell and the env allow-list. */
export interface CheckKeyOptions {
  /** The checks' shell name (`CheckShell.name`). */
  shell: string;
  /** Variable names whose values join the key (config `cache.env`). */
  envNames?: readonly string[];
  /** The environment the values are read from (the checks' environment). */
  env?: NodeJS.ProcessEnv;
}

/**
 * One check's key: `cacheKey({...context.base, check})` where `check` is `{command, shell,
 * cwd (the check's `cwd` normalised, `.` for the root), env, expect_exit, results_format, timeout_ms}`; `env` holds each
 * `envNames` variable that is set — a secret-looking name (`isSecretName`) as
 * `sha256:<hex of its value>`, never the value. `results_format` is `format` or
 * `format:output` for results read from the command's own output.
 * Output: 64 hex characters. Errors: core's `TurngateValidationError` for a blank command.
 */
export function checkCacheKey(
  context: CacheKeyContext,
  command: VerificationCommand,
  options: CheckKeyOptions,
): string {
  const envValues: Record<string, string> = {};
  const env = options.env ?? process.env;
  for (const name of options.envNames ?? []) {
    const value = env[name];
    if (value === undefined) continue;
    envValues[name] = isSecretName(name)
      ? `sha256:${createHash("sha256").update(value, "utf8").digest("hex")}`
      : value;
  }
  const results = command.results;
  return cacheKey({
    ...context.base,
    check: {
      command: command.command,
      shell: options.shell,
      cwd: normalizeCheckCwd(command.cwd ?? "") || ".",
      env: envValues,
      expect_exit: command.expect_exit,
      results_format: results
        ? results.source === "output"
          ? `${results.format}:output`
          : results.format
        : null,
      timeout_ms: command.timeout_ms ?? null,
    },
  });
}

/**
 * SHA-256 of every lockfile ({@link CACHE_KEY_LOCKFILE_NAMES}): the tracked ones (`git ls-files -z
 * --cached` with one `:(glob)**\/NAME` pathspec per name: names only, no directory walk),
 * those among `changedPaths` (the turn's added or modified source paths: an untracked new
 * lockfile), and those at the root even when ignored or untracked.
 * Output: path → hex. Never throws (an absent or unreadable file is left out).
 */
export async function lockfileDigests(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  changedPaths: readonly string[] = [],
): Promise<Record<string, string>> {
  const paths = new Set<string>(CACHE_KEY_LOCKFILE_NAMES);
  for (const path of changedPaths) {
    if (CACHE_KEY_LOCKFILE_NAMES.includes(path.slice(path.lastIndexOf("/") + 1))) paths.add(path);
  }
  try {
    const listed = await runGit(
      [
        "ls-files",
        "-z",
        "--cached",
        "--",
        ...CACHE_KEY_LOCKFILE_NAMES.map((n) => `:(glob)**/${n}`),
      ],
      root,
      { env },
    );
    if (listed.code === 0) {
      for (const path of listed.stdout.toString("utf8").split("\0"))
        if (path !== "") paths.add(path);
    }
  } catch {
    // git missing: the root lockfiles only
  }
  const out: Record<string, string> = {};
  await Promise.all(
    [...paths].map(async (path) => {
      try {
        out[path] = createHash("sha256")
          .update(await readFile(join(root, path)))
          .digest("hex");
      } catch {
        // absent or unreadable
      }
    }),
  );
  return out;
}

/** A default toolchain probe row: `{id, probe}` as `toolchainFacts` takes it. */
export interface ToolchainRow {
  id: string;
  /** An argv list, or a shell command spec (`command-spec.ts`). */
  probe: string[] | { mode: "shell"; command: string };
}

/**
 * The toolchain probes every key gets without configuration, chosen by the project files at
 * the workspace root (the ones the presets detect, `presets/detect.ts`):
 * `package.json` → `node` (`node --version`); `pyproject.toml`, `setup.py`, `setup.cfg`,
 * `tox.ini`, `pytest.ini`, `conftest.py` or `requirements.txt` → `python` (`<interpreter>
 * --version` with the interpreter on `PATH` the Python preset would run, `pythonInterpreter`,
 * never the workspace's `.venv/bin/python`: the probes run outside any sandbox); `go.mod` →
 * `go` (`go version && go env GOOS GOARCH` with `GOTOOLCHAIN=local`); `Cargo.toml` → `rustc` (`rustc --version`)
 * and `cargo` (`cargo --version`). Input: root and the checks' environment (its `PATH`
 * picks the Python interpreter). Output: rows in that order, empty when none applies.
 * Never throws.
 */
export function defaultToolchainRows(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): ToolchainRow[] {
  const has = (name: string) => existsSync(join(root, name));
  const rows: ToolchainRow[] = [];
  if (has("package.json")) rows.push({ id: "node", probe: ["node", "--version"] });
  // The probes run on the host, outside any sandbox: never a program of the workspace (the
  // agent's `.venv/bin/python` ran here and left a process that rewrote the clean room:
  // attack round), and `go` never switches to a toolchain `go.mod` names.
  if (PYTHON_MARKERS.some(has)) {
    const interpreter = pythonInterpreter(root, env);
    const onPath = interpreter.includes("/") ? "python3" : interpreter;
    rows.push({ id: "python", probe: [onPath, "--version"] });
  }
  if (has("go.mod")) {
    rows.push({
      id: "go",
      probe: {
        mode: "shell",
        command: "GOTOOLCHAIN=local go version && GOTOOLCHAIN=local go env GOOS GOARCH",
      },
    });
  }
  if (has("Cargo.toml")) {
    rows.push({ id: "rustc", probe: ["rustc", "--version"] });
    rows.push({ id: "cargo", probe: ["cargo", "--version"] });
  }
  return rows;
}

const PYTHON_MARKERS = [
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "tox.ini",
  "pytest.ini",
  "conftest.py",
  "requirements.txt",
];

/**
 * The defaults with the configured rows applied: a configured row whose `id` (or `name`)
 * equals a default's replaces that default in place; the others follow in their order.
 */
export function mergeToolchainRows(
  defaults: readonly ToolchainRow[],
  configured: readonly unknown[],
): unknown[] {
  const idOf = (row: unknown): string | undefined => {
    if (typeof row !== "object" || row === null) return undefined;
    const r = row as Record<string, unknown>;
    const id = r.id ?? r.name;
    return typeof id === "string" ? id.trim() : undefined;
  };
  const byId = new Map<string, unknown>();
  const extra: unknown[] = [];
  for (const row of configured) {
    const id = idOf(row);
    if (id !== undefined && defaults.some((d) => d.id === id)) byId.set(id, row);
    else extra.push(row);
  }
  return [...defaults.map((d) => byId.get(d.id) ?? d), ...extra];
}

async function keyToolchain(
  rows: readonly unknown[],
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<CacheKeyToolchainFact[]> {
  if (rows.length === 0) return [];
  const facts = await toolchainFacts(rows, { root, env });
  return facts.map((fact) => ({
    id: fact.id,
    available: fact.available,
    version: fact.available ? fact.version : null,
    raw_version: fact.available ? fact.raw_version : "",
    cache_identity: fact.cache_identity,
  }));
}
