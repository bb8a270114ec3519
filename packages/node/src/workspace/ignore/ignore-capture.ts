import type { PathFilter } from "../listing/listing.js";
import { compareCodeUnits as compare } from "../snapshot.js";
import { absolutePath } from "../stat/stat-cache.js";
import { configFilesOf, fingerprintConfigFiles } from "./config-files.js";
import {
  gitEntryIdentity,
  readExcludesConfig,
  readIgnoreSource,
  readRepoLayout,
} from "./ignore-config.js";
import { walkIgnoreDirs } from "./ignore-dirs.js";
import type { ConfigFile, IgnoreSource, IgnoreState, RepoIgnoreState } from "./ignore-state.js";
import { listIgnored } from "./ignored-status.js";

/**
 * Records the ignore rules of every repository a baseline listed (`repos`: workspace-relative
 * directories, `""` = the root's repository) — see {@link RepoIgnoreState}. A nested
 * repository whose rules cannot be read goes to `unrecorded`.
 *
 * Throws {@link WorkspaceObserverError} `git_failed` when the root's repository fails.
 */
export async function captureIgnoreState(
  root: string,
  repos: Iterable<string>,
  filter: PathFilter,
): Promise<IgnoreState> {
  const takenAt = Date.now(); // before any directory is stat'ed (see IgnoreState.taken_at_ms)
  const state: IgnoreState = { taken_at_ms: takenAt, repos: [], unrecorded: [] };
  const dirs = [...repos].sort();
  const results = await Promise.allSettled(
    dirs.map((dir) => captureRepoIgnoreState(root, dir, filter)),
  );
  results.forEach((result, i) => {
    const dir = dirs[i] as string;
    if (result.status === "fulfilled") state.repos.push(result.value);
    else if (dir === "") throw result.reason;
    else state.unrecorded.push(dir);
  });
  return state;
}

/**
 * Records the ignore rules of the repository listed at workspace directory `dir`: its
 * layout, `core.excludesFile`/`core.ignoreCase`, `info/exclude`, the excludes file, what it
 * ignores, and the directories and `.gitignore` files git reads there.
 *
 * Throws {@link WorkspaceObserverError} `git_failed` when one of the git queries fails.
 */
async function captureRepoIgnoreState(
  root: string,
  dir: string,
  filter: PathFilter,
): Promise<RepoIgnoreState> {
  const cwd = dir === "" ? root : absolutePath(root, dir);
  const listed = listIgnored(cwd);
  listed.catch(() => undefined); // awaited below
  const layout = await readRepoLayout(cwd);
  // Fingerprint the config files before reading the settings: a change in between then
  // shows as a changed fingerprint later, never as a stale value behind a clean one.
  let configFiles: ConfigFile[] | null;
  try {
    configFiles = fingerprintConfigFiles(await configFilesOf(cwd, layout));
  } catch {
    configFiles = null;
  }
  const config = await readExcludesConfig(cwd);
  const listing = await listed;
  const ignored = new Set(listing.ignored);
  const sources: IgnoreSource[] = [
    readIgnoreSource("info_exclude", layout.infoExclude, layout.infoExclude),
  ];
  if (config.excludesFile !== null) {
    sources.push(readIgnoreSource("excludes_file", config.excludesFile, config.excludesFile));
  }
  const walked = await walkIgnoreDirs({
    dir,
    prefix: layout.prefix,
    toplevel: layout.toplevel,
    ignored,
    filter,
  });
  return {
    dir,
    toplevel: layout.toplevel,
    prefix: layout.prefix,
    git_entry: gitEntryIdentity(layout.toplevel),
    excludes_file: config.excludesFile,
    ignore_case: config.ignoreCase,
    config_files: configFiles,
    sources: [...sources, ...walked.gitignores.sort((a, b) => compare(a.path, b.path))],
    ignored: [...ignored].sort(compare),
    dirs: walked.dirs.sort((a, b) => compare(a.path, b.path)),
    nested: walked.nested.sort(compare),
  };
}
