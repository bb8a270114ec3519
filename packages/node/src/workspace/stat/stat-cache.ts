import type { EntryKind, EntryState, WorkspaceSnapshot } from "../snapshot.js";

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

/** A cached observation of one path, plus the bookkeeping of the snapshot in progress. */
export interface CachedEntry {
  /** The snapshot key (NFC) this entry is stored under. */
  key: string;
  state: EntryState;
  /** Wall-clock ms (epoch) taken before the stat that the digest belongs to. */
  hashed_at_ms: number;
  /** The on-disk relative path (may differ from the NFC key, e.g. NFD names). */
  fs_path: string;
  /** `root/fs_path`, kept to avoid rebuilding 20,000 strings per snapshot. */
  abs_path: string;
  /** Epoch of the last snapshot that listed this path. */
  seen: number;
  /** Index of this entry's pre-taken stat in the current snapshot, valid if
   * `slot_epoch` is the current epoch. */
  slot: number;
  slot_epoch: number;
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
 * True when a cached entry may stand for a fresh `lstat` (all numbers from that stat):
 * same kind, size, mtime, ctime, inode and mode, and not racy. Otherwise the path must be
 * hashed again.
 */
export function canReuse(
  entry: CachedEntry,
  kind: EntryKind,
  size: number,
  mtimeMs: number,
  ctimeMs: number,
  ino: number,
  mode: number,
): boolean {
  const s = entry.state;
  return (
    s.kind === kind &&
    s.size === size &&
    s.mtime_ms === mtimeMs &&
    s.ctime_ms === ctimeMs &&
    s.ino === ino &&
    s.mode === mode &&
    !isRacy(s, entry.hashed_at_ms)
  );
}

/**
 * The stat cache: NFC key → last digest with the stat it was computed for. The observer
 * updates it in place during a snapshot (`seen` marks listed paths) and then sweeps the
 * entries the snapshot did not list.
 */
export class StatCache {
  readonly #root: string;
  #entries = new Map<string, CachedEntry>();
  #list: CachedEntry[] | undefined;
  #absPaths: string[] | undefined;
  /** Incremented once per snapshot. */
  epoch = 0;

  constructor(root: string) {
    this.#root = root;
  }

  /** Number of cached paths. */
  get size(): number {
    return this.#entries.size;
  }

  /** All cached entries, in a stable order (rebuilt only after changes). */
  records(): CachedEntry[] {
    this.#list ??= [...this.#entries.values()];
    return this.#list;
  }

  /** `abs_path` of every entry of {@link records}, in the same order. */
  absPaths(): string[] {
    this.#absPaths ??= this.records().map((entry) => entry.abs_path);
    return this.#absPaths;
  }

  /** The cached entry for `key`, if any. */
  get(key: string): CachedEntry | undefined {
    return this.#entries.get(key);
  }

  /** Stores a freshly hashed state for `key`, seen in the current epoch. */
  store(key: string, fsPath: string, state: EntryState, hashedAtMs: number): void {
    this.#entries.set(key, {
      key,
      state,
      hashed_at_ms: hashedAtMs,
      fs_path: fsPath,
      abs_path: absolutePath(this.#root, fsPath),
      seen: this.epoch,
      slot: -1,
      slot_epoch: -1,
    });
    this.#invalidate();
  }

  /** Forgets `key`. */
  delete(key: string): void {
    if (this.#entries.delete(key)) this.#invalidate();
  }

  /**
   * Keys of the entries not seen in the current epoch (what `sweep()` would drop).
   * `records`: an earlier result of {@link records} from this epoch, to scan instead of the
   * map (cheaper); entries stored since then are seen, so they cannot be missed.
   */
  unseenKeys(records?: readonly CachedEntry[]): string[] {
    const keys: string[] = [];
    if (records === undefined) {
      for (const [key, entry] of this.#entries) if (entry.seen !== this.epoch) keys.push(key);
      return keys;
    }
    for (const record of records) {
      if (record.seen === this.epoch) continue;
      const current = this.#entries.get(record.key); // the record may have been replaced
      if (current !== undefined && current.seen !== this.epoch) keys.push(record.key);
    }
    return keys;
  }

  /** Drops every entry not seen in the current epoch. */
  sweep(): void {
    let stale = false;
    for (const [key, entry] of this.#entries) {
      if (entry.seen !== this.epoch) {
        this.#entries.delete(key);
        stale = true;
      }
    }
    if (stale) this.#invalidate();
  }

  /**
   * Replaces the cache with a snapshot's entries (e.g. a baseline read back from disk),
   * treating every digest as computed at `snapshot.taken_at_ms`; on-disk paths are taken
   * to be the keys.
   */
  seed(snapshot: WorkspaceSnapshot): void {
    this.seedEntries(snapshot.entries, snapshot.taken_at_ms);
  }

  /**
   * Replaces the cache with `entries` (key → state), every digest taken as computed at
   * `hashedAtMs`; on-disk paths are taken to be the keys (the outside cache is seeded from
   * a baseline's `outside` this way).
   */
  seedEntries(entries: ReadonlyMap<string, EntryState>, hashedAtMs: number): void {
    this.#entries = new Map();
    for (const [key, state] of entries) {
      this.#entries.set(key, {
        key,
        state,
        hashed_at_ms: hashedAtMs,
        fs_path: key,
        abs_path: absolutePath(this.#root, key),
        seen: this.epoch,
        slot: -1,
        slot_epoch: -1,
      });
    }
    this.#invalidate();
  }

  #invalidate(): void {
    this.#list = undefined;
    this.#absPaths = undefined;
  }
}

/** `root/rel` for a resolved absolute root and a clean relative path, without path.join. */
export function absolutePath(root: string, rel: string): string {
  return root.endsWith("/") ? root + rel : `${root}/${rel}`;
}
