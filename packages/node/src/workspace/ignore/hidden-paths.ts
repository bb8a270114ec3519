import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { joinRelative, type Listing, listedPath, type PathFilter } from "../listing/listing.js";
import { repoToWorkspace, workspaceToRepo } from "../listing/repo-paths.js";
import { isHarnessPath, normalizeRelativePath } from "../paths.js";
import type { EntryState } from "../snapshot.js";
import { absolutePath } from "../stat/stat-cache.js";
import type { BaselineRules } from "./baseline-rules.js";
import { readRepoLayout } from "./ignore-config.js";
import { listIgnored } from "./ignored-status.js";

/** Input of {@link listNewlyHidden}. */
export interface HiddenPathsInput {
  root: string;
  filter: PathFilter;
  /** The baseline's entries: those paths are re-observed elsewhere, never listed here. */
  baselineEntries: ReadonlyMap<string, EntryState>;
  /** The current observation's entries (already observed). */
  current: ReadonlyMap<string, EntryState>;
  /** The baseline rules that governed a workspace path: its deepest baseline repository. */
  rulesFor(fsPath: string): BaselineRules | undefined;
}

/** A {@link Listing} plus why paths in its `unreadable` could not be decided. */
export interface HiddenListing extends Listing {
  reasons: Map<string, string>;
}

interface Candidate {
  fsPath: string;
  key: string;
  isDir: boolean;
  rules: BaselineRules;
  repoPath: string;
}

/**
 * Lists what the repository at workspace directory `repoDir` hides now but the baseline's
 * rules showed: every path `git status --ignored=matching` reports, unless it is a baseline
 * entry (re-observed by the caller), harness, excluded by the configured ignores, covered by
 * the baseline's own ignored listing, or ignored by the baseline's rules (asked of git, see
 * {@link BaselineRules}). An ignored directory the old rules showed is read entry by entry
 * the same way; one that now holds `.git` is returned in `directories` (it is listed as a
 * repository). So a file created during the turn and hidden by a rule changed during the
 * turn is returned, and one the old rules hid as well is not.
 *
 * Paths that cannot be decided (undecodable names, unreadable directories, no baseline
 * rules, git failures) go to `unreadable` with a reason. Throws
 * {@link WorkspaceObserverError} `git_failed` only when listing the repository fails.
 */
export async function listNewlyHidden(
  input: HiddenPathsInput,
  repoDir: string,
): Promise<HiddenListing> {
  const out: HiddenListing = { paths: [], directories: [], unreadable: [], reasons: new Map() };
  const cwd = repoDir === "" ? input.root : absolutePath(input.root, repoDir);
  const [layout, listing] = await Promise.all([readRepoLayout(cwd), listIgnored(cwd)]);
  const place = { dir: repoDir, prefix: layout.prefix };
  const fail = (fsPath: string, reason: string): void => {
    const key = normalizeRelativePath(fsPath);
    out.unreadable.push(key);
    out.reasons.set(key, reason);
  };
  for (const name of listing.lossy) {
    fail(repoToWorkspace(place, name.replace(/\/$/, "")) ?? name, "name is not valid UTF-8");
  }
  let level: Candidate[] = [];
  for (const name of listing.ignored) {
    const isDir = name.endsWith("/");
    const fsPath = repoToWorkspace(place, isDir ? name.slice(0, -1) : name);
    if (fsPath === undefined || fsPath === repoDir) continue;
    const candidate = consider(input, fsPath, isDir, fail);
    if (candidate !== undefined) level.push(candidate);
  }
  while (level.length > 0) {
    const visible = await shownByBaseline(level, fail);
    level = [];
    for (const item of visible) {
      if (!item.isDir) {
        out.paths.push(listedPath(item.fsPath));
        continue;
      }
      let dirents: Dirent[];
      try {
        dirents = await readdir(absolutePath(input.root, item.fsPath), { withFileTypes: true });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR") fail(item.fsPath, "cannot read directory");
        continue;
      }
      if (dirents.some((d) => d.name === ".git")) {
        out.directories.push(listedPath(item.fsPath));
        continue;
      }
      for (const dirent of dirents) {
        const fsPath = joinRelative(item.fsPath, dirent.name);
        const candidate = consider(input, fsPath, dirent.isDirectory(), fail);
        if (candidate !== undefined) level.push(candidate);
      }
    }
  }
  return out;
}

function consider(
  input: HiddenPathsInput,
  fsPath: string,
  isDir: boolean,
  fail: (fsPath: string, reason: string) => void,
): Candidate | undefined {
  const key = normalizeRelativePath(fsPath);
  if (isHarnessPath(key) || input.filter(key, isDir)) return undefined;
  if (!isDir && (input.baselineEntries.has(key) || input.current.has(key))) return undefined;
  const rules = input.rulesFor(fsPath);
  if (rules === undefined) {
    fail(fsPath, "the baseline recorded no ignore rules for this repository");
    return undefined;
  }
  const repoPath = workspaceToRepo(rules.state, fsPath);
  if (rules.listedAsIgnored(repoPath, isDir)) return undefined;
  return { fsPath, key, isDir, rules, repoPath };
}

/** The candidates the baseline's rules did not ignore (one git call per repository). */
async function shownByBaseline(
  level: Candidate[],
  fail: (fsPath: string, reason: string) => void,
): Promise<Candidate[]> {
  const byRules = new Map<BaselineRules, Candidate[]>();
  for (const item of level) {
    const group = byRules.get(item.rules);
    if (group === undefined) byRules.set(item.rules, [item]);
    else group.push(item);
  }
  const shown: Candidate[] = [];
  for (const [rules, group] of byRules) {
    const asked = group.map((c) => (c.isDir ? `${c.repoPath}/` : c.repoPath));
    let ignored: Set<string>;
    try {
      ignored = await rules.ignored(asked);
    } catch (error) {
      const reason = `could not evaluate the baseline's ignore rules: ${String(error)}`;
      for (const item of group) fail(item.fsPath, reason);
      continue;
    }
    group.forEach((item, i) => {
      if (!ignored.has(asked[i] as string)) shown.push(item);
    });
  }
  return shown;
}
