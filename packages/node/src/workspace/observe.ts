import type { Stats } from "node:fs";
import { existsSync, opendirSync } from "node:fs";
import type { NativeAddon } from "../native/select.js";
import { mapBounded, yieldToEventLoop } from "./concurrency.js";
import { hashRegularFile, hashRegularFileSync, hashSymlink } from "./hash/hash.js";
import type { NativeHasher } from "./hash/native-hasher.js";
import { captureIgnoreState } from "./ignore/ignore-capture.js";
import { IgnoreGuard } from "./ignore/ignore-guard.js";
import type { IgnoreState } from "./ignore/ignore-state.js";
import { listGitPaths } from "./listing/git-list.js";
import type { ListedPath, Listing, PathFilter } from "./listing/listing.js";
import { nativeWalkPaths } from "./listing/native-walk.js";
import { ParentDirCheck } from "./listing/parent-dirs.js";
import { rootGitLists } from "./listing/root-git-lists.js";
import { walkPaths } from "./listing/walk.js";
import { observeOutside } from "./scope/observe-outside.js";
import type { OutputLocations } from "./scope/output-locations.js";
import { type DirListingCache, listHarnessPaths } from "./scope/outside-listing.js";
import {
  findSpecialFiles,
  SPECIAL_FILE_REASON,
  type SpecialFilesResult,
  UNREADABLE_FOLDER_REASON,
} from "./scope/special-files.js";
import type { EntryKind, EntryState, OutsideEntry, WorkspaceSnapshot } from "./snapshot.js";
import { compareCodeUnits } from "./snapshot.js";
import { lstatInto, RAW_STAT_FIELDS, RawKind } from "./stat/raw-stat.js";
import { absolutePath, type CachedEntry, canReuse, type StatCache } from "./stat/stat-cache.js";
import type { StatService } from "./stat/stat-service.js";

/** Large files hashed at once (open/read/close in flight). */
export const HASH_CONCURRENCY = 64;
/**
 * Files up to this size (bytes) are hashed synchronously: for a 4 KiB file the async
 * open/fstat/read/close round trips cost 5–7× more than the work (measured).
 */
export const SMALL_FILE_BYTES = 256 * 1024;
/** Bytes hashed synchronously (plus 4 KiB per file) before yielding to the event loop. */
export const SYNC_HASH_BYTES_PER_TURN = 8 * 1024 * 1024;

/** Everything one observation needs. */
export interface ObserveContext {
  root: string;
  git: boolean;
  filter: PathFilter;
  cache: StatCache;
  stats: StatService;
  nativeHasher: NativeHasher | undefined;
  /** `@turngate/native` for the walk (issue 17), or undefined for the TypeScript walk. */
  native?: NativeAddon | undefined;
  /** Git mode: the baseline this observation will be compared with; turns on the
   * ignore-rule guard ({@link IgnoreGuard}). */
  baseline?: WorkspaceSnapshot | undefined;
  /** With `baseline`: the baseline paths the previous observation against it did not find
   * (the stat cache dropped them); updated in place. Empty right after a baseline is set. */
  baselineGone?: Set<string>;
  /** Git mode: record the ignore rules in the snapshot's `ignore_state` (for `baseline()`). */
  recordIgnoreState?: boolean;
  /** Output locations (issue 10): untracked files there are outside the source scope. */
  outputs: OutputLocations;
  /** The stat cache of the outside entries (`WorkspaceSnapshot.outside`). */
  outsideCache: StatCache;
  /** false for a baseline: ignored/output files met for the first time may be stat-only. */
  hashNewOutside: boolean;
  /** Entries of ignored directories, kept between observations. */
  outsideDirs: DirListingCache;
}

interface HashJob {
  item: ListedPath;
  kind: EntryKind;
  identity: Omit<EntryState, "kind" | "content_digest">;
}

/** Mutable state of one snapshot in progress. */
interface Run {
  ctx: ObserveContext;
  takenAt: number;
  entries: Map<string, EntryState>;
  unreadable: Set<string>;
  owners: Map<string, string>;
  jobs: HashJob[];
  directories: ListedPath[];
  /** Workspace directories listed with their own git (`""` = the root's repository). */
  repos: Set<string>;
  reasons: Map<string, string>;
  /** The stat of every cached path taken at the start (git mode, warm cache), and the
   * cache records it belongs to (in the same order). */
  prestat: Float64Array | undefined;
  prestatRecords: CachedEntry[] | undefined;
  epoch: number;
  parents: ParentDirCheck | undefined;
  /** Git mode: listed keys git does not track (only they can be at an output location). */
  untracked: Set<string>;
  /** Workspace folders (not the root) of the source scope holding a `.git` entry. */
  gitFolders: Set<string>;
  /** Git mode against a baseline: keys the ignore-rule guard added (git did not list them). */
  unlistedByGit: string[] | undefined;
}

/**
 * Takes one full snapshot of the workspace (docs/design.md §3; reference §2.5 with the fixes of
 * issue 3): list (git or walk), `lstat` every path, reuse cached digests whose stat is
 * unchanged and not racy, hash the rest with at most {@link HASH_CONCURRENCY} in flight,
 * and update the stat cache in place.
 *
 * In git mode with a warm cache, the cached paths are stat'ed while `git ls-files` runs.
 * Missing paths (`ENOENT`/`ENOTDIR`, e.g. deleted tracked files) are absent; paths that
 * fail otherwise, special files, and keys that collide after NFC normalisation are
 * reported in `unreadable`.
 *
 * Git mode with `ctx.baseline`: after the listing, the {@link IgnoreGuard} adds the
 * baseline entries the listing no longer produced (a file that became ignored is reported
 * by its bytes, not as deleted) and, where a repository's ignore rules changed since the
 * baseline, the files they hide that the baseline's rules showed (so they are observed
 * with real digests). With `ctx.recordIgnoreState` the snapshot gets `ignore_state`.
 *
 * Issue 10: untracked entries at output locations move to `outside` (scope `output`); the
 * ignored files and the recorded harness files are observed into `outside` too
 * (`observeOutside`); FIFOs, sockets and devices of the source scope that git does not list
 * are found in the directories changed since the baseline (`findSpecialFiles`; all of them
 * for a baseline) and reported unreadable with {@link SPECIAL_FILE_REASON}.
 *
 * Throws only `WorkspaceObserverError` `git_failed` when a git query of the root's
 * repository fails.
 */
export async function observe(ctx: ObserveContext): Promise<WorkspaceSnapshot> {
  const { cache } = ctx;
  const run: Run = {
    ctx,
    takenAt: Date.now(),
    entries: new Map(),
    unreadable: new Set(),
    owners: new Map(),
    jobs: [],
    directories: [],
    repos: new Set(ctx.git ? [""] : []),
    reasons: new Map(),
    prestat: undefined,
    prestatRecords: undefined,
    epoch: ++cache.epoch,
    // Git lists index paths that may now sit below a symlink; a walk never descends into one.
    parents: ctx.git ? new ParentDirCheck(ctx.root) : undefined,
    untracked: new Set(),
    gitFolders: new Set(),
    unlistedByGit: undefined,
  };
  const guard =
    ctx.git && ctx.baseline !== undefined
      ? new IgnoreGuard({
          root: ctx.root,
          filter: ctx.filter,
          stats: ctx.stats,
          baseline: ctx.baseline,
        })
      : undefined;
  // The root's ignored files are listed alongside the source listing: in-process with the
  // addon (one gitoxide call), else both git calls from one spawned shell; a failure
  // surfaces where each is awaited.
  const lists = ctx.git ? rootGitLists(ctx) : undefined;
  const rootIgnored = lists?.ignored;
  rootIgnored?.catch(() => undefined);
  // The root's harness files (`.git/`, `.turngate/`) are listed alongside too; only their
  // `lstat`s wait for the outside scope's turn.
  const harness = listHarnessPaths(ctx.root, ctx.outsideDirs);
  // A baseline records the root repository's ignore rules (git queries, reads and directory
  // stats: mostly waiting on subprocesses) while the workspace is listed and hashed, not
  // after it; nested repositories, known only once listed, are recorded after the listing.
  // An earlier `taken_at_ms` is only more conservative (see IgnoreState.taken_at_ms).
  const rootIgnoreState =
    ctx.git && ctx.recordIgnoreState === true
      ? captureIgnoreState(ctx.root, [""], ctx.filter)
      : undefined;
  rootIgnoreState?.catch(() => undefined); // awaited below; no unhandled rejection meanwhile
  // The baseline's scan for special files in the root's repository starts as soon as its
  // record is known and reads its directories while the listing is hashed; which folders
  // are nested repositories it learns from `repos`, resolved once the listing is done.
  let reposListed: (repos: ReadonlySet<string>) => void = () => undefined;
  const repos = new Promise<ReadonlySet<string>>((resolve) => {
    reposListed = resolve;
  });
  const rootSpecials = rootIgnoreState?.then((state) =>
    findSpecialFiles({ state, filter: ctx.filter, stats: ctx.stats, all: true, repos }),
  );
  rootSpecials?.catch(() => undefined); // awaited below; no unhandled rejection meanwhile
  try {
    const pending = lists ? lists.listing : walk(ctx, "");
    pending.catch(() => undefined); // awaited below; no unhandled rejection meanwhile
    if (ctx.git && cache.size > 0) {
      const records = cache.records();
      run.prestatRecords = records;
      run.prestat = await ctx.stats.statAll(cache.absPaths());
      for (let i = 0; i < records.length; i++) {
        const record = records[i] as (typeof records)[number];
        record.slot = i;
        record.slot_epoch = run.epoch;
      }
    }
    await drain(run, await pending);
    if (guard !== undefined) {
      const gone = ctx.baselineGone ?? new Set<string>();
      const missing = guard.missingBaselineEntries(cache, gone, run.prestatRecords);
      run.unlistedByGit = missing.map((item) => item.key);
      // Paths the guard brings back are never tracked (git lists every tracked path), so
      // they too may lie at an output location (e.g. `.pytest_cache/` hidden by the
      // `.gitignore` pytest writes into it).
      const untracked = (paths: readonly ListedPath[]) => paths.map((item) => item.key);
      if (missing.length > 0) {
        await drain(run, {
          paths: missing,
          directories: [],
          unreadable: [],
          untracked: untracked(missing),
        });
      }
      for (;;) {
        const more = await guard.next(run.repos, run.entries);
        if (more === undefined) break;
        for (const [key, reason] of more.reasons) run.reasons.set(key, reason);
        for (const item of more.paths) run.unlistedByGit.push(item.key);
        for (const item of more.directories) run.unlistedByGit.push(`${item.key}/`);
        await drain(run, { ...more, untracked: untracked(more.paths) });
      }
      guard.updateGone(gone, missing, run.entries, run.unreadable);
    }
    const state = ctx.baseline?.ignore_state;
    if (ctx.git && state !== undefined) {
      const specials = await findSpecialFiles({
        state,
        filter: ctx.filter,
        stats: ctx.stats,
        all: false,
        repos: run.repos,
      });
      markScanned(run, specials);
      for (const folder of specials.gitFolders) run.gitFolders.add(folder);
      // Repositories the listing found that the baseline's record does not know (made
      // during the turn: `git init src/n`, `git worktree add`, a junk `.git` that became a
      // repository) have no record to compare with: they are recorded now and read whole
      // (found by the review helper: their FIFOs and unreadable folders went unreported).
      const recorded = new Set([...state.repos.map((repo) => repo.dir), ...state.unrecorded]);
      const newRepos = [...run.repos].filter((dir) => dir !== "" && !recorded.has(dir));
      if (newRepos.length > 0) {
        const record = await captureIgnoreState(ctx.root, newRepos, ctx.filter);
        const found = await findSpecialFiles({
          state: record,
          filter: ctx.filter,
          stats: ctx.stats,
          all: true,
          repos: run.repos,
        });
        markScanned(run, found);
        for (const folder of found.gitFolders) run.gitFolders.add(folder);
      }
      // Special files and unreadable folders the baseline found stay reported while they
      // are (their directory may not have changed since, so the scan above does not read it).
      for (const [key, reason] of Object.entries(ctx.baseline?.unreadable_reasons ?? {})) {
        if (run.unreadable.has(key)) continue;
        if (reason === SPECIAL_FILE_REASON) {
          // A path that can no longer be reached (`EACCES` on a parent) stays reported.
          const kind = rawKindOf(absolutePath(ctx.root, key));
          if (kind === RawKind.special || kind === RawKind.error) markSpecial(run, key);
        } else if (reason === UNREADABLE_FOLDER_REASON && isUnreadableFolder(ctx.root, key)) {
          markUnreadable(run, key, UNREADABLE_FOLDER_REASON);
        }
      }
    }
  } finally {
    guard?.dispose();
    reposListed(run.repos);
  }

  // The nested repositories' rules are recorded while the outside scope is observed, and
  // their scan for special files starts as soon as their record is known.
  const ignoreState =
    rootIgnoreState === undefined ? undefined : withNestedRepos(ctx, rootIgnoreState, run.repos);
  const allSpecials =
    ignoreState === undefined || rootSpecials === undefined
      ? undefined
      : ignoreState.then(async (state) => {
          const nested = { ...state, repos: state.repos.filter((repo) => repo.dir !== "") };
          // After the root's (started early, usually done): its failure fails the baseline,
          // and the nested scans then do not start.
          const root = await rootSpecials;
          if (nested.repos.length === 0) return root;
          const more = await findSpecialFiles({
            state: nested,
            filter: ctx.filter,
            stats: ctx.stats,
            all: true,
            repos: run.repos,
          });
          return {
            special: [...root.special, ...more.special].sort(),
            unreadableFolders: [...root.unreadableFolders, ...more.unreadableFolders].sort(),
            gitFolders: [...root.gitFolders, ...more.gitFolders].sort(),
          };
        });
  allSpecials?.catch(() => undefined); // awaited below; no unhandled rejection meanwhile
  // Every `.git` entry below the root is observed like the root's (git lists nothing in
  // it): nested repositories and the folders the scan found holding one (a baseline's
  // scan runs alongside; usually done by the time the outside scope is observed).
  for (const dir of run.repos) if (dir !== "") run.gitFolders.add(dir);
  const gitFolders =
    allSpecials === undefined
      ? [...run.gitFolders].sort()
      : allSpecials.then((found) => [...new Set([...found.gitFolders, ...run.gitFolders])].sort());
  const outside = new Map<string, OutsideEntry>();
  moveOutputs(run, outside);
  ctx.outsideCache.epoch++;
  await observeOutside({
    root: ctx.root,
    git: ctx.git,
    filter: ctx.filter,
    outputs: ctx.outputs,
    stats: ctx.stats,
    cache: ctx.outsideCache,
    hashNew: ctx.hashNewOutside,
    takenAt: run.takenAt,
    repos: run.repos,
    entries: run.entries,
    unreadable: run.unreadable,
    reasons: run.reasons,
    outside,
    dirCache: ctx.outsideDirs,
    rootIgnored,
    harness,
    gitFolders,
  });

  for (const key of run.unreadable) {
    run.entries.delete(key);
    cache.delete(key);
    if (outside.delete(key)) ctx.outsideCache.delete(key);
  }
  cache.sweep();
  const snapshot: WorkspaceSnapshot = {
    root: ctx.root,
    taken_at_ms: run.takenAt,
    git: ctx.git,
    entries: run.entries,
    outside,
    unreadable: [...run.unreadable].sort(compareCodeUnits),
  };
  if (run.reasons.size > 0) snapshot.unreadable_reasons = Object.fromEntries(run.reasons);
  const fallback = await lists?.fallback;
  if (fallback !== undefined) snapshot.listed_by_git = fallback.reason;
  if (run.unlistedByGit !== undefined) {
    // Deleted files the guard looked for again are not part of it: the delta has them.
    snapshot.unlisted_by_git = run.unlistedByGit.filter(
      (key) => key.endsWith("/") || run.entries.has(key) || outside.has(key),
    );
  }
  if (ignoreState !== undefined && allSpecials !== undefined) {
    snapshot.ignore_state = await ignoreState;
    const specials = await allSpecials;
    if (specials.special.length > 0 || specials.unreadableFolders.length > 0) {
      markScanned(run, specials);
      for (const key of specials.special) {
        run.entries.delete(key);
        outside.delete(key);
      }
      snapshot.unreadable = [...run.unreadable].sort(compareCodeUnits);
      snapshot.unreadable_reasons = Object.fromEntries(run.reasons);
    }
  }
  return snapshot;
}

/**
 * The baseline's ignore record: the root repository's (`root`, started before the listing)
 * with the nested repositories of `repos` the listing found added in `captureIgnoreState`'s
 * order (by directory, the root's `""` first); `taken_at_ms` is the root record's, the
 * earlier of the two. Throws what `captureIgnoreState` throws for the root's repository.
 */
async function withNestedRepos(
  ctx: ObserveContext,
  root: Promise<IgnoreState>,
  repos: ReadonlySet<string>,
): Promise<IgnoreState> {
  const nested = [...repos].filter((dir) => dir !== "");
  const rest = nested.length > 0 ? captureIgnoreState(ctx.root, nested, ctx.filter) : undefined;
  rest?.catch(() => undefined); // awaited below
  const state = await root;
  if (rest === undefined) return state;
  const more = await rest;
  return {
    taken_at_ms: Math.min(state.taken_at_ms, more.taken_at_ms),
    repos: [...state.repos, ...more.repos],
    unrecorded: [...state.unrecorded, ...more.unrecorded],
  };
}

/** Records a special file of the source scope as unreadable, with its reason. */
function markSpecial(run: Run, key: string): void {
  markUnreadable(run, key, SPECIAL_FILE_REASON);
}

/** Records `key` as unreadable with `reason`. */
function markUnreadable(run: Run, key: string, reason: string): void {
  run.unreadable.add(key);
  run.reasons.set(key, reason);
}

/** Records what the special-file scan found: special files and unreadable folders. */
function markScanned(run: Run, found: SpecialFilesResult): void {
  for (const key of found.special) markSpecial(run, key);
  for (const key of found.unreadableFolders) markUnreadable(run, key, UNREADABLE_FOLDER_REASON);
}

/** The {@link RawKind} of `abs` (`lstat`, not followed), as {@link lstatInto} classifies it. */
function rawKindOf(abs: string): number {
  const out = new Float64Array(RAW_STAT_FIELDS);
  lstatInto([abs], 0, 1, out, 0);
  return out[0] as number;
}

/**
 * True when `root/key` is a folder (not followed) that cannot be opened for reading, or
 * cannot be reached at all (a parent lost its search permission: its content is unknown).
 */
function isUnreadableFolder(root: string, key: string): boolean {
  const abs = absolutePath(root, key);
  const kind = rawKindOf(abs);
  if (kind === RawKind.error) return true;
  if (kind !== RawKind.directory) return false;
  try {
    opendirSync(abs).closeSync();
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== "ENOENT" && code !== "ENOTDIR";
  }
}

/**
 * Moves the source entries at output locations to `outside` (scope `output`, hashed): in
 * git mode only untracked ones (an output location never covers a tracked file), in walk
 * mode any (nothing is tracked).
 */
function moveOutputs(run: Run, outside: Map<string, OutsideEntry>): void {
  const { outputs } = run.ctx;
  if (outputs.empty) return;
  const keys = run.ctx.git ? run.untracked : [...run.entries.keys()];
  for (const key of keys) {
    const state = run.entries.get(key);
    if (state === undefined || !outputs.coversFile(key)) continue;
    outside.set(key, { ...state, scope: "output", hashed: true });
    run.entries.delete(key);
  }
}

/**
 * Stats, classifies and hashes `listing` into `run`, then lists and processes the
 * directories it found (nested repositories, paths that turned out to be directories)
 * until none are left.
 */
async function drain(run: Run, first: Listing): Promise<void> {
  const { ctx } = run;
  const { cache } = ctx;
  let listing = first;
  for (;;) {
    for (const key of listing.unreadable) run.unreadable.add(key);
    for (const key of listing.untracked ?? []) run.untracked.add(key);
    for (const dir of listing.directories) run.directories.push(dir);
    const deferred: ListedPath[] = [];
    for (const item of listing.paths) {
      if (!claim(run, item)) continue;
      if (run.parents !== undefined && !run.parents.parentsAreDirectories(item.fsPath)) continue;
      const record = cache.get(item.key);
      if (
        run.prestat !== undefined &&
        record !== undefined &&
        record.slot_epoch === run.epoch &&
        record.fs_path === item.fsPath
      ) {
        classify(run, item, record, run.prestat, record.slot * RAW_STAT_FIELDS);
      } else {
        // Its place in listing order is kept while it is stat'ed ({@link classify}).
        run.entries.set(item.key, PENDING);
        deferred.push(item);
      }
    }
    if (deferred.length > 0) {
      const raw = await ctx.stats.statAll(deferred.map((d) => absolutePath(ctx.root, d.fsPath)));
      for (let i = 0; i < deferred.length; i++) {
        const item = deferred[i] as ListedPath;
        classify(run, item, cache.get(item.key), raw, i * RAW_STAT_FIELDS);
      }
    }
    await hashJobs(run);
    if (run.directories.length === 0) return;
    const dirs = run.directories.splice(0);
    listing = await expandDirectories(run, dirs);
  }
}

/**
 * Records that `item.fsPath` owns `item.key`. False for a repeat of the same path; a second
 * on-disk name for the same NFC key marks the key unreadable (which name is meant is
 * ambiguous).
 */
function claim(run: Run, item: ListedPath): boolean {
  if (item.plain) return true; // listings never repeat a path; only non-ASCII keys can collide
  const owner = run.owners.get(item.key);
  if (owner === undefined) {
    run.owners.set(item.key, item.fsPath);
    return true;
  }
  if (owner !== item.fsPath) run.unreadable.add(item.key);
  return false;
}

function classify(
  run: Run,
  item: ListedPath,
  record: CachedEntry | undefined,
  raw: Float64Array,
  at: number,
): void {
  const code = raw[at];
  let kind: EntryKind;
  if (code === RawKind.file) kind = "file";
  else if (code === RawKind.symlink) kind = "symlink";
  else {
    run.entries.delete(item.key); // the place a deferred path held
    if (code === RawKind.absent) return;
    if (code === RawKind.directory) run.directories.push(item);
    else run.unreadable.add(item.key); // stat error, or a FIFO/socket/device: no bytes to bind
    return;
  }
  const size = raw[at + 1] as number;
  const mtime = raw[at + 2] as number;
  const ctime = raw[at + 3] as number;
  const ino = raw[at + 4] as number;
  const mode = raw[at + 5] as number;
  if (
    record !== undefined &&
    record.fs_path === item.fsPath &&
    canReuse(record, kind, size, mtime, ctime, ino, mode)
  ) {
    record.seen = run.ctx.cache.epoch;
    run.entries.set(item.key, record.state);
    return;
  }
  // The entry's place is taken now, in listing order, and filled when it is hashed: a
  // snapshot lists its entries in the same order turn after turn, whichever changed (the
  // clean room's proof then finds each record at its entry's index).
  run.entries.set(item.key, PENDING);
  run.jobs.push({
    item,
    kind,
    identity: { size, mtime_ms: mtime, ctime_ms: ctime, ino, mode },
  });
}

/** The place of an entry being hashed ({@link classify}); never left in a snapshot. */
const PENDING: EntryState = Object.freeze({
  kind: "file",
  content_digest: "",
  size: 0,
  mtime_ms: 0,
  ctime_ms: 0,
  ino: 0,
  mode: 0,
});

/**
 * Hash the run's pending jobs into `run.entries` (each at the place {@link classify} kept).
 * Whatever happens, no place is left pending: a job neither recorded nor failed (or every
 * job, when hashing throws) gives its place up.
 */
async function hashJobs(run: Run): Promise<void> {
  const jobs = run.jobs.splice(0);
  try {
    await hashEach(run, jobs);
  } finally {
    for (const job of jobs) {
      if (run.entries.get(job.item.key) === PENDING) run.entries.delete(job.item.key);
    }
  }
}

async function hashEach(run: Run, jobs: HashJob[]): Promise<void> {
  const { ctx } = run;
  const record = (job: HashJob, digest: string, identity: HashJob["identity"]): void => {
    const state: EntryState = { kind: job.kind, content_digest: digest, ...identity };
    run.entries.set(job.item.key, state);
    ctx.cache.store(job.item.key, job.item.fsPath, state, run.takenAt);
  };
  const fail = (job: HashJob, error: unknown): void => {
    run.entries.delete(job.item.key);
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code !== "ENOENT" && code !== "ENOTDIR") run.unreadable.add(job.item.key);
  };

  let tsJobs = jobs;
  if (ctx.nativeHasher !== undefined) {
    const files = jobs.filter((job) => job.kind === "file");
    tsJobs = jobs.filter((job) => job.kind !== "file");
    if (files.length > 0) {
      const results = await ctx.nativeHasher.hashFiles(
        files.map((job) => absolutePath(ctx.root, job.item.fsPath)),
      );
      files.forEach((job, i) => {
        const result = results[i];
        if (typeof result === "string") record(job, result, job.identity);
        else if (result instanceof Error || result === undefined || result === null) {
          fail(job, result ?? new Error("native hasher returned no result"));
        } else if (result.kind !== "file") {
          // The file became a symlink after the lstat: the TypeScript path's O_NOFOLLOW
          // open fails (ELOOP) there, so the path is unreadable on both paths.
          fail(job, Object.assign(new Error("became a symlink"), { code: "ELOOP" }));
        } else {
          const { size, mtime_ms, ctime_ms, ino, mode } = result;
          record(job, result.digest, { size, mtime_ms, ctime_ms, ino, mode });
        }
      });
    }
  }
  const identityOf = (stat: Stats): HashJob["identity"] => ({
    size: stat.size,
    mtime_ms: stat.mtimeMs,
    ctime_ms: stat.ctimeMs,
    ino: stat.ino,
    mode: stat.mode,
  });
  // Symlinks and small files synchronously, in batches between event-loop yields; large
  // files streamed asynchronously, at most HASH_CONCURRENCY at once.
  const large: HashJob[] = [];
  let buffer: Buffer | undefined;
  let sinceYield = 0;
  for (const job of tsJobs) {
    if (job.kind === "file" && job.identity.size > SMALL_FILE_BYTES) {
      large.push(job);
      continue;
    }
    const absPath = absolutePath(ctx.root, job.item.fsPath);
    try {
      if (job.kind === "symlink") record(job, hashSymlink(absPath), job.identity);
      else {
        buffer ??= Buffer.allocUnsafe(SMALL_FILE_BYTES);
        const { digest, stat } = hashRegularFileSync(absPath, buffer);
        record(job, digest, identityOf(stat));
      }
    } catch (error) {
      fail(job, error);
    }
    sinceYield += job.identity.size + 4096;
    if (sinceYield >= SYNC_HASH_BYTES_PER_TURN) {
      sinceYield = 0;
      await yieldToEventLoop();
    }
  }
  await mapBounded(large, HASH_CONCURRENCY, async (job) => {
    try {
      const { digest, stat } = await hashRegularFile(absolutePath(ctx.root, job.item.fsPath));
      record(job, digest, identityOf(stat));
    } catch (error) {
      fail(job, error);
    }
  });
}

/** The walk of `root/dirFsPath`: on the addon when the observer has it, else in TypeScript. */
function walk(ctx: ObserveContext, dirFsPath: string): Promise<Listing> {
  const fallback = () => walkPaths(ctx.root, dirFsPath, ctx.filter);
  return ctx.native === undefined
    ? fallback()
    : nativeWalkPaths(ctx.native, ctx.root, dirFsPath, ctx.filter, fallback);
}

async function expandDirectories(run: Run, dirs: ListedPath[]): Promise<Listing> {
  const { ctx } = run;
  const merged: Listing = { paths: [], directories: [], unreadable: [], untracked: [] };
  for (const dir of dirs) {
    let part: Listing;
    if (ctx.git && existsSync(absolutePath(ctx.root, `${dir.fsPath}/.git`))) {
      try {
        part = await listGitPaths(ctx.root, dir.fsPath, ctx.filter);
        run.repos.add(dir.fsPath);
      } catch {
        part = { paths: [], directories: [], unreadable: [dir.key] };
      }
    } else {
      part = await walk(ctx, dir.fsPath);
      part.untracked = part.paths.map((item) => item.key); // below an untracked directory
    }
    for (const item of part.paths) merged.paths.push(item);
    for (const item of part.directories) merged.directories.push(item);
    for (const key of part.unreadable) merged.unreadable.push(key);
    for (const key of part.untracked ?? []) merged.untracked?.push(key);
  }
  return merged;
}
