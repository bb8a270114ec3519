import { type ListedPath, listedPath, type PathFilter } from "../listing/listing.js";
import { isWithin } from "../listing/repo-paths.js";
import type { EntryState, WorkspaceSnapshot } from "../snapshot.js";
import { absolutePath, type CachedEntry, type StatCache } from "../stat/stat-cache.js";
import type { StatService } from "../stat/stat-service.js";
import { BaselineRules } from "./baseline-rules.js";
import { type HiddenListing, listNewlyHidden } from "./hidden-paths.js";
import { readExcludesConfig } from "./ignore-config.js";
import type { IgnoreState, RepoIgnoreState } from "./ignore-state.js";
import { ignoreRulesChanged } from "./ignore-trigger.js";

/** Path reported unreadable when the baseline carries no ignore-rule state. */
export const NO_IGNORE_STATE_PATH = ".";

/** Reason given with {@link NO_IGNORE_STATE_PATH}. */
export const NO_IGNORE_STATE_REASON =
  "the baseline has no record of the ignore rules, so files hidden by rules changed since cannot be ruled out";

/** Input of {@link IgnoreGuard}. */
export interface IgnoreGuardInput {
  root: string;
  filter: PathFilter;
  stats: StatService;
  /** The git-mode baseline the current observation is compared with. */
  baseline: WorkspaceSnapshot;
}

/**
 * Keeps a git-mode observation honest when ignore rules change during a turn (docs/design.md §3:
 * the effect digest must bind every byte the turn changed).
 *
 * 1. {@link IgnoreGuard.missingBaselineEntries}: baseline entries the listing no longer produced are
 *    stat'ed again, so a file that became ignored (or untracked and ignored) is reported by
 *    its bytes — unchanged or modified — and as deleted only when it is gone.
 * 2. {@link next}: each listed repository's rules are compared with the baseline's
 *    ({@link ignoreRulesChanged}; cheap when nothing changed); where they differ, or for a
 *    repository the baseline did not have, the paths hidden now but shown by the baseline's
 *    rules are listed ({@link listNewlyHidden}) so they become added/modified rows with
 *    real digests. Call `next` until it returns undefined (new repositories can appear in
 *    what it lists), then `dispose()`.
 */
export class IgnoreGuard {
  readonly #input: IgnoreGuardInput;
  readonly #state: IgnoreState | undefined;
  readonly #byDir = new Map<string, RepoIgnoreState>();
  readonly #rules: BaselineRules[];
  readonly #checked = new Set<string>();
  readonly #expanded = new Set<string>();
  #reportedMissingState = false;

  constructor(input: IgnoreGuardInput) {
    this.#input = input;
    this.#state = input.baseline.ignore_state;
    for (const repo of this.#state?.repos ?? []) this.#byDir.set(repo.dir, repo);
    this.#rules = [...this.#byDir.values()]
      .sort((a, b) => b.dir.length - a.dir.length)
      .map((repo) => new BaselineRules(repo));
  }

  /**
   * Baseline entry paths the current observation has not produced yet, with their on-disk
   * names from the stat cache — to be stat'ed (and hashed) like listed paths.
   *
   * Cheap: a baseline path is either in the stat cache — and then missing exactly when its
   * record was not seen in this epoch — or was already missing from the previous observation
   * against this baseline (the cache dropped it then) and is in `gone`. `records`: the
   * cache's records as listed at the start of this observation, if any (see
   * `StatCache.unseenKeys`). Call before the
   * cache is swept, and pass the result to {@link IgnoreGuard.updateGone} afterwards.
   * Never throws.
   */
  missingBaselineEntries(
    cache: StatCache,
    gone: ReadonlySet<string>,
    records?: readonly CachedEntry[],
  ): ListedPath[] {
    const baseline = this.#input.baseline.entries;
    const missing: ListedPath[] = [];
    for (const key of cache.unseenKeys(records)) {
      if (baseline.has(key) && !gone.has(key))
        missing.push(listedPath(cache.get(key)?.fs_path ?? key));
    }
    for (const key of gone) missing.push(listedPath(cache.get(key)?.fs_path ?? key));
    return missing;
  }

  /**
   * Rewrites `gone` after an observation: the paths of `missing` (from
   * {@link missingBaselineEntries}) it still has no entry for, and every baseline path it
   * found unreadable — the stat cache drops both, so the next observation must look for them
   * again. Call after the last `next()`. Never throws.
   */
  updateGone(
    gone: Set<string>,
    missing: readonly ListedPath[],
    entries: ReadonlyMap<string, EntryState>,
    unreadable: ReadonlySet<string>,
  ): void {
    gone.clear();
    for (const item of missing) if (!entries.has(item.key)) gone.add(item.key);
    const baseline = this.#input.baseline.entries;
    for (const key of unreadable) if (baseline.has(key)) gone.add(key);
  }

  /**
   * Checks the repositories in `listed` (workspace directories, `""` = root) not checked yet
   * and returns what must be observed in addition, or undefined when nothing is left.
   * Throws {@link WorkspaceObserverError} `git_failed` when the root repository's ignored
   * listing fails.
   */
  async next(
    listed: ReadonlySet<string>,
    entries: ReadonlyMap<string, EntryState>,
  ): Promise<HiddenListing | undefined> {
    const state = this.#state;
    const out: HiddenListing = { paths: [], directories: [], unreadable: [], reasons: new Map() };
    if (state === undefined) {
      if (this.#reportedMissingState) return undefined;
      this.#reportedMissingState = true;
      out.unreadable.push(NO_IGNORE_STATE_PATH);
      out.reasons.set(NO_IGNORE_STATE_PATH, NO_IGNORE_STATE_REASON);
      return out;
    }
    const triggered: string[] = [];
    let checkedAny = false;
    for (const dir of listed) {
      if (this.#checked.has(dir)) continue;
      this.#checked.add(dir);
      checkedAny = true;
      if (state.unrecorded.includes(dir)) {
        out.unreadable.push(dir);
        out.reasons.set(dir, "the baseline could not record this repository's ignore rules");
        continue;
      }
      const repo = this.#byDir.get(dir);
      if (repo === undefined || (await this.#changed(repo, entries)) !== undefined) {
        triggered.push(dir);
      }
    }
    if (!checkedAny) {
      // A baseline repository that is no longer listed: its files now fall under the rules
      // of the repository around it.
      for (const repo of state.repos) {
        if (listed.has(repo.dir)) continue;
        const around = deepestListed(listed, repo.dir);
        if (around !== undefined) triggered.push(around);
      }
    }
    let any = out.unreadable.length > 0;
    for (const dir of triggered) {
      if (this.#expanded.has(dir)) continue;
      this.#expanded.add(dir);
      any = true;
      let part: HiddenListing;
      try {
        part = await listNewlyHidden(this.#hiddenInput(entries), dir);
      } catch (error) {
        if (dir === "") throw error;
        out.unreadable.push(dir);
        out.reasons.set(dir, `could not list what this repository ignores: ${String(error)}`);
        continue;
      }
      out.paths.push(...part.paths);
      out.directories.push(...part.directories);
      out.unreadable.push(...part.unreadable);
      for (const [key, reason] of part.reasons) out.reasons.set(key, reason);
    }
    return any || checkedAny ? out : undefined;
  }

  /** Removes temporary repositories made to evaluate baseline rules. Never throws. */
  dispose(): void {
    for (const rules of this.#rules) rules.dispose();
  }

  #changed(
    repo: RepoIgnoreState,
    entries: ReadonlyMap<string, EntryState>,
  ): Promise<string | undefined> {
    const { root } = this.#input;
    return ignoreRulesChanged({
      state: repo,
      takenAtMs: (this.#state as IgnoreState).taken_at_ms,
      entries,
      config: () => readExcludesConfig(repo.dir === "" ? root : absolutePath(root, repo.dir)),
      stats: this.#input.stats,
      filter: this.#input.filter,
    });
  }

  #hiddenInput(entries: ReadonlyMap<string, EntryState>): Parameters<typeof listNewlyHidden>[0] {
    const unrecorded = (this.#state as IgnoreState).unrecorded;
    return {
      root: this.#input.root,
      filter: this.#input.filter,
      baselineEntries: this.#input.baseline.entries,
      current: entries,
      rulesFor: (fsPath) => {
        const rules = this.#rules.find((r) => isWithin(r.state.dir, fsPath));
        const depth = rules?.state.dir.length ?? -1;
        const lost = unrecorded.some((d) => d.length > depth && isWithin(d, fsPath));
        return lost ? undefined : rules;
      },
    };
  }
}

function deepestListed(listed: ReadonlySet<string>, dir: string): string | undefined {
  let best: string | undefined;
  for (const candidate of listed) {
    if (candidate !== dir && isWithin(candidate, dir)) {
      if (best === undefined || candidate.length > best.length) best = candidate;
    }
  }
  return best;
}
