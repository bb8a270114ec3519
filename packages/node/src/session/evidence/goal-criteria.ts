/**
 * Goal criteria of a workspace (issue 13 item 3; A3S §2.14): the ACCEPTANCE.md machine
 * criteria of every active goal loop under `.a3s/loops/<id>/` (A3S's layout) and
 * `.turngate/goals/<id>/` (ours, same rules).
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import {
  type AcceptanceProblem,
  loopIsActive,
  loopStatus,
  parseAcceptanceCriteria,
  type VerificationCommand,
} from "@turngate/core";

/** The folders goal loops live in, relative to the root, in the order they are read. */
export const GOAL_LOOP_DIRS: readonly string[] = [".a3s/loops", ".turngate/goals"];

/** One active goal loop and its criteria. */
export interface GoalLoop {
  loop_id: string;
  /** The ACCEPTANCE.md path relative to the root ('/'-separated). */
  path: string;
  /** The status its STATE.md names (`running`, `retrying` or `paused`, as written). */
  status: string;
  commands: VerificationCommand[];
  problems: AcceptanceProblem[];
}

/** A goal file that could not be read (unreadable, not UTF-8, a symlink, not a regular file). */
export interface GoalReadProblem {
  path: string;
  reason: "unreadable" | "not_utf8" | "not_a_regular_file";
  message: string;
}

/** The goal criteria of a workspace as read at one moment. */
export interface GoalCriteria {
  loops: GoalLoop[];
  /** Every loop's commands, loop order then line order: the shell-evidence candidates. */
  commands: VerificationCommand[];
  unreadable: GoalReadProblem[];
}

/**
 * Reads the goal criteria of `root`: for each folder of `GOAL_LOOP_DIRS` that is a real
 * directory, each loop directory in it (sorted by name; A3S's order was the directory's),
 * its `STATE.md` and `ACCEPTANCE.md`. A loop counts when STATE.md is active
 * (`loopIsActive`); its ACCEPTANCE.md is parsed with `parseAcceptanceCriteria` (loop id =
 * the directory name; an absolute `kind:file_exists` path is allowed only for an existing
 * regular file whose real path is inside the root's real path). Symlinked folders and
 * files are not followed (an agent could point them anywhere); a file that is not a
 * regular file, cannot be read or is not UTF-8 is listed in `unreadable` and its loop
 * skipped. A missing folder or file is not a problem. Never throws.
 */
export function readGoalCriteria(root: string): GoalCriteria {
  const loops: GoalLoop[] = [];
  const unreadable: GoalReadProblem[] = [];
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return { loops, commands: [], unreadable };
  }
  const allowAbsolutePath = (path: string): boolean => {
    try {
      if (!statSync(path).isFile()) return false;
      const rel = relative(realRoot, realpathSync(path));
      return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep);
    } catch {
      return false;
    }
  };
  for (const dir of GOAL_LOOP_DIRS) {
    const base = join(root, ...dir.split("/"));
    if (!isRealDirectory(base)) continue;
    let names: string[];
    try {
      names = readdirSync(base).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (!isRealDirectory(join(base, name))) continue;
      const state = readText(join(base, name, "STATE.md"), `${dir}/${name}/STATE.md`, unreadable);
      if (state === null || !loopIsActive(state)) continue;
      const path = `${dir}/${name}/ACCEPTANCE.md`;
      const text = readText(join(base, name, "ACCEPTANCE.md"), path, unreadable);
      if (text === null) continue;
      const parsed = parseAcceptanceCriteria(name, text, { allowAbsolutePath });
      loops.push({
        loop_id: name,
        path,
        status: loopStatus(state) ?? "",
        commands: parsed.commands,
        problems: parsed.problems,
      });
    }
  }
  return { loops, commands: loops.flatMap((loop) => loop.commands), unreadable };
}

function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The file's text; `null` when absent (silently) or unreadable (listed). */
function readText(full: string, path: string, problems: GoalReadProblem[]): string | null {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(full);
  } catch {
    return null;
  }
  if (!stat.isFile()) {
    problems.push({
      path,
      reason: "not_a_regular_file",
      message: `${path} is not a regular file (symlinks are not followed); its loop is skipped`,
    });
    return null;
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(full);
  } catch (error) {
    problems.push({
      path,
      reason: "unreadable",
      message: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}); its loop is skipped`,
    });
    return null;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    problems.push({
      path,
      reason: "not_utf8",
      message: `${path} is not UTF-8 text; its loop is skipped`,
    });
    return null;
  }
}
