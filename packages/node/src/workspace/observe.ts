import type { Stats } from "node:fs";
import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { mapBounded, yieldToEventLoop } from "./concurrency.js";
import { listGitPaths } from "./git-list.js";
import { hashRegularFile, hashSymlink } from "./hash.js";
import type { ListedPath, Listing, PathFilter } from "./listing.js";
import type { NativeHasher } from "./native-hasher.js";
import type { EntryKind, EntryState, WorkspaceSnapshot } from "./snapshot.js";
import { compareCodeUnits } from "./snapshot.js";
import type { CachedEntry, StatCache, StatIdentity } from "./stat-cache.js";
import { walkPaths } from "./walk.js";

/** Files hashed at once (open/read/close in flight). */
export const HASH_CONCURRENCY = 64;
/**
 * `lstat` calls made between two event-loop yields. Stats run synchronously in batches:
 * on the target machines libuv's async `lstat` cost 3–5× more per file than `lstatSync`,
 * and the yields keep git's listing pipe drained while cached paths are pre-stat'ed.
 */
export const STAT_BATCH = 512;

/** Everything one observation needs. */
export interface ObserveContext {
  root: string;
  git: boolean;
  filter: PathFilter;
  cache: StatCache;
  nativeHasher: NativeHasher | undefined;
}

/** A snapshot plus the stat-cache contents that describe it. */
export interface Observation {
  snapshot: WorkspaceSnapshot;
  cache: Map<string, CachedEntry>;
}

type StatOutcome = Stats | "absent" | "error";

interface HashJob {
  item: ListedPath;
  kind: EntryKind;
  stat: Stats;
}

/**
 * Takes one full snapshot of the workspace (DESIGN §3; reference §2.5 with the fixes of
 * issue 3): list (git or walk), `lstat` every path, reuse cached digests whose stat is
 * unchanged and not racy, hash the rest with at most {@link HASH_CONCURRENCY} in flight.
 *
 * In git mode the cached paths are stat'ed while `git ls-files` runs, so the two overlap.
 * Missing paths (`ENOENT`/`ENOTDIR`, e.g. deleted tracked files) are absent; paths that
 * fail otherwise, special files, and keys that collide after NFC normalisation are
 * reported in `unreadable`. Throws only `WorkspaceObserverError` `git_failed` when the
 * top-level git listing fails.
 */
export async function observe(ctx: ObserveContext): Promise<Observation> {
  const takenAt = Date.now();
  const entries = new Map<string, EntryState>();
  const nextCache = new Map<string, CachedEntry>();
  const unreadable = new Set<string>();
  const owners = new Map<string, string>(); // key -> fsPath that claimed it
  const prestat = new Map<string, StatOutcome>();

  const pending = ctx.git
    ? listGitPaths(ctx.root, "", ctx.filter)
    : walkPaths(ctx.root, "", ctx.filter);
  pending.catch(() => undefined); // handled below; avoids an unhandled rejection while we stat
  if (ctx.git && ctx.cache.size > 0) {
    let n = 0;
    for (const fsPath of ctx.cache.fsPaths()) {
      prestat.set(fsPath, lstatOutcome(join(ctx.root, fsPath)));
      if (++n % STAT_BATCH === 0) await yieldToEventLoop();
    }
  }
  let listing: Listing = await pending;

  for (;;) {
    for (const key of listing.unreadable) unreadable.add(key);
    const jobs: HashJob[] = [];
    const directories = [...listing.directories];
    let n = 0;
    for (const item of listing.paths) {
      if (++n % STAT_BATCH === 0) await yieldToEventLoop();
      const owner = owners.get(item.key);
      if (owner !== undefined) {
        if (owner !== item.fsPath) unreadable.add(item.key); // two names, one NFC key
        continue;
      }
      owners.set(item.key, item.fsPath);
      const stat = prestat.get(item.fsPath) ?? lstatOutcome(join(ctx.root, item.fsPath));
      if (stat === "absent") continue;
      if (stat === "error") {
        unreadable.add(item.key);
        continue;
      }
      let kind: EntryKind;
      if (stat.isFile()) kind = "file";
      else if (stat.isSymbolicLink()) kind = "symlink";
      else if (stat.isDirectory()) {
        directories.push(item);
        continue;
      } else {
        unreadable.add(item.key); // FIFO, socket, device: no bytes to bind
        continue;
      }
      const reused = ctx.cache.reusable(item.key, kind, identityOf(stat));
      if (reused !== undefined) {
        const cached = ctx.cache.get(item.key) as CachedEntry;
        entries.set(item.key, reused);
        nextCache.set(
          item.key,
          cached.fs_path === item.fsPath ? cached : { ...cached, fs_path: item.fsPath },
        );
      } else {
        jobs.push({ item, kind, stat });
      }
    }
    await hashJobs(ctx, jobs, takenAt, entries, nextCache, unreadable);
    if (directories.length === 0) break;
    listing = await expandDirectories(ctx, directories);
  }

  for (const key of unreadable) {
    entries.delete(key);
    nextCache.delete(key);
  }
  const snapshot: WorkspaceSnapshot = {
    root: ctx.root,
    taken_at_ms: takenAt,
    git: ctx.git,
    entries,
    unreadable: [...unreadable].sort(compareCodeUnits),
  };
  return { snapshot, cache: nextCache };
}

function lstatOutcome(absPath: string): StatOutcome {
  try {
    return lstatSync(absPath, { throwIfNoEntry: false }) ?? "absent";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOTDIR" ? "absent" : "error";
  }
}

function identityOf(stat: Stats): StatIdentity {
  return {
    size: stat.size,
    mtime_ms: stat.mtimeMs,
    ctime_ms: stat.ctimeMs,
    ino: stat.ino,
    mode: stat.mode,
  };
}

async function hashJobs(
  ctx: ObserveContext,
  jobs: HashJob[],
  takenAt: number,
  entries: Map<string, EntryState>,
  nextCache: Map<string, CachedEntry>,
  unreadable: Set<string>,
): Promise<void> {
  const record = (job: HashJob, digest: string, stat: Stats): void => {
    const state: EntryState = { kind: job.kind, content_digest: digest, ...identityOf(stat) };
    entries.set(job.item.key, state);
    nextCache.set(job.item.key, { state, hashed_at_ms: takenAt, fs_path: job.item.fsPath });
  };
  const fail = (job: HashJob, error: unknown): void => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") unreadable.add(job.item.key);
  };

  let tsJobs = jobs;
  if (ctx.nativeHasher !== undefined) {
    const files = jobs.filter((job) => job.kind === "file");
    tsJobs = jobs.filter((job) => job.kind !== "file");
    if (files.length > 0) {
      const results = await ctx.nativeHasher.hashFiles(
        files.map((job) => join(ctx.root, job.item.fsPath)),
      );
      files.forEach((job, i) => {
        const result = results[i];
        if (typeof result === "string") record(job, result, job.stat);
        else fail(job, result ?? new Error("native hasher returned no result"));
      });
    }
  }
  await mapBounded(tsJobs, HASH_CONCURRENCY, async (job) => {
    const absPath = join(ctx.root, job.item.fsPath);
    try {
      if (job.kind === "symlink") record(job, await hashSymlink(absPath), job.stat);
      else {
        const hashed = await hashRegularFile(absPath);
        record(job, hashed.digest, hashed.stat);
      }
    } catch (error) {
      fail(job, error);
    }
  });
}

async function expandDirectories(ctx: ObserveContext, dirs: ListedPath[]): Promise<Listing> {
  const merged: Listing = { paths: [], directories: [], unreadable: [] };
  for (const dir of dirs) {
    let part: Listing;
    if (ctx.git && existsSync(join(ctx.root, dir.fsPath, ".git"))) {
      try {
        part = await listGitPaths(ctx.root, dir.fsPath, ctx.filter);
      } catch {
        part = { paths: [], directories: [], unreadable: [dir.key] };
      }
    } else {
      part = await walkPaths(ctx.root, dir.fsPath, ctx.filter);
    }
    for (const item of part.paths) merged.paths.push(item);
    for (const item of part.directories) merged.directories.push(item);
    for (const key of part.unreadable) merged.unreadable.push(key);
  }
  return merged;
}
