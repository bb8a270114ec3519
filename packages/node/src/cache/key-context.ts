/**
 * Gathering the result-cache key (issue 20 item 1): the machine- and turn-level parts once
 * per turn (`cacheKeyContext`: tree, lockfiles, toolchain, os/arch, out-of-scope rows),
 * then one key per check (`checkCacheKey`). The pure hashing is core's `cacheKey`.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type CacheKeyInput,
  type CacheKeyToolchainFact,
  cacheKey,
  cacheKeyOutsideRows,
  normalizeCheckCwd,
  type VerificationCommand,
} from "@turngate/core";
import { toolchainFacts } from "../facts/profiles/toolchain.js";
import { sourceTreeId } from "../proofs/source-tree.js";
import { isSecretName } from "../runner/check-env.js";
import { runGit } from "../workspace/listing/git.js";
import { type SourceTreeChange, sourceTreeFromChanges } from "./tree-from-changes.js";

/** File names whose digests join every key (wherever they are in the source scope, or at the root even when ignored). */
export const LOCKFILE_NAMES: readonly string[] = [
  "pnpm-lock.yaml",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "bun.lock",
  "bun.lockb",
  "Cargo.lock",
  "go.sum",
  "go.work.sum",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
  "pdm.lock",
  "Gemfile.lock",
  "composer.lock",
  "flake.lock",
];

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
  /** Toolchain rows (`cache.toolchain`: `{id, probe}` as `toolchainFacts` takes), probed now. */
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
 * (`toolchainFacts` of the rows, probe timings dropped), `platform` (`process.platform`,
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
    keyToolchain(options.toolchain ?? [], options.root),
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
 * SHA-256 of every lockfile ({@link LOCKFILE_NAMES}): the tracked ones (`git ls-files -z
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
  const paths = new Set<string>(LOCKFILE_NAMES);
  for (const path of changedPaths) {
    if (LOCKFILE_NAMES.includes(path.slice(path.lastIndexOf("/") + 1))) paths.add(path);
  }
  try {
    const listed = await runGit(
      ["ls-files", "-z", "--cached", "--", ...LOCKFILE_NAMES.map((n) => `:(glob)**/${n}`)],
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

async function keyToolchain(
  rows: readonly unknown[],
  root: string,
): Promise<CacheKeyToolchainFact[]> {
  if (rows.length === 0) return [];
  const facts = await toolchainFacts(rows, { root });
  return facts.map((fact) => ({
    id: fact.id,
    available: fact.available,
    version: fact.version,
    raw_version: fact.raw_version,
    cache_identity: fact.cache_identity,
  }));
}
