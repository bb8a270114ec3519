import { readFileSync, type Stats } from "node:fs";
import { mapBounded } from "../concurrency.js";
import { hashRegularFile, hashRegularFileSync, hashSymlink } from "../hash/hash.js";
import type { ListedPath, PathFilter } from "../listing/listing.js";
import type { EntryKind, EntryState, OutsideEntry, OutsideScope } from "../snapshot.js";
import { RAW_STAT_FIELDS, RawKind } from "../stat/raw-stat.js";
import { absolutePath, canReuse, isRacy, type StatCache } from "../stat/stat-cache.js";
import type { StatService } from "../stat/stat-service.js";
import { isGitRefContent } from "./git-layout.js";
import type { OutputLocations } from "./output-locations.js";
import {
  type DirListingCache,
  listHarnessPaths,
  listIgnoredPaths,
  listNestedGitPaths,
  type OutsideCandidate,
  type OutsideListing,
  UNREADABLE_IGNORED_FOLDER_REASON,
} from "./outside-listing.js";

/** Large outside files hashed at once. */
const HASH_CONCURRENCY = 16;
/** Outside files up to this size (bytes) are hashed synchronously. */
const SMALL_FILE_BYTES = 256 * 1024;

/** Everything {@link observeOutside} needs. */
export interface OutsideContext {
  root: string;
  git: boolean;
  filter: PathFilter;
  outputs: OutputLocations;
  stats: StatService;
  /** The stat cache of outside entries (separate from the source scope's). */
  cache: StatCache;
  /**
   * false for a baseline: an ignored or output file met for the first time whose stat is
   * not racy is recorded stat-only (`hashed: false`). true afterwards: every file that is
   * new or whose stat changed is hashed.
   */
  hashNew: boolean;
  /** Wall-clock ms taken before anything was listed (racy rule, cache timestamps). */
  takenAt: number;
  /** Workspace directories listed with their own git (`""` = the root's repository). */
  repos: ReadonlySet<string>;
  /** The source entries of this observation: an outside listing never repeats one. */
  entries: ReadonlyMap<string, EntryState>;
  /** Keys already found unreadable; receives the outside listing's unreadable keys. */
  unreadable: Set<string>;
  /** Receives the reason of each unreadable ignored folder (see `OutsideListing.unreadableFolders`). */
  reasons?: Map<string, string>;
  /** Outside entries already decided (untracked files at output locations). */
  outside: Map<string, OutsideEntry>;
  /** Entries of ignored directories, kept between observations. */
  dirCache: DirListingCache;
  /** The root repository's ignored listing, when the caller started it early (it runs
   * alongside the source listing); otherwise it is started here. */
  rootIgnored?: Promise<OutsideListing> | undefined;
  /** The harness listing (`listHarnessPaths` with `dirCache`), when the caller started it
   * early (it runs alongside the source listing); otherwise it is started here. */
  harness?: Promise<OutsideListing> | undefined;
  /**
   * Folders of the source scope (workspace on-disk paths, not the root) holding a `.git`
   * entry, or a promise of them: their `.git` is observed with scope `harness`
   * (`listNestedGitPaths`). The ignored folders holding one come from the ignored listings.
   */
  gitFolders?: Promise<readonly string[]> | readonly string[] | undefined;
}

interface Job {
  item: ListedPath;
  scope: OutsideScope;
  kind: EntryKind;
  identity: Omit<EntryState, "kind" | "content_digest">;
  ownDigest: string | undefined;
  gitRef: boolean;
}

/** Cached states of `.git/` ref files whose bytes were a ref (git's own: never a row). */
const VALID_REFS = new WeakSet<object>();

/** True when a `.turngate/logs/<sha256>.log` regular file's bytes hash to its name. */
function isOwnLog(ownDigest: string | undefined, kind: EntryKind, digest: string): boolean {
  return ownDigest !== undefined && kind === "file" && digest === ownDigest;
}

/**
 * Observes the paths outside the source scope (issue 10; see `OutsideEntry`): the files
 * git ignores in every listed repository (git mode), the recorded harness files of the
 * root's `.git/` and `.turngate/` and of every other `.git` entry (`ctx.gitFolders` and
 * those in ignored folders, by the root `.git/`'s rules; docs/design.md §3a), each `lstat`ed in
 * one batch and compared with the outside stat cache. An unchanged, non-racy stat reuses the cached state; a file met for
 * the first time in a baseline is recorded stat-only unless it is a harness file or racy;
 * everything else is hashed (SHA-256 of the bytes, of the link text for a symlink). A
 * `.turngate/logs/<sha256>.log` regular file whose bytes hash to its name is turngate's own
 * log and left out (its state stays in the cache, so an unchanged log is not read again).
 * Entries go to `ctx.outside`; keys in `ctx.entries` or already in `ctx.outside` are
 * skipped. Directories, vanished paths and (outside `.git/`) special files are skipped.
 *
 * Throws {@link WorkspaceObserverError} `git_failed` when the root repository's ignored
 * listing fails; a nested repository's failure marks its directory unreadable.
 */
export async function observeOutside(ctx: OutsideContext): Promise<void> {
  const { root } = ctx;
  const lists = [ctx.harness ?? listHarnessPaths(root, ctx.dirCache)];
  if (ctx.git) {
    for (const dir of ctx.repos) {
      const part =
        dir === "" && ctx.rootIgnored !== undefined
          ? ctx.rootIgnored
          : listIgnoredPaths(root, dir, ctx.filter, ctx.outputs, ctx.dirCache);
      lists.push(dir === "" ? part : part.catch(() => ({ candidates: [], unreadable: [dir] })));
    }
  }
  const sourceGit = Promise.resolve(ctx.gitFolders ?? []).then((folders) =>
    listNestedGitPaths(
      root,
      folders.map((fsPath) => ({ fsPath, scope: "harness" as const })),
      ctx.dirCache,
    ),
  );
  lists.push(sourceGit);
  const listings = await Promise.all(lists);
  // Ignored folders holding a `.git` entry (walked above) have it observed in their scope.
  const ignoredGit = listings.flatMap((listing) => listing.gitFolders ?? []);
  if (ignoredGit.length > 0) {
    listings.push(await listNestedGitPaths(root, ignoredGit, ctx.dirCache));
  }
  const candidates: OutsideCandidate[] = [];
  for (const listing of listings) {
    for (const key of listing.unreadable) ctx.unreadable.add(key);
    for (const key of listing.unreadableFolders ?? []) {
      ctx.reasons?.set(key, UNREADABLE_IGNORED_FOLDER_REASON);
    }
    for (const c of listing.candidates) {
      const key = c.item.key;
      if (ctx.entries.has(key) || ctx.outside.has(key) || ctx.unreadable.has(key)) continue;
      candidates.push(c);
    }
  }
  const raw = await ctx.stats.statAll(
    candidates.map((c) => c.abs ?? absolutePath(root, c.item.fsPath)),
  );
  const jobs: Job[] = [];
  const { cache } = ctx;
  for (let i = 0; i < candidates.length; i++) {
    const { item, scope, ownDigest, gitRef } = candidates[i] as OutsideCandidate;
    const at = i * RAW_STAT_FIELDS;
    const code = raw[at];
    let kind: EntryKind;
    if (code === RawKind.file) kind = "file";
    else if (code === RawKind.symlink) kind = "symlink";
    else {
      if (code === RawKind.error || (code === RawKind.special && scope === "harness")) {
        ctx.unreadable.add(item.key);
      }
      continue;
    }
    const size = raw[at + 1] as number;
    const mtime = raw[at + 2] as number;
    const ctime = raw[at + 3] as number;
    const ino = raw[at + 4] as number;
    const mode = raw[at + 5] as number;
    const record = cache.get(item.key);
    if (
      record !== undefined &&
      record.fs_path === item.fsPath &&
      canReuse(record, kind, size, mtime, ctime, ino, mode)
    ) {
      record.seen = cache.epoch;
      const state = record.state as OutsideEntry;
      if (isOwnLog(ownDigest, kind, state.content_digest) || VALID_REFS.has(state)) continue;
      ctx.outside.set(item.key, state.scope === scope ? state : { ...state, scope });
      continue;
    }
    const identity = { size, mtime_ms: mtime, ctime_ms: ctime, ino, mode };
    if (
      !ctx.hashNew &&
      record === undefined &&
      scope !== "harness" &&
      !isRacy(identity, ctx.takenAt)
    ) {
      const state: OutsideEntry = { kind, content_digest: "", ...identity, scope, hashed: false };
      ctx.outside.set(item.key, state);
      cache.store(item.key, item.fsPath, state, ctx.takenAt);
      continue;
    }
    jobs.push({ item, scope, kind, identity, ownDigest, gitRef: gitRef === true });
  }
  await hashOutside(ctx, jobs);
  cache.sweep();
  ctx.dirCache.sweep();
}

async function hashOutside(ctx: OutsideContext, jobs: Job[]): Promise<void> {
  const { root, cache } = ctx;
  const record = (job: Job, digest: string, identity: Identity): void => {
    const state: OutsideEntry = {
      kind: job.kind,
      content_digest: digest,
      ...identity,
      scope: job.scope,
      hashed: true,
    };
    cache.store(job.item.key, job.item.fsPath, state, ctx.takenAt);
    // turngate's own content-addressed log: cached (not hashed again), never a row.
    if (!isOwnLog(job.ownDigest, job.kind, digest)) ctx.outside.set(job.item.key, state);
  };
  const fail = (job: Job, error: unknown): void => {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code !== "ENOENT" && code !== "ENOTDIR") ctx.unreadable.add(job.item.key);
  };
  const large: Job[] = [];
  let buffer: Buffer | undefined;
  for (const job of jobs) {
    if (job.kind === "file" && job.identity.size > SMALL_FILE_BYTES) {
      large.push(job);
      continue;
    }
    const abs = absolutePath(root, job.item.fsPath);
    if (job.gitRef && job.kind === "file" && job.identity.size <= 4096) {
      try {
        if (isGitRefContent(readFileSync(abs))) {
          // git's own ref: cached (not read again while its stat is unchanged), never a row.
          const state: OutsideEntry = {
            kind: "file",
            content_digest: "",
            ...job.identity,
            scope: job.scope,
            hashed: false,
          };
          VALID_REFS.add(state);
          cache.store(job.item.key, job.item.fsPath, state, ctx.takenAt);
          continue;
        }
      } catch (error) {
        fail(job, error);
        continue;
      }
    }
    try {
      if (job.kind === "symlink") record(job, hashSymlink(abs), job.identity);
      else {
        buffer ??= Buffer.allocUnsafe(SMALL_FILE_BYTES);
        const { digest, stat } = hashRegularFileSync(abs, buffer);
        record(job, digest, identityOf(stat));
      }
    } catch (error) {
      fail(job, error);
    }
  }
  await mapBounded(large, HASH_CONCURRENCY, async (job) => {
    try {
      const { digest, stat } = await hashRegularFile(absolutePath(root, job.item.fsPath));
      record(job, digest, identityOf(stat));
    } catch (error) {
      fail(job, error);
    }
  });
}

type Identity = Omit<EntryState, "kind" | "content_digest">;

function identityOf(stat: Stats): Identity {
  return {
    size: stat.size,
    mtime_ms: stat.mtimeMs,
    ctime_ms: stat.ctimeMs,
    ino: stat.ino,
    mode: stat.mode,
  };
}
