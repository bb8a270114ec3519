import { WorkspaceObserverError } from "../errors.js";
import { filterOverrides, runGit } from "../listing/git.js";
import { splitNulTerminated } from "../listing/git-list.js";

/** What git ignores below one listed directory. */
export interface IgnoredListing {
  /** Repository-relative paths (from the top of the work tree); directories end in `/`. */
  ignored: string[];
  /** Repository-relative paths whose names are not valid UTF-8 (lossily decoded). */
  lossy: string[];
}

/**
 * Lists the ignored paths below `cwd` with
 * `git status --porcelain -z --ignored=matching --untracked-files=normal -- .`: a file is
 * listed when an ignore pattern matches it, a directory (ending in `/`) when a pattern
 * matches the directory itself — everything below it is then ignored and not listed. A
 * directory whose files are all ignored without the directory matching is not collapsed
 * (git documents this for `matching`; `ls-files --ignored --directory` is less precise).
 *
 * Every configured content filter is switched off for the call ({@link filterOverrides}).
 *
 * Throws {@link WorkspaceObserverError} `git_failed` if git cannot run or fails.
 */
export async function listIgnored(cwd: string): Promise<IgnoredListing> {
  const args = [
    "status",
    "--porcelain",
    "-z",
    "--ignored=matching",
    "--untracked-files=normal",
    "--no-renames",
    "--ignore-submodules=all",
    "--",
    ".",
  ];
  let result: Awaited<ReturnType<typeof runGit>>;
  try {
    // status re-reads tracked files whose stat changed: no clean filter may run then.
    result = await runGit([...(await filterOverrides(cwd)), ...args], cwd);
  } catch (error) {
    throw new WorkspaceObserverError("git_failed", `could not run git in ${cwd}: ${String(error)}`);
  }
  if (result.code !== 0) {
    throw new WorkspaceObserverError(
      "git_failed",
      `git status failed in ${cwd} (exit ${result.code}): ${result.stderr}`,
    );
  }
  const listing: IgnoredListing = { ignored: [], lossy: [] };
  for (const { name, lossy } of splitNulTerminated(result.stdout)) {
    if (!name.startsWith("!! ")) continue;
    (lossy ? listing.lossy : listing.ignored).push(name.slice(3));
  }
  return listing;
}
