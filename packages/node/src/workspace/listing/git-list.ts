import { isUtf8 } from "node:buffer";
import { join } from "node:path";
import { WorkspaceObserverError } from "../errors.js";
import { isHarnessPath } from "../paths.js";
import { type GitResult, runGit } from "./git.js";
import { joinRelative, type Listing, listedPath, type PathFilter } from "./listing.js";

/** The git arguments of {@link listGitPaths}. */
export const GIT_LIST_ARGS: readonly string[] = Object.freeze([
  "ls-files",
  "-z",
  "-t",
  "--cached",
  "--others",
  "--exclude-standard",
]);

/**
 * Lists the files git would consider part of the work tree under `root/dirFsPath`:
 * tracked files plus untracked files that `.gitignore`, `.git/info/exclude` and the global
 * excludes file do not ignore (`git ls-files -z -t --cached --others --exclude-standard`;
 * `-t` tags untracked names with `?`, so they are also returned in `untracked`: only they
 * can lie at an output location).
 *
 * Input: the workspace root, the relative on-disk directory to list (`""` for the root),
 * and the configured-ignores filter. Output: a {@link Listing} whose keys are relative to
 * `root`; harness paths and filtered keys are dropped; duplicate index stages collapse;
 * untracked nested repositories (`dir/`) are returned as `directories`. Names that are not
 * valid UTF-8 are reported as unreadable (lossily decoded).
 * `started`: the result of that git call when the caller already started it (see
 * `runGitPair`).
 * Throws {@link WorkspaceObserverError} `git_failed` if git exits non-zero or cannot run.
 */
export async function listGitPaths(
  root: string,
  dirFsPath: string,
  isIgnored: PathFilter,
  started?: Promise<GitResult>,
): Promise<Listing> {
  const cwd = dirFsPath === "" ? root : join(root, dirFsPath);
  let result: GitResult;
  try {
    result = await (started ?? runGit([...GIT_LIST_ARGS], cwd));
  } catch (error) {
    throw new WorkspaceObserverError("git_failed", `could not run git in ${cwd}: ${String(error)}`);
  }
  if (result.code !== 0) {
    throw new WorkspaceObserverError(
      "git_failed",
      `git ls-files failed in ${cwd} (exit ${result.code}): ${result.stderr}`,
    );
  }
  const listing: Listing = { paths: [], directories: [], unreadable: [], untracked: [] };
  let previous = "";
  for (const { name: tagged, lossy } of splitNulTerminated(result.stdout)) {
    // "<tag> <name>": H tracked, S skip-worktree, M unmerged, ? untracked, …
    const name = tagged.slice(2);
    // Unmerged paths appear once per stage, always next to each other.
    if (name === "" || name === previous) continue;
    previous = name;
    addGitName(listing, dirFsPath, name, lossy, tagged.charCodeAt(0) === 0x3f, isIgnored); // "?"
  }
  return listing;
}

/**
 * Adds one name of a git listing of `dirFsPath` to `listing`, by the rules of
 * {@link listGitPaths}: `name` as git prints it (relative to `dirFsPath`, a trailing `/` for
 * a directory: a nested repository), `lossy` when its bytes are not UTF-8 (then reported
 * unreadable), `untracked` for a name git does not track (also kept in
 * `listing.untracked`). Harness paths and keys `isIgnored` excludes are dropped. Shared with
 * the in-process listing (`native-git-list.ts`), so both build the same {@link Listing}.
 */
export function addGitName(
  listing: Listing,
  dirFsPath: string,
  name: string,
  lossy: boolean,
  untracked: boolean,
  isIgnored: PathFilter,
): void {
  const isDir = name.endsWith("/");
  const item = listedPath(joinRelative(dirFsPath, isDir ? name.slice(0, -1) : name));
  if (isHarnessPath(item.key) || isIgnored(item.key, isDir)) return;
  if (lossy) listing.unreadable.push(item.key);
  else if (isDir) listing.directories.push(item);
  else {
    listing.paths.push(item);
    if (untracked) listing.untracked?.push(item.key);
  }
}

/**
 * Splits git's `-z` output into names, decoding each as UTF-8; `lossy` marks a name whose
 * bytes are not valid UTF-8 (decoded with replacement characters).
 */
export function* splitNulTerminated(bytes: Buffer): Generator<{ name: string; lossy: boolean }> {
  if (isUtf8(bytes)) {
    for (const name of bytes.toString("utf8").split("\0")) yield { name, lossy: false };
    return;
  }
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0) {
      const part = bytes.subarray(start, i);
      yield { name: part.toString("utf8"), lossy: !isUtf8(part) };
      start = i + 1;
    }
  }
}
