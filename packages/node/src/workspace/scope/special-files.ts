import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { mapBounded } from "../concurrency.js";
import { checkIgnore } from "../ignore/check-ignore.js";
import type { IgnoreDirsInput } from "../ignore/ignore-dirs.js";
import { isReadByGit } from "../ignore/ignore-dirs.js";
import type { IgnoreState, RepoIgnoreState } from "../ignore/ignore-state.js";
import type { PathFilter } from "../listing/listing.js";
import { parentOf, repoAbsolute, repoToWorkspace } from "../listing/repo-paths.js";
import { WALK_CONCURRENCY } from "../listing/walk.js";
import { isHarnessEntry, normalizeRelativePath } from "../paths.js";
import { RAW_STAT_FIELDS, RawKind } from "../stat/raw-stat.js";
import { RACY_WINDOW_MS } from "../stat/stat-cache.js";
import type { StatService } from "../stat/stat-service.js";

/** Reason recorded for a special file in the source scope. */
export const SPECIAL_FILE_REASON =
  "a FIFO, socket or device in the source scope: it has no bytes to bind (remove it, or ignore it in .gitignore)";

/** Input of {@link findSpecialFiles}. */
export interface SpecialFilesInput {
  /** The ignore-rule record whose directories are scanned (the baseline's). */
  state: IgnoreState;
  filter: PathFilter;
  stats: StatService;
  /** true: read every recorded directory (a baseline); false: only those whose `lstat`
   * identity changed since `state` was taken or is racy, and the new directories below them. */
  all: boolean;
}

/**
 * Finds FIFOs, sockets and devices in the source scope that git does not list (issue 10:
 * `git ls-files --others` skips them silently, so an agent's `mkfifo src/x` would leave no
 * trace). Cheap: a directory that gains an entry changes its mtime, so after a baseline only
 * the recorded directories whose identity changed (or is racy) are read with
 * `readdir({withFileTypes: true})` ({@link WALK_CONCURRENCY} at once), plus new directories below them that git does not ignore
 * (one `git check-ignore`); the special files found are kept only when git does not ignore
 * them (one more `git check-ignore`). Tracked special files are already reported by the
 * listing's `lstat`.
 *
 * Output: workspace keys (sorted). Directories that cannot be read are skipped (the
 * listing reports them). Throws {@link WorkspaceObserverError} `git_failed` when
 * `git check-ignore` fails in the root's repository.
 */
export async function findSpecialFiles(input: SpecialFilesInput): Promise<string[]> {
  const found: string[] = [];
  for (const repo of input.state.repos) {
    try {
      found.push(...(await scanRepo(input, repo)));
    } catch (error) {
      if (repo.dir === "") throw error;
    }
  }
  return found.sort();
}

async function scanRepo(input: SpecialFilesInput, repo: RepoIgnoreState): Promise<string[]> {
  const place: IgnoreDirsInput = {
    dir: repo.dir,
    prefix: repo.prefix,
    toplevel: repo.toplevel,
    ignored: new Set(repo.ignored),
    filter: input.filter,
  };
  let toRead: string[];
  if (input.all) toRead = repo.dirs.map((d) => d.path);
  else {
    const raw = await input.stats.statAll(
      repo.dirs.map((d) => repoAbsolute(repo.toplevel, d.path)),
    );
    const takenAt = input.state.taken_at_ms;
    toRead = repo.dirs
      .filter((d, i) => {
        const at = i * RAW_STAT_FIELDS;
        if (raw[at] !== RawKind.directory) return false;
        const same =
          raw[at + 2] === d.mtime_ms && raw[at + 3] === d.ctime_ms && raw[at + 4] === d.ino;
        return !same || Math.max(d.mtime_ms, d.ctime_ms) >= takenAt - RACY_WINDOW_MS;
      })
      .map((d) => d.path);
  }
  const known = new Set(repo.dirs.map((d) => d.path));
  for (const nested of repo.nested) known.add(nested);
  const special: string[] = [];
  let level = toRead;
  let fresh = false;
  while (level.length > 0) {
    const newDirs: string[] = [];
    // One level's directories are read in parallel and processed in order (same output).
    const read = await mapBounded(level, WALK_CONCURRENCY, (dir) =>
      readdir(repoAbsolute(repo.toplevel, dir), { withFileTypes: true }).catch(() => undefined),
    );
    for (let i = 0; i < level.length; i++) {
      const dir = level[i] as string;
      const dirents: Dirent[] | undefined = read[i];
      if (dirents === undefined) continue;
      if (fresh && dirents.some((d) => d.name === ".git")) continue; // a new nested repository
      for (const dirent of dirents) {
        const child = dir === "" ? dirent.name : `${dir}/${dirent.name}`;
        if (dirent.isDirectory()) {
          if (!known.has(child) && isReadByGit(place, child)) newDirs.push(child);
        } else if (!dirent.isFile() && !dirent.isSymbolicLink()) {
          const fsPath = repoToWorkspace(place, child);
          if (fsPath === undefined || isHarnessEntry(parentOf(fsPath), dirent.name)) continue;
          if (input.filter(normalizeRelativePath(fsPath), false)) continue;
          special.push(child);
        }
      }
    }
    const excluded = await checkIgnore(repo.toplevel, newDirs);
    level = newDirs.filter((d) => !excluded.has(d));
    for (const d of level) known.add(d);
    fresh = true;
  }
  const ignored = await checkIgnore(repo.toplevel, special);
  return special
    .filter((p) => !ignored.has(p))
    .map((p) => normalizeRelativePath(repoToWorkspace(place, p) as string));
}
