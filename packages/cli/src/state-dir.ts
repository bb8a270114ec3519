import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { TurngateValidationError } from "@turngate/core";
import { TURNGATE_DIR, turngatePaths } from "@turngate/node";

/** File name of the baseline history in the state folder. */
export const BASELINE_HISTORY_FILE = "baseline-history.json";

/** Where turngate keeps a turn's files: the stored baseline, check logs and proofs. */
export interface StatePaths {
  /** The folder: `--state-dir DIR`, else `<root>/.turngate`. */
  dir: string;
  /** `<dir>/baseline.json`: the baseline `turngate baseline` stores. */
  baseline: string;
  /** `<dir>/baseline-history.json`: ids and times of the last 20 baselines stored. */
  baselineHistory: string;
  /** `<dir>/logs`: full verification command logs. */
  logs: string;
  /** `<dir>/proofs`: turn proofs, `<effect digest>.json`. */
  proofs: string;
}

/**
 * The state folder of a command: `--state-dir DIR` (resolved against `cwd`) or, without
 * it, `<root>/.turngate` (`turngatePaths`). A state folder outside the workspace keeps the
 * baseline, logs and proofs where the agent — which writes inside the workspace — cannot
 * change them.
 *
 * Input: the absolute workspace root, the flag value (or undefined) and the cwd.
 * Output: absolute paths; nothing is created.
 * Errors: `TurngateValidationError` (path `--state-dir`) when DIR is inside the workspace
 * root (symlinks resolved) other than under `<root>/.turngate` — the observer would record
 * turngate's own files as changes of the turn.
 */
export function resolveStatePaths(root: string, flag: string | undefined, cwd: string): StatePaths {
  if (flag === undefined) {
    const paths = turngatePaths(root);
    return {
      dir: paths.dir,
      baseline: paths.baseline,
      baselineHistory: join(paths.dir, BASELINE_HISTORY_FILE),
      logs: paths.logs,
      proofs: paths.proofs,
    };
  }
  const dir = resolve(cwd, flag);
  const inside = relative(realExisting(root), realExisting(dir));
  const insideRoot = inside === "" || (!inside.startsWith("..") && !isAbsolute(inside));
  const underTurngate = inside === TURNGATE_DIR || inside.startsWith(`${TURNGATE_DIR}/`);
  if (insideRoot && !underTurngate) {
    throw new TurngateValidationError("--state-dir value", [
      {
        path: "--state-dir",
        message: `${dir} is inside the workspace root ${root}: choose a folder outside it (the agent must not be able to write it, and the observer would record turngate's files as changes)`,
      },
    ]);
  }
  return {
    dir,
    baseline: join(dir, "baseline.json"),
    baselineHistory: join(dir, BASELINE_HISTORY_FILE),
    logs: join(dir, "logs"),
    proofs: join(dir, "proofs"),
  };
}

/** `path` with symlinks resolved in its longest existing prefix (the rest appended as is). */
function realExisting(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) return path;
    rest.unshift(existing.slice(parent.length + (parent.endsWith("/") ? 0 : 1)));
    existing = parent;
  }
  return join(realpathSync(existing), ...rest);
}

/** File-system error codes that mean "this folder cannot be written". */
const UNWRITABLE = new Set(["EACCES", "EPERM", "EROFS"]);

/**
 * The message for a write into the state folder `dir` that failed (issue 34 item 6): names
 * the folder, what went wrong and the fix (`--state-dir`). `error`'s own message when it is
 * not a permission or read-only error.
 * Input: the error thrown by the write and the state folder. Output: one line, no newline.
 */
export function stateWriteProblem(error: unknown, dir: string): string {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === "string" && UNWRITABLE.has(code)) {
    const path = (error as NodeJS.ErrnoException).path;
    return `turngate cannot write its state folder ${dir} (${code}${path ? ` on ${path}` : ""}): make it writable, or give a writable folder outside the workspace with --state-dir DIR`;
  }
  return `${(error as Error)?.message ?? String(error)} (in the state folder ${dir})`;
}
