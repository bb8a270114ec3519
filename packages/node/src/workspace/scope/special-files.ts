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

/** Reason recorded for a folder of the source scope that cannot be read (issue 17 review). */
export const UNREADABLE_FOLDER_REASON =
  "a folder in the source scope that turngate cannot read or enter: git only warns and lists nothing in it, so what it holds is unknown (make it readable with chmod u+rx, or sudo chown it to you if another user owns it; or add it to ignores in the turngate config if no check reads it)";

/** What {@link findSpecialFiles} found: workspace keys, each list sorted. */
export interface SpecialFilesResult {
  /** FIFOs, sockets and devices git does not ignore. */
  special: string[];
  /** Folders git reads (not ignored) whose entries cannot be read (`EACCES`, …). */
  unreadableFolders: string[];
  /**
   * Workspace folders (on-disk paths, not the root) of the source scope holding a `.git`
   * entry: the record's `nested` folders and those the scan read that hold one. Their
   * `.git` is observed like the root's (`listNestedGitPaths`): git lists nothing in it.
   */
  gitFolders: string[];
}

/** Input of {@link findSpecialFiles}. */
export interface SpecialFilesInput {
  /** The ignore-rule record whose directories are scanned (the baseline's). */
  state: IgnoreState;
  filter: PathFilter;
  stats: StatService;
  /** true: read every recorded directory (a baseline); false: only those whose `lstat`
   * identity changed since `state` was taken or is racy, and the new directories below them. */
  all: boolean;
  /**
   * The workspace folders the observation listed with their own git (`""` = the root's
   * repository), or a promise of them (a baseline's scan starts before the listing ends).
   * A folder holding a `.git` entry is skipped as a nested repository only when it is one
   * of them; any other (a `.git` that is a junk file or an empty folder: git lists such a
   * folder's files with the parent's) is read like every folder.
   */
  repos: ReadonlySet<string> | Promise<ReadonlySet<string>>;
}

/**
 * Finds FIFOs, sockets and devices in the source scope that git does not list (issue 10:
 * `git ls-files --others` skips them silently, so an agent's `mkfifo src/x` would leave no
 * trace). Cheap: a directory that gains an entry changes its mtime, so after a baseline only
 * the recorded directories whose identity changed (or is racy) are read with
 * `readdir({withFileTypes: true})` ({@link WALK_CONCURRENCY} at once), plus new directories
 * below them that git does not ignore (one `git check-ignore`); the special files found are kept only when git does not ignore
 * them (one more `git check-ignore`). Tracked special files are already reported by the
 * listing's `lstat`.
 *
 * A folder it reads that cannot be read (any error but `ENOENT`/`ENOTDIR`: an agent's
 * `chmod 000 src/hidden` after writing into it) goes to `unreadableFolders`: `git ls-files`
 * skips such a folder silently, so nothing else would say that its files are unknown.
 *
 * Output: {@link SpecialFilesResult}. Throws {@link WorkspaceObserverError} `git_failed`
 * when `git check-ignore` fails in the root's repository.
 */
export async function findSpecialFiles(input: SpecialFilesInput): Promise<SpecialFilesResult> {
  const found: SpecialFilesResult = { special: [], unreadableFolders: [], gitFolders: [] };
  for (const repo of input.state.repos) {
    try {
      const part = await scanRepo(input, repo);
      found.special.push(...part.special);
      found.unreadableFolders.push(...part.unreadableFolders);
      found.gitFolders.push(...part.gitFolders);
    } catch (error) {
      if (repo.dir === "") throw error;
    }
  }
  found.special.sort();
  found.unreadableFolders.sort();
  found.gitFolders = [...new Set(found.gitFolders)].sort();
  return found;
}

async function scanRepo(
  input: SpecialFilesInput,
  repo: RepoIgnoreState,
): Promise<SpecialFilesResult> {
  const place: IgnoreDirsInput = {
    dir: repo.dir,
    prefix: repo.prefix,
    toplevel: repo.toplevel,
    ignored: new Set(repo.ignored),
    filter: input.filter,
  };
  const unreadableFolders: string[] = [];
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
        if (raw[at] === RawKind.error) {
          // Its parent can be read but not searched (`chmod 644 src/gen`): git cannot enter
          // it either, so what it holds is unknown (found by the review helper).
          const key = sourceKey(input, place, d.path, true);
          if (key !== undefined) unreadableFolders.push(key);
          return false;
        }
        if (raw[at] !== RawKind.directory) return false;
        const same =
          raw[at + 2] === d.mtime_ms && raw[at + 3] === d.ctime_ms && raw[at + 4] === d.ino;
        return !same || Math.max(d.mtime_ms, d.ctime_ms) >= takenAt - RACY_WINDOW_MS;
      })
      .map((d) => d.path);
  }
  const known = new Set(repo.dirs.map((d) => d.path));
  for (const nested of repo.nested) known.add(nested);
  /** Workspace folders holding a `.git` entry (the record's, then those read below). */
  const gitFolders: string[] = [];
  const addGitFolder = (dir: string): void => {
    const folder = sourcePlace(input, place, dir, true);
    if (folder !== undefined) gitFolders.push(folder.fsPath);
  };
  for (const nested of repo.nested) addGitFolder(nested);
  /** Special files (repository paths, for `git check-ignore`) and their workspace keys. */
  const special: string[] = [];
  const specialKeys = new Map<string, string>();
  let listed = input.repos instanceof Promise ? undefined : input.repos;
  /** A folder with a `.git` entry found while `repos` was not known yet. */
  const undecided: string[] = [];
  const isListedRepo = (dir: string): boolean | undefined => {
    if (listed === undefined) return undefined;
    const fsPath = repoToWorkspace(place, dir);
    return fsPath !== undefined && listed.has(fsPath);
  };
  // Reads `start` (each folder even when it holds a `.git`), then the new folders below
  // them level by level (those with a `.git` entry only when they are not listed repositories).
  const walk = async (start: string[]): Promise<void> => {
    let level = start;
    let fresh = false;
    while (level.length > 0) {
      const newDirs: string[] = [];
      // One level's directories are read in parallel and processed in order (same output).
      const read = await mapBounded(level, WALK_CONCURRENCY, (dir) =>
        readdir(repoAbsolute(repo.toplevel, dir), { withFileTypes: true }).catch(
          (error: NodeJS.ErrnoException) => error,
        ),
      );
      for (let i = 0; i < level.length; i++) {
        const dir = level[i] as string;
        const dirents = read[i] as Dirent[] | NodeJS.ErrnoException;
        if (!Array.isArray(dirents)) {
          if (dirents.code !== "ENOENT" && dirents.code !== "ENOTDIR") {
            const key = sourceKey(input, place, dir, true);
            if (key !== undefined) unreadableFolders.push(key);
          }
          continue;
        }
        const holdsGit = dirents.some((d) => d.name === ".git");
        if (holdsGit) addGitFolder(dir);
        if (fresh && holdsGit) {
          const repoHere = isListedRepo(dir);
          if (repoHere === undefined) undecided.push(dir);
          if (repoHere !== false) continue; // a nested repository (or not known yet)
        }
        for (const dirent of dirents) {
          const child = dir === "" ? dirent.name : `${dir}/${dirent.name}`;
          if (dirent.isDirectory()) {
            if (!known.has(child) && isReadByGit(place, child)) newDirs.push(child);
          } else if (!dirent.isFile() && !dirent.isSymbolicLink()) {
            const key = sourceKey(input, place, child, false);
            if (key === undefined) continue;
            special.push(child);
            specialKeys.set(child, key);
          }
        }
      }
      const excluded = await checkIgnore(repo.toplevel, newDirs);
      level = newDirs.filter((d) => !excluded.has(d));
      for (const d of level) known.add(d);
      fresh = true;
    }
  };
  await walk(toRead);
  // Folders with a `.git` entry that the listing did not treat as repositories: git lists
  // their files with this repository's, so they are read too (every time: the ignore
  // record keeps no identity for them).
  listed = await input.repos;
  const notRepos = [...repo.nested, ...undecided].filter((dir) => isListedRepo(dir) === false);
  if (notRepos.length > 0) await walk(notRepos);
  const ignored = await checkIgnore(repo.toplevel, special);
  return {
    special: special.filter((p) => !ignored.has(p)).map((p) => specialKeys.get(p) as string),
    unreadableFolders,
    gitFolders,
  };
}

/**
 * Where the repository path `repoPath` (a folder when `isDir`) lies in the source scope:
 * its workspace on-disk path and key; undefined when it is not in the source scope: outside
 * the workspace (an ancestor of a workspace below the repository's top), the workspace root
 * itself (its listing fails instead), a harness entry, or excluded by the configured
 * `ignores`.
 */
function sourcePlace(
  input: SpecialFilesInput,
  place: IgnoreDirsInput,
  repoPath: string,
  isDir: boolean,
): { fsPath: string; key: string } | undefined {
  const fsPath = repoToWorkspace(place, repoPath);
  if (fsPath === undefined || fsPath === "") return undefined;
  if (isHarnessEntry(parentOf(fsPath), fsPath.slice(fsPath.lastIndexOf("/") + 1))) {
    return undefined;
  }
  const key = normalizeRelativePath(fsPath);
  return input.filter(key, isDir) ? undefined : { fsPath, key };
}

/** The workspace key of `repoPath` when it is in the source scope (see {@link sourcePlace}). */
function sourceKey(
  input: SpecialFilesInput,
  place: IgnoreDirsInput,
  repoPath: string,
  isDir: boolean,
): string | undefined {
  return sourcePlace(input, place, repoPath, isDir)?.key;
}
