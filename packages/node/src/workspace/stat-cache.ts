import type { EntryKind, EntryState, WorkspaceSnapshot } from "./snapshot.js";

/**
 * How close (ms) a file's mtime/ctime may be to the time its digest was computed before the
 * cached digest is distrusted. Git's racy-git rule distrusts an entry whose mtime is not
 * strictly older than the index write; we compare against our own clock instead of a file
 * timestamp, so the window also covers coarse kernel timestamps (a few ms behind
 * `Date.now()`) and filesystems with 1 s or 2 s mtime granularity (ext3, FAT).
 */
export const RACY_WINDOW_MS = 2000;

/** The `lstat` fields that identify an unchanged file (sizes in bytes, times in ms). */
export interface StatIdentity {
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
  mode: number;
}

/** A cached observation: the entry state plus when its digest was computed and where. */
export interface CachedEntry {
  state: EntryState;
  /** Wall-clock ms (epoch) taken before the stat that the digest belongs to. */
  hashed_at_ms: number;
  /** The on-disk relative path (may differ from the NFC key, e.g. NFD names). */
  fs_path: string;
}

/** True when all five identity fields are equal. */
export function sameStatIdentity(a: StatIdentity, b: StatIdentity): boolean {
  return (
    a.size === b.size &&
    a.mtime_ms === b.mtime_ms &&
    a.ctime_ms === b.ctime_ms &&
    a.ino === b.ino &&
    a.mode === b.mode
  );
}

/**
 * Git's racy rule, made conservative: a digest computed at `hashedAtMs` cannot be trusted
 * for a file whose last change (the later of mtime and ctime) is not strictly older than
 * `hashedAtMs - RACY_WINDOW_MS`, because a later same-size write could have left the
 * same stat. ctime is included because `utimes` can move mtime back but not ctime.
 */
export function isRacy(stat: StatIdentity, hashedAtMs: number): boolean {
  return Math.max(stat.mtime_ms, stat.ctime_ms) >= hashedAtMs - RACY_WINDOW_MS;
}

/**
 * The stat cache: path key → last digest with the stat it was computed for.
 * `reusable()` returns the cached state only when the kind and identity match and the entry
 * is not racy; everything else must be hashed again.
 */
export class StatCache {
  #entries = new Map<string, CachedEntry>();

  /** Number of cached paths. */
  get size(): number {
    return this.#entries.size;
  }

  /** Iterates the on-disk relative paths of all cached entries (for stat prefetch). */
  *fsPaths(): Iterable<string> {
    for (const entry of this.#entries.values()) yield entry.fs_path;
  }

  /**
   * Returns the cached {@link EntryState} for `key` if it may be reused for a fresh stat
   * of kind `kind`, else `undefined` (not cached, stat changed, or racy).
   */
  reusable(key: string, kind: EntryKind, stat: StatIdentity): EntryState | undefined {
    const cached = this.#entries.get(key);
    if (cached === undefined || cached.state.kind !== kind) return undefined;
    if (!sameStatIdentity(cached.state, stat)) return undefined;
    if (isRacy(cached.state, cached.hashed_at_ms)) return undefined;
    return cached.state;
  }

  /** The raw cached record for `key` (carry-over between snapshots), if any. */
  get(key: string): CachedEntry | undefined {
    return this.#entries.get(key);
  }

  /** Replaces the whole cache (the observer swaps in the entries of its latest snapshot). */
  replace(entries: Map<string, CachedEntry>): void {
    this.#entries = entries;
  }

  /**
   * Seeds the cache from a snapshot (e.g. a baseline read back from disk), treating every
   * digest as computed at `snapshot.taken_at_ms`. On-disk paths are taken to be the keys.
   */
  seed(snapshot: WorkspaceSnapshot): void {
    const entries = new Map<string, CachedEntry>();
    for (const [key, state] of snapshot.entries) {
      entries.set(key, { state, hashed_at_ms: snapshot.taken_at_ms, fs_path: key });
    }
    this.#entries = entries;
  }
}
