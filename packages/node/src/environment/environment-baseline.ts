/**
 * What a turn fixes about the checks' environment when its baseline is taken (issue 10;
 * docs/design.md §3a), stored with the baseline (`turngate baseline`) and compared after the
 * agent ran: the checks' shell and `PATH` (`check-env.ts`), the user-level file
 * fingerprints (`user-files.ts`) and a fingerprint of the checks' `CARGO_TARGET_DIR`.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TurngateValidationError } from "@turngate/core";
import { type CheckEnvironmentPlan, planCheckEnvironment } from "../runner/check-env.js";
import { fingerprintUserFiles, type UserFileFingerprints } from "./user-files.js";

/** The environment half of a baseline. */
export interface EnvironmentBaseline {
  plan: CheckEnvironmentPlan;
  userFiles: UserFileFingerprints;
  /** `fingerprintTree` of the checks' cargo target folder; null when no state folder was set. */
  cargoTarget: string | null;
  /** Absolute path → `fileFingerprint` of the files whose change ends `needs_review` (the config). */
  reviewFiles: Record<string, string>;
  /**
   * Absolute path → `hookFileFingerprint` of the harnesses' hook settings in the workspace
   * (docs/design.md §3b): a change ends `needs_review` (`turngate:hook-settings`). Absent in
   * baselines stored before: nothing is compared.
   */
  hookFiles?: Record<string, string>;
}

/**
 * The fingerprint of one hook settings path: `tree:` and `fingerprintTree` for a folder (a
 * plugins folder: a plugin added, changed or removed changes it), else `fileFingerprint`
 * (`"absent"` when there is nothing). Sync; never throws.
 */
export function hookFileFingerprint(path: string): string {
  try {
    if (lstatSync(path).isDirectory()) return `tree:${fingerprintTree(path)}`;
  } catch {
    return "absent";
  }
  return fileFingerprint(path);
}

/** Lowercase hex SHA-256 of a file's bytes, `"absent"` when it cannot be read. Sync; never throws. */
export function fileFingerprint(path: string): string {
  try {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    return "absent";
  }
}

/** Entries walked at most by `fingerprintTree` (then the digest covers the first ones). */
export const TREE_FINGERPRINT_MAX_ENTRIES = 500_000;

/**
 * A metadata fingerprint of every entry under `dir` (not followed through symlinks):
 * lowercase hex SHA-256 over `relpath\0type\0size\0mtime_ns\0ino\n` of each entry in
 * code-point order of paths; `"absent"` when `dir` does not exist. Cheap (stat only, no
 * file bytes): a file rewritten in place, swapped or touched changes it. At most
 * 500,000 entries. Sync; never throws.
 */
export function fingerprintTree(dir: string): string {
  try {
    if (!lstatSync(dir).isDirectory()) return "absent";
  } catch {
    return "absent";
  }
  const hash = createHash("sha256");
  let budget = TREE_FINGERPRINT_MAX_ENTRIES;
  const walk = (abs: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(abs).sort();
    } catch {
      hash.update(`${rel}\0unreadable\n`);
      return;
    }
    for (const name of names) {
      if (budget-- <= 0) return;
      const childAbs = join(abs, name);
      const childRel = rel === "" ? name : `${rel}/${name}`;
      let stat: ReturnType<typeof lstatSync>;
      try {
        stat = lstatSync(childAbs, { bigint: true });
      } catch {
        continue;
      }
      const type = stat.isDirectory() ? "d" : stat.isSymbolicLink() ? "l" : "f";
      hash.update(`${childRel}\0${type}\0${stat.size}\0${stat.mtimeNs}\0${stat.ino}\n`);
      if (type === "d") walk(childAbs, childRel);
    }
  };
  walk(dir, "");
  return hash.digest("hex");
}

/** Options of `takeEnvironmentBaseline`. */
export interface EnvironmentBaselineOptions {
  /** Config `shell` (a name on PATH or an absolute path); default bash if found, else sh. */
  shell?: string;
  /** The environment (`PATH`, `HOME`, overrides); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Home directory override (tests); default `env.HOME`. */
  home?: string;
  /** The workspace root (absolute): its ancestors' tool configs are fingerprinted (`ancestorLocations`). */
  root?: string;
  /** The checks' `CARGO_TARGET_DIR`, fingerprinted; none when absent. */
  cargoTargetDir?: string;
  /** Files fingerprinted with `fileFingerprint` (absolute paths). */
  reviewFiles?: readonly string[];
  /** Hook settings paths fingerprinted with `hookFileFingerprint` (absolute paths). */
  hookFiles?: readonly string[];
}

/**
 * Take the environment baseline now: `planCheckEnvironment(shell, env)`, the user-level
 * fingerprints, the cargo target folder's fingerprint, the review files' fingerprints and the
 * hook settings' (`hookFileFingerprint`).
 * Errors: `TurngateValidationError` (path `shell`) from `planCheckEnvironment`.
 */
export function takeEnvironmentBaseline(options: EnvironmentBaselineOptions): EnvironmentBaseline {
  const env = options.env ?? process.env;
  const fingerprintOptions: Parameters<typeof fingerprintUserFiles>[0] = { env };
  if (options.home !== undefined) fingerprintOptions.home = options.home;
  if (options.root !== undefined) fingerprintOptions.root = options.root;
  return {
    plan: planCheckEnvironment(options.shell, env),
    userFiles: fingerprintUserFiles(fingerprintOptions),
    cargoTarget:
      options.cargoTargetDir === undefined ? null : fingerprintTree(options.cargoTargetDir),
    reviewFiles: Object.fromEntries(
      (options.reviewFiles ?? []).map((path) => [path, fileFingerprint(path)]),
    ),
    ...(options.hookFiles !== undefined
      ? {
          hookFiles: Object.fromEntries(
            options.hookFiles.map((path) => [path, hookFileFingerprint(path)]),
          ),
        }
      : {}),
  };
}

/**
 * The wire form stored in `baseline.json`: `{shell: {path, name, pipefail}, path,
 * user_files: {label: digest}, cargo_target: digest | null, review_files: {path: digest},
 * hook_files?: {path: fingerprint}}`.
 */
export function serializeEnvironmentBaseline(baseline: EnvironmentBaseline): unknown {
  return {
    shell: { ...baseline.plan.shell },
    path: baseline.plan.path,
    user_files: { ...baseline.userFiles },
    cargo_target: baseline.cargoTarget,
    review_files: { ...baseline.reviewFiles },
    ...(baseline.hookFiles !== undefined ? { hook_files: { ...baseline.hookFiles } } : {}),
  };
}

/**
 * Read the wire form back (`serializeEnvironmentBaseline`).
 * Errors: `TurngateValidationError` naming the field (`environment.shell.path`, …).
 */
export function deserializeEnvironmentBaseline(value: unknown): EnvironmentBaseline {
  const fail = (path: string, message: string): never => {
    throw new TurngateValidationError("environment baseline", [
      { path: `environment${path}`, message },
    ]);
  };
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(value)) return fail("", "expected an object");
  const shell = value.shell;
  if (!isObject(shell)) return fail(".shell", "expected an object");
  if (typeof shell.path !== "string" || !shell.path.startsWith("/")) {
    return fail(".shell.path", "expected an absolute path");
  }
  if (typeof shell.name !== "string") return fail(".shell.name", "expected a string");
  if (typeof shell.pipefail !== "boolean") return fail(".shell.pipefail", "expected a boolean");
  if (typeof value.path !== "string") return fail(".path", "expected a string");
  const files = value.user_files;
  if (!isObject(files)) return fail(".user_files", "expected an object");
  const userFiles: UserFileFingerprints = {};
  for (const [label, digest] of Object.entries(files)) {
    if (typeof digest !== "string") return fail(`.user_files.${label}`, "expected a string");
    userFiles[label] = digest;
  }
  const cargo = value.cargo_target;
  if (cargo !== null && typeof cargo !== "string") {
    return fail(".cargo_target", "expected a string or null");
  }
  const review = value.review_files;
  if (!isObject(review)) return fail(".review_files", "expected an object");
  const reviewFiles: Record<string, string> = {};
  for (const [path, digest] of Object.entries(review)) {
    if (typeof digest !== "string") return fail(`.review_files.${path}`, "expected a string");
    reviewFiles[path] = digest;
  }
  let hookFiles: Record<string, string> | undefined;
  if (value.hook_files !== undefined) {
    const hooks = value.hook_files;
    if (!isObject(hooks)) return fail(".hook_files", "expected an object");
    hookFiles = {};
    for (const [path, digest] of Object.entries(hooks)) {
      if (typeof digest !== "string") return fail(`.hook_files.${path}`, "expected a string");
      hookFiles[path] = digest;
    }
  }
  return {
    plan: {
      shell: { path: shell.path, name: shell.name, pipefail: shell.pipefail },
      path: value.path,
    },
    userFiles,
    cargoTarget: cargo,
    reviewFiles,
    ...(hookFiles !== undefined ? { hookFiles } : {}),
  };
}
