/**
 * Change sets for the fleet simulation (issue #20 item 5): the file lists of a repository's
 * commits, read with `git log --no-merges --name-only` (oldest first; renames as a deletion
 * plus an addition).
 */
import { execFileSync } from "node:child_process";

/** One commit's change set: its id and the paths it touched (repository-relative, `/`-separated). */
export interface ChangeSet {
  id: string;
  files: string[];
}

/** Commits with no file (empty commits) are dropped; the order is oldest first. */
export interface History {
  commits: ChangeSet[];
}

/** Typed error for an unreadable history; `field` is the wire name of the bad input. */
export class HistoryError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "HistoryError";
  }
}

const MARK = "\u0001";

/**
 * Parses `git log --format=%x01%H --name-only` output into change sets (oldest first when the log
 * was read with `--reverse`). Pure; used by readHistory and by tests.
 */
export function parseNameOnlyLog(text: string): History {
  const commits: ChangeSet[] = [];
  for (const block of text.split(MARK)) {
    const lines = block.split("\n");
    const id = (lines[0] ?? "").trim();
    if (id === "") continue;
    const files = [...new Set(lines.slice(1).filter((l) => l !== ""))];
    if (files.length > 0) commits.push({ id, files });
  }
  return { commits };
}

/**
 * The change sets of `repo`'s history (the ancestry of `rev`, default HEAD; merges skipped,
 * oldest first). Input: a path inside a git work tree or a bare repository, and a revision.
 * Throws HistoryError("repo") when git fails (not a repository, unknown revision, no commits)
 * or the history has no commit touching a file; HistoryError("rev") for a revision starting
 * with `-`.
 */
export function readHistory(repo: string, rev = "HEAD"): History {
  if (rev.startsWith("-")) throw new HistoryError("rev", `not a revision: ${rev}`);
  let out: string;
  try {
    out = execFileSync(
      "git",
      [
        "-c",
        "core.quotepath=false",
        "-c",
        "log.showSignature=false",
        "log",
        "--reverse",
        "--no-merges",
        "--no-renames",
        "--name-only",
        `--format=${MARK}%H`,
        rev,
        "--",
      ],
      { cwd: repo, encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "pipe"] },
    );
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? String(err);
    throw new HistoryError("repo", `git log failed in ${repo}: ${stderr.trim()}`);
  }
  const history = parseNameOnlyLog(out);
  if (history.commits.length === 0)
    throw new HistoryError("repo", `no commit in ${repo} touches a file`);
  return history;
}
