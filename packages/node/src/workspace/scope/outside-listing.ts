import { lstatSync } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { mapBounded } from "../concurrency.js";
import { WorkspaceObserverError } from "../errors.js";
import { type GitResult, runGit } from "../listing/git.js";
import { splitNulTerminated } from "../listing/git-list.js";
import { joinRelative, type ListedPath, listedPath, type PathFilter } from "../listing/listing.js";
import { WALK_CONCURRENCY } from "../listing/walk.js";
import { isHarnessEntry } from "../paths.js";
import type { OutsideScope } from "../snapshot.js";
import { absolutePath, RACY_WINDOW_MS } from "../stat/stat-cache.js";
import { isGitObjectFile, isGitOwnEntry, isGitRefFile } from "./git-layout.js";
import type { OutputLocations } from "./output-locations.js";
import { isTurngateOwnFile, turngateLogDigest } from "./turngate-files.js";

/** A path outside the source scope to observe, with the scope it belongs to. */
export interface OutsideCandidate {
  item: ListedPath;
  scope: OutsideScope;
  /** `root/item.fsPath`, when the listing already built it (kept between observations). */
  abs?: string;
  /**
   * A `.turngate/logs/<sha256>.log`: the digest its bytes must have to be turngate's own
   * content-addressed log (then it is not recorded; see `turngateLogDigest`).
   */
  ownDigest?: string;
  /** A `.git/` ref file: git's own (not recorded) when its bytes are a ref (`isGitRefContent`). */
  gitRef?: boolean;
}

/** Reason recorded for an ignored folder that cannot be read (its files are not observed). */
export const UNREADABLE_IGNORED_FOLDER_REASON =
  "an ignored folder that turngate cannot read: the files git ignores can still change what a check does, and these cannot be observed (make it readable, or add it to ignores in the turngate config if no check reads it)";

/** What {@link listIgnoredPaths} and {@link listHarnessPaths} found. */
export interface OutsideListing {
  candidates: OutsideCandidate[];
  /** Keys that could not be listed (a directory read error, a special file in `.git/`). */
  unreadable: string[];
  /** Ignored folders among `unreadable` that could not be read (their reason: {@link UNREADABLE_IGNORED_FOLDER_REASON}). */
  unreadableFolders?: string[];
  /** Ignored folders holding a `.git` entry, with the scope of their files (see {@link listNestedGitPaths}). */
  gitFolders?: NestedGitFolder[];
}

/** A workspace folder (not the root) holding a `.git` entry, and the scope of what it records. */
export interface NestedGitFolder {
  fsPath: string;
  scope: OutsideScope;
}

/** The git arguments of {@link listIgnoredPaths}. */
export const GIT_IGNORED_ARGS: readonly string[] = Object.freeze([
  "ls-files",
  "-z",
  "--others",
  "--ignored",
  "--exclude-standard",
  "--directory",
]);

/**
 * Lists the files git ignores below the workspace directory `dirFsPath` (`""` = the root)
 * of one repository: `git ls-files -z --others --ignored --exclude-standard --directory`
 * names ignored files and whole ignored directories (`node_modules/`) without listing their
 * content; those directories are then read with `readdir({withFileTypes: true})` (no
 * symlink is followed, no `lstat` per entry; through `dirCache`, an unchanged directory is
 * not read again), skipping `.git` at any depth and the root's
 * harness directories. Each file or symlink becomes a candidate, `output` when
 * `outputs` covers it, else `ignored`. FIFOs, sockets and devices in ignored directories
 * are not observed (they are outside the source scope). Keys the configured `ignores`
 * exclude are skipped.
 *
 * `started`: the result of that git call when the caller already started it.
 * Throws {@link WorkspaceObserverError} `git_failed` when git fails.
 */
export async function listIgnoredPaths(
  root: string,
  dirFsPath: string,
  filter: PathFilter,
  outputs: OutputLocations,
  dirCache: DirListingCache = new DirListingCache(),
  started?: Promise<GitResult>,
): Promise<OutsideListing> {
  const cwd = dirFsPath === "" ? root : absolutePath(root, dirFsPath);
  let result: GitResult;
  try {
    result = await (started ?? runGit([...GIT_IGNORED_ARGS], cwd));
  } catch (error) {
    throw new WorkspaceObserverError("git_failed", `could not run git in ${cwd}: ${String(error)}`);
  }
  if (result.code !== 0) {
    throw new WorkspaceObserverError(
      "git_failed",
      `git ls-files --ignored failed in ${cwd} (exit ${result.code}): ${result.stderr}`,
    );
  }
  return listIgnoredFromNames(
    root,
    dirFsPath,
    splitNulTerminated(result.stdout),
    filter,
    outputs,
    dirCache,
  );
}

/**
 * The rest of {@link listIgnoredPaths} once the ignored names are known: `names` as `git
 * ls-files -z --others --ignored --exclude-standard --directory` prints them in
 * `root/dirFsPath` (relative to it; `dir/` for a whole ignored directory; `lossy` when the
 * bytes are not UTF-8: reported unreadable), from git or from the in-process listing
 * (`listing/native-git-list.ts`). The named directories are read as
 * {@link listIgnoredPaths} says. Output: an {@link OutsideListing}. Never throws.
 */
export async function listIgnoredFromNames(
  root: string,
  dirFsPath: string,
  names: Iterable<{ name: string; lossy: boolean }>,
  filter: PathFilter,
  outputs: OutputLocations,
  dirCache: DirListingCache = new DirListingCache(),
): Promise<OutsideListing> {
  const out: OutsideListing = { candidates: [], unreadable: [] };
  const dirs: { fsPath: string; covered: boolean }[] = [];
  const seen = new Set<string>();
  for (const { name, lossy } of names) {
    if (name === "") continue;
    const isDir = name.endsWith("/");
    const item = listedPath(joinRelative(dirFsPath, isDir ? name.slice(0, -1) : name));
    if (lossy) {
      out.unreadable.push(item.key);
      continue;
    }
    if (isHarnessPathKey(item.key) || filter(item.key, isDir)) continue;
    if (isDir) {
      dirs.push({ fsPath: item.fsPath, covered: outputs.coversDirectory(item.key) });
    } else if (!seen.has(item.key)) {
      seen.add(item.key);
      out.candidates.push({ item, scope: outputs.coversFile(item.key) ? "output" : "ignored" });
    }
  }
  // git may name a directory and also the files in it; the walk's files win (same keys).
  const walked = await walkIgnoredDirectories(root, dirs, filter, outputs, dirCache);
  for (const c of walked.candidates) if (!seen.has(c.item.key)) out.candidates.push(c);
  out.unreadable.push(...walked.unreadable);
  if (walked.unreadableFolders !== undefined) out.unreadableFolders = walked.unreadableFolders;
  if (walked.gitFolders !== undefined) out.gitFolders = walked.gitFolders;
  return out;
}

/** `lstat` identity of a directory and the entries it held then (see {@link DirListingCache}). */
interface CachedDir {
  mtime: number;
  ctime: number;
  ino: number;
  /** When the entries were read (wall-clock ms). */
  readAt: number;
  dirents: CachedDirent[];
}

/** One directory entry; `item` and `abs` are built once and reused while the directory is unchanged. */
interface CachedDirent {
  name: string;
  dir: boolean;
  entry: boolean;
  item?: ListedPath;
  abs?: string;
  /** The harness walk's decision for this entry (it depends only on the path). */
  keep?: boolean;
}

/**
 * The entries of the ignored directories read by the last observation, per on-disk path.
 * Creating, removing or renaming an entry changes a directory's mtime and ctime, so a
 * directory whose `lstat` identity is unchanged — and not racy: its mtime and ctime are older
 * than `RACY_WINDOW_MS` before the read — still holds the same names and is not read again
 * (git's untracked cache relies on the same rule). The files themselves are still `lstat`ed
 * by the caller: an in-place rewrite changes only the file.
 */
export class DirListingCache {
  readonly #dirs = new Map<string, CachedDir>();
  #seen = new Set<string>();

  /** Entries of `abs` (`readdir` withFileTypes, or the cached ones); throws readdir errors. */
  async read(abs: string): Promise<CachedDir["dirents"]> {
    this.#seen.add(abs);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(abs, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    const known = this.#dirs.get(abs);
    if (
      st !== undefined &&
      known !== undefined &&
      known.mtime === st.mtimeMs &&
      known.ctime === st.ctimeMs &&
      known.ino === st.ino &&
      Math.max(known.mtime, known.ctime) < known.readAt - RACY_WINDOW_MS
    ) {
      return known.dirents;
    }
    const readAt = Date.now();
    const dirents: CachedDirent[] = (await readdir(abs, { withFileTypes: true })).map((d) => ({
      name: d.name,
      dir: d.isDirectory(),
      entry: d.isFile() || d.isSymbolicLink(),
    }));
    if (st?.isDirectory() === true) {
      this.#dirs.set(abs, { mtime: st.mtimeMs, ctime: st.ctimeMs, ino: st.ino, readAt, dirents });
    }
    return dirents;
  }

  /** Forgets the directories not read since the last call. */
  sweep(): void {
    for (const key of this.#dirs.keys()) if (!this.#seen.has(key)) this.#dirs.delete(key);
    this.#seen = new Set();
  }
}

async function walkIgnoredDirectories(
  root: string,
  start: { fsPath: string; covered: boolean }[],
  filter: PathFilter,
  outputs: OutputLocations,
  dirCache: DirListingCache,
): Promise<OutsideListing> {
  const out: OutsideListing = { candidates: [], unreadable: [] };
  let level = start;
  while (level.length > 0) {
    const next: { fsPath: string; covered: boolean }[] = [];
    await mapBounded(level, WALK_CONCURRENCY, async (dir) => {
      let dirents: CachedDir["dirents"];
      try {
        dirents = await dirCache.read(absolutePath(root, dir.fsPath));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR") {
          const key = listedPath(dir.fsPath).key;
          out.unreadable.push(key);
          out.unreadableFolders ??= [];
          out.unreadableFolders.push(key);
        }
        return;
      }
      for (const dirent of dirents) {
        if (dirent.name === ".git") {
          // git lists nothing in it: observed like the root's .git (listNestedGitPaths).
          out.gitFolders ??= [];
          out.gitFolders.push({ fsPath: dir.fsPath, scope: dir.covered ? "output" : "ignored" });
          continue;
        }
        dirent.item ??= listedPath(`${dir.fsPath}/${dirent.name}`);
        const item = dirent.item;
        if (dirent.dir) {
          if (filter(item.key, true)) continue;
          next.push({
            fsPath: item.fsPath,
            covered: dir.covered || outputs.coversDirectory(item.key),
          });
        } else if (dirent.entry) {
          if (filter(item.key, false)) continue;
          const output = dir.covered || outputs.fileNameMatches(item.key, dirent.name);
          dirent.abs ??= absolutePath(root, item.fsPath);
          out.candidates.push({ item, scope: output ? "output" : "ignored", abs: dirent.abs });
        }
      }
    });
    level = next;
  }
  return out;
}

/**
 * Lists the harness files of the workspace root that are recorded (scope `harness`):
 * - in the root's `.git/` directory: every file except git's own layout
 *   ({@link isGitOwnEntry}: objects, refs, logs, index, HEAD, …), so `config`, `hooks/*`,
 *   (files below `refs/`, `HEAD` and `*_HEAD` but FETCH_HEAD are candidates with `gitRef`:
 *   recorded only when their bytes are not a ref, see `isGitRefContent`),
 *   `info/*` and foreign files such as `.git/x/impl.js`; a `.git` that is a file (a
 *   worktree's or submodule's `gitdir:` pointer) or symlink is recorded itself;
 * - in the root's `.turngate/`: every file turngate did not write
 *   ({@link isTurngateOwnFile}); a `logs/<sha256>.log` is a candidate carrying `ownDigest`
 *   (the observer drops it when its bytes hash to its name).
 * Symlinks are recorded, never followed. A FIFO, socket or device among the recorded paths,
 * and a directory that cannot be read, are reported unreadable. Never throws.
 */
export async function listHarnessPaths(
  root: string,
  dirCache: DirListingCache = new DirListingCache(),
): Promise<OutsideListing> {
  const out: OutsideListing = { candidates: [], unreadable: [] };
  await Promise.all([
    harnessTree(root, ".git", isRecordedInGitDir, out, dirCache, undefined, isGitRefFile),
    harnessTree(
      root,
      ".turngate",
      (rel, isDir) => isDir || !isTurngateOwnFile(rel),
      out,
      dirCache,
      turngateLogDigest,
    ),
  ]);
  return out;
}

/**
 * What of a repository's `.git/` directory is recorded (`rel`: a path inside it, `isDir`
 * for a directory: whether to descend): everything but git's own layout
 * ({@link isGitOwnEntry}); below `objects/` only names git does not use; ref files as
 * candidates whose bytes are checked (`isGitRefFile`). Pure.
 */
function isRecordedInGitDir(rel: string, isDir: boolean): boolean {
  if (rel === "objects" || rel.startsWith("objects/")) {
    return isDir || !isGitObjectFile(rel.slice("objects/".length));
  }
  if (rel === "refs" || isGitRefFile(rel)) return true; // content-checked
  if (rel.includes("/")) return true; // below a recorded top-level directory: everything
  return !isGitOwnEntry(rel, isDir);
}

/**
 * Lists what is recorded of the `.git` entry of each folder in `folders` (workspace
 * on-disk paths below the root; issue 17 review): a nested repository's `.git/` directory,
 * a junk `.git` folder (git lists the folder's files with the parent's and nothing in
 * `.git`), or a `.git` file or symlink (a worktree's or submodule's `gitdir:` pointer, or
 * any bytes), by the rules of the root's `.git/` (see {@link listHarnessPaths}), each file a
 * candidate with the folder's scope (`harness` in the source scope; `ignored` or `output`
 * inside an ignored folder). A folder whose `.git` is gone gives nothing; a `.git` that is
 * a FIFO, socket or device, and a directory in it that cannot be read, are unreadable.
 * Implements docs/design.md §3a ("the ledger holds everything the agent changed": `.git/config`,
 * hooks, files foreign to git's layout) for every `.git`, not only the root's.
 * Output: an {@link OutsideListing} (keys are workspace-relative). Never throws.
 */
export async function listNestedGitPaths(
  root: string,
  folders: readonly NestedGitFolder[],
  dirCache: DirListingCache,
): Promise<OutsideListing> {
  const out: OutsideListing = { candidates: [], unreadable: [] };
  await mapBounded([...folders], WALK_CONCURRENCY, (folder) =>
    harnessTree(
      root,
      `${folder.fsPath}/.git`,
      isRecordedInGitDir,
      out,
      dirCache,
      undefined,
      isGitRefFile,
      folder.scope,
    ),
  );
  return out;
}

/**
 * Records the files below `root/top` for which `keep(relInsideTop, isDir)` is true
 * (directories: whether to descend). `top` itself as a file or symlink is recorded.
 * `ownDigest(rel)`: the digest a file must have to be turngate's own (set on the candidate).
 * `scope`: the scope of the candidates (default `harness`).
 */
async function harnessTree(
  root: string,
  top: string,
  keep: (rel: string, isDir: boolean) => boolean,
  out: OutsideListing,
  dirCache: DirListingCache,
  ownDigest?: (rel: string) => string | undefined,
  gitRef?: (rel: string) => boolean,
  scope: OutsideScope = "harness",
): Promise<void> {
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(absolutePath(root, top));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") out.unreadable.push(top);
    return;
  }
  if (st.isFile() || st.isSymbolicLink()) {
    out.candidates.push({ item: listedPath(top), scope });
    return;
  }
  if (!st.isDirectory()) {
    out.unreadable.push(top);
    return;
  }
  let level = [""];
  while (level.length > 0) {
    const next: string[] = [];
    await mapBounded(level, WALK_CONCURRENCY, async (rel) => {
      const fsDir = rel === "" ? top : `${top}/${rel}`;
      let dirents: CachedDirent[];
      try {
        dirents = await dirCache.read(absolutePath(root, fsDir));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
          out.unreadable.push(listedPath(fsDir).key);
        }
        return;
      }
      for (const dirent of dirents) {
        if (dirent.keep === false) continue; // e.g. the 20,000 loose objects of .git/objects
        const childRel = rel === "" ? dirent.name : `${rel}/${dirent.name}`;
        dirent.keep ??= keep(childRel, dirent.dir);
        if (!dirent.keep) continue;
        if (dirent.dir) next.push(childRel);
        else if (dirent.entry) {
          const candidate: OutsideCandidate = { item: listedPath(`${top}/${childRel}`), scope };
          const digest = ownDigest?.(childRel);
          if (digest !== undefined) candidate.ownDigest = digest;
          if (gitRef?.(childRel) === true) candidate.gitRef = true;
          out.candidates.push(candidate);
        } else out.unreadable.push(listedPath(`${top}/${childRel}`).key);
      }
    });
    level = next;
  }
}

/** True for keys inside the root's harness directories or any `.git` (not recorded as ignored). */
function isHarnessPathKey(key: string): boolean {
  const slash = key.indexOf("/");
  const first = slash < 0 ? key : key.slice(0, slash);
  return isHarnessEntry("", first) || key.includes("/.git/") || key.endsWith("/.git");
}
