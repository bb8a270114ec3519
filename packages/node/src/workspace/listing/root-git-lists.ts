import type { NativeAddon } from "../../native/select.js";
import type { OutputLocations } from "../scope/output-locations.js";
import {
  type DirListingCache,
  GIT_IGNORED_ARGS,
  listIgnoredFromNames,
  listIgnoredPaths,
  type OutsideListing,
} from "../scope/outside-listing.js";
import { runGitPair } from "./git.js";
import { GIT_LIST_ARGS, listGitPaths } from "./git-list.js";
import type { Listing, PathFilter } from "./listing.js";
import {
  isNativeGitFallback,
  type NativeGitListFallback,
  nativeGitLists,
} from "./native-git-list.js";

/** What {@link rootGitLists} needs of the observation. */
export interface RootGitListsInput {
  root: string;
  filter: PathFilter;
  outputs: OutputLocations;
  outsideDirs: DirListingCache;
  /** `@turngate/native`: list in-process; undefined: list with git. */
  native?: NativeAddon | undefined;
}

/** The root repository's two listings, each awaited where the observer needs it. */
export interface RootGitLists {
  /** The source listing (`listGitPaths`' result for the root). */
  listing: Promise<Listing>;
  /** The ignored files (`listIgnoredPaths`' result for the root). */
  ignored: Promise<OutsideListing>;
  /**
   * Resolves to why the addon left the repository to git (its fallback code and the
   * sentence for the turn's notes), or undefined when the listing was in-process or the
   * observer has no addon. Never rejects.
   */
  fallback: Promise<NativeGitListFallback | undefined>;
}

/**
 * The root repository's source listing and ignored files for one observation (issue 33
 * deliverable 1; docs/design.md §3a "Scope"): with the addon, one in-process `gitListing`
 * call (gitoxide reads the index, the configuration and the ignore rules; no process is
 * started); without it, or where the addon leaves the repository to git (its fallback
 * matrix: a sparse index whose trees are missing, `core.ignoreCase`, a `GIT_DIR` in the
 * environment, …), `git ls-files` twice from one shell (`runGitPair`), and `fallback` says
 * why. Both paths give the same listing: `packages/node/test/workspace/native-git-list.test.ts`
 * compares them with git over random trees.
 *
 * Errors (in the promises): `WorkspaceObserverError` `git_failed` when git runs and fails;
 * the in-process path never rejects (its failures are fallbacks).
 */
export function rootGitLists(input: RootGitListsInput): RootGitLists {
  const { root, filter, outputs, outsideDirs, native } = input;
  const fromGit = (): Omit<RootGitLists, "fallback"> => {
    const pair = runGitPair([...GIT_LIST_ARGS], [...GIT_IGNORED_ARGS], root);
    return {
      listing: listGitPaths(root, "", filter, pair[0]),
      ignored: listIgnoredPaths(root, "", filter, outputs, outsideDirs, pair[1]),
    };
  };
  if (native === undefined) {
    return { ...fromGit(), fallback: Promise.resolve(undefined) };
  }
  const inProcess = nativeGitLists(native, root, "", filter);
  let git: Omit<RootGitLists, "fallback"> | undefined;
  const orGit = () => {
    git ??= fromGit();
    return git;
  };
  return {
    listing: inProcess.then((lists) =>
      isNativeGitFallback(lists) ? orGit().listing : lists.listing,
    ),
    ignored: inProcess.then((lists) =>
      isNativeGitFallback(lists)
        ? orGit().ignored
        : listIgnoredFromNames(root, "", lists.ignored, filter, outputs, outsideDirs),
    ),
    fallback: inProcess.then((lists) => (isNativeGitFallback(lists) ? lists : undefined)),
  };
}
