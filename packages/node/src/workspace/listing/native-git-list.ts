import type { NativeAddon, NativeGitListing } from "../../native/select.js";
import { addGitName, splitNulTerminated } from "./git-list.js";
import type { Listing, PathFilter } from "./listing.js";

/** An ignored name as `git ls-files -z --others --ignored --exclude-standard --directory` prints it. */
export interface GitName {
  /** Relative to the listed directory; `dir/` for a whole ignored directory. */
  name: string;
  /** The bytes are not UTF-8 (decoded with replacement characters). */
  lossy: boolean;
}

/** What {@link nativeGitLists} read for one repository. */
export interface NativeGitLists {
  /** What {@link listGitPaths} returns for the same arguments (same order, same keys). */
  listing: Listing;
  /**
   * The ignored names, for `listIgnoredFromNames` (`scope/outside-listing.ts`): what
   * `listIgnoredPaths` gets from git, in byte order.
   */
  ignored: GitName[];
  /** The addon's result as it came: the tracked entries' modes, flags, ids and index stats. */
  native: NativeGitListing;
}

/**
 * Why {@link nativeGitLists} left the repository to git: a code of the addon's fallback
 * matrix (`packages/native/src/git_listing.rs`), or `addon` when the call itself failed;
 * `reason` is the sentence for the turn's notes. The caller runs git and records it.
 */
export interface NativeGitListFallback {
  fallback: string;
  reason: string;
}

/** True when {@link nativeGitLists} left the repository to git. */
export function isNativeGitFallback(
  result: NativeGitLists | NativeGitListFallback,
): result is NativeGitListFallback {
  return "fallback" in result;
}

/**
 * {@link listGitPaths} and the names `listIgnoredPaths` asks git for, read in-process by
 * `@turngate/native`'s `gitListing` (issue 33 deliverable 1; docs/design.md §2 "git index /
 * ignore rules read in-process", §3a "Scope") for the repository git finds from
 * `root/dirFsPath` (`""` for the root): one call instead of `git ls-files -z -t --cached
 * --others --exclude-standard` and `git ls-files -z --others --ignored --exclude-standard
 * --directory`. The {@link Listing} is built by the same rule as `listGitPaths`
 * (`addGitName`: untracked names first, then the index's, as git prints them; harness paths
 * and keys `isIgnored` excludes dropped; non-UTF-8 names unreadable; untracked nested
 * repositories in `directories`).
 *
 * Output: {@link NativeGitLists}, or a {@link NativeGitListFallback} when the addon leaves
 * the repository to git (a sparse directory whose tree is missing, `core.ignoreCase`, a
 * `GIT_DIR` in the environment, …) or its call fails (`addon`): then run git and record
 * the reason. Never throws.
 */
export async function nativeGitLists(
  addon: NativeAddon,
  root: string,
  dirFsPath: string,
  isIgnored: PathFilter,
): Promise<NativeGitLists | NativeGitListFallback> {
  let native: Awaited<ReturnType<NativeAddon["gitListing"]>>;
  try {
    native = await addon.gitListing(root, { dir: dirFsPath });
  } catch (error) {
    return {
      fallback: "addon",
      reason: `the in-process git listing failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if ("fallback" in native) return { fallback: native.fallback, reason: native.reason };
  const listing: Listing = { paths: [], directories: [], unreadable: [], untracked: [] };
  for (const { name, lossy } of splitNulTerminated(native.untracked.names)) {
    if (name !== "") addGitName(listing, dirFsPath, name, lossy, true, isIgnored);
  }
  for (const { name, lossy } of splitNulTerminated(native.tracked.names)) {
    if (name !== "") addGitName(listing, dirFsPath, name, lossy, false, isIgnored);
  }
  const ignored: GitName[] = [];
  for (const item of splitNulTerminated(native.ignored.names)) {
    if (item.name !== "") ignored.push(item);
  }
  return { listing, ignored, native };
}
