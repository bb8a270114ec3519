import { createHash } from "node:crypto";
import {
  type BigIntStats,
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { type NativeAddon, selectNative } from "../native/select.js";
import type { EntryState } from "../workspace/snapshot.js";
import {
  DIR_RECORD_BYTES,
  joinPaths,
  NO_DIRS,
  RECORD_BYTES,
  type RoomDirs,
  type RoomRecords,
  writeRecord,
} from "./room-manifest.js";
import { beginRoomProof, type ProofEntry, proveRoom, type RoomProof } from "./room-proof.js";

/**
 * The clean room's files (docs/design.md §3b, "Clean room"): make a folder hold exactly
 * the source-scope entries of a snapshot, prove it, and say what had to change.
 *
 * Rules, in the order {@link syncRoomFiles} applies them:
 * 1. **Prune**: every file, symlink or folder in the room that the snapshot does not name
 *    is removed, except the room's `.git` and {@link isKeptCacheDir} folders (build caches
 *    that their tools revalidate against their inputs). Check outputs such as
 *    `coverage/impl.js` are gone before the next check, as in a clean clone.
 * 2. **Prove**: an entry is kept unread only when the room's `lstat` equals the one recorded
 *    when turngate wrote it (kind, size, mtime, ctime, inode and mode, to the nanosecond)
 *    and its ctime is before `stampNs` (the last proof's stamp, and the turn's start: what
 *    was written after either may be the agent's or racily clean); any other entry whose
 *    room file has the right kind is re-hashed and kept when its bytes are the snapshot's. A
 *    file whose executable bit is not the snapshot's is copied again.
 * 3. **Copy**: every other entry is copied from the workspace (with `@turngate/native`,
 *    several at once off the JavaScript thread: `roomCopy`) and its bytes hashed on the way: bytes whose SHA-256 is not the snapshot's digest (the workspace changed after the
 *    snapshot) fail the sync with {@link RoomSourceChangedError}. Symlinks are copied as
 *    links (their text), never followed. Mode bits are the snapshot's; the owner's.
 * 4. **Time**: every file written by one sync gets the same mtime `T` (whole seconds),
 *    strictly later than the `T` of every earlier sync of the room: tools that revalidate
 *    by source mtime (Python's bytecode stores whole seconds and the size) always see a
 *    rewritten file as new. turngate never copies the agent's mtimes.
 */

/** Offset of `st_mode` in a record (`room-manifest.ts`). */
const MODE_AT = 64;

/** Build-cache folder names kept between checks (when their bytes are proven unchanged). */
export const KEPT_CACHE_DIRS: readonly string[] = Object.freeze([
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".ruff_cache",
]);

/**
 * Whether the room folder `rel` (a `/`-separated path) is a kept build cache:
 * {@link KEPT_CACHE_DIRS} anywhere, and `target` beside a `Cargo.toml` the snapshot names.
 */
export function isKeptCacheDir(rel: string, names: ReadonlyMap<string, EntryState>): boolean {
  const slash = rel.lastIndexOf("/");
  const base = rel.slice(slash + 1);
  if (KEPT_CACHE_DIRS.includes(base)) return true;
  if (base !== "target") return false;
  const parent = slash < 0 ? "" : rel.slice(0, slash + 1);
  return names.has(`${parent}Cargo.toml`);
}

/** The workspace changed between the snapshot and the copy. */
export class RoomSourceChangedError extends Error {
  readonly code = "room_source_changed";
  constructor(readonly path: string) {
    super(
      `clean room: ${path} changed in the workspace after it was observed; the checks did not run on it`,
    );
    this.name = "RoomSourceChangedError";
  }
}

/** Input of {@link syncRoomFiles}. */
export interface RoomFilesInput {
  /** The room's folder. */
  room: string;
  /** The workspace root the bytes are copied from. */
  workspace: string;
  /** The source scope to hold: relative `/` path → state (the snapshot's `entries`). */
  entries: ReadonlyMap<string, EntryState>;
  /** What the room recorded at its last sync (`NO_RECORDS` of `room-manifest.ts` for a new room). */
  recorded: RoomRecords;
  /** The folder records of its last sync (`NO_DIRS`: every folder is read). */
  recordedDirs?: RoomDirs;
  /**
   * ctime (ns) of a stamp written right before this sync: a folder is recorded clean (its
   * reading may be skipped next time) only when older. Default 0n: none is.
   */
  freshNs?: bigint;
  /**
   * ctime (ns) from which a recorded entry is not trusted unread: the earlier of the last
   * proof's stamp and the turn's start. Entries with a ctime at or after it are re-hashed.
   */
  stampNs: bigint;
  /** The mtime (whole seconds) the last sync wrote; this sync writes a later one. */
  lastMtimeS: number;
  /**
   * The room's `.git` is proven and ready (no clone, no rebuild): the native proof may write
   * the index entries of what it copies itself (see `unindexed`). Default false.
   */
  indexEarly?: boolean;
}

/** Output of {@link syncRoomFiles}. */
export interface RoomFilesResult {
  /** What the room now records: every entry of `entries`, in its order. */
  recorded: RoomRecords;
  /** Paths written (copied) by this sync, sorted. */
  written: string[];
  /**
   * The paths of `written` whose index entries the room's `.git` does not hold yet, sorted:
   * all of them, except with `indexEarly` those the native proof copied and indexed itself.
   */
  unindexed: string[];
  /** Paths removed (files, links and whole folders the snapshot does not name), sorted. */
  removed: string[];
  /** Entries that were proven by re-hashing (racily clean), count. */
  rehashed: number;
  /** The mtime (whole seconds) this sync wrote, or `lastMtimeS` when it wrote nothing. */
  mtimeS: number;
  /** Recorded paths that `entries` no longer names, sorted. */
  gone: string[];
  /**
   * The entries proven by re-hashing, sorted: right bytes that turngate did not write (or
   * wrote in the racy tick), so the room's index is updated for them too.
   */
  rehashedPaths: string[];
  /** The build-cache folders ({@link isKeptCacheDir}) left in place, sorted. */
  kept: string[];
  /**
   * The folder records for the next sync: the proof's, with the folders this sync wrote,
   * removed or made a name in marked not clean (their listing changed after the proof took
   * the record).
   */
  dirs: RoomDirs;
}

/**
 * Make `input.room` hold exactly `input.entries` (see the module docs for the rules).
 * Errors: {@link RoomSourceChangedError} when a copied file's bytes are not the snapshot's;
 * `fs` errors of the room (`ENOSPC`, `EACCES`) and of reading the workspace (`ENOENT` when a
 * named file vanished is reported as {@link RoomSourceChangedError}).
 */
export async function syncRoomFiles(
  input: RoomFilesInput,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RoomFilesResult> {
  const { room, entries } = input;
  mkdirSync(room, { recursive: true, mode: 0o700 });
  // The recorded paths' lstats start now, while the entries are encoded below.
  const ahead = beginRoomProof(room, input.recorded, env);
  // One flat list (path, kind, digest per entry): what the proof takes, with no array per
  // entry (20,000 entries per sync).
  const flat: string[] = new Array(entries.size * 3);
  const modes: number[] = new Array(entries.size);
  let at = 0;
  for (const [path, state] of entries) {
    flat[at * 3] = path;
    flat[at * 3 + 1] = state.kind;
    flat[at * 3 + 2] = state.content_digest;
    modes[at] = state.mode;
    at += 1;
  }
  const count = entries.size;
  const entryAt = (index: number): ProofEntry =>
    [flat[index * 3], flat[index * 3 + 1], flat[index * 3 + 2]] as unknown as ProofEntry;
  const pathAt = (index: number): string => flat[index * 3] as string;
  // The mtime of this sync's copies, should it write any: the native proof copies the
  // entries it can tell changed (recorded with other bytes) while it proves the others.
  const plannedMtimeS = Math.max(Math.ceil(Date.now() / 1000), input.lastMtimeS + 1);
  let proof: RoomProof;
  try {
    proof = await proveRoom(
      room,
      input.recorded,
      { flat },
      input.stampNs,
      env,
      input.recordedDirs ?? NO_DIRS,
      input.freshNs ?? 0n,
      {
        workspace: input.workspace,
        modes,
        mtimeS: plannedMtimeS,
        index: input.indexEarly === true,
      },
      ahead,
    );
  } catch (error) {
    throw sourceChanged(error);
  }

  // Prune: what the snapshot does not name goes, build caches excepted.
  const removed: string[] = [];
  const kept: string[] = [];
  for (const dir of proof.extraDirs) {
    if (isKeptCacheDir(dir, entries)) {
      kept.push(dir);
      continue;
    }
    removeFolder(join(room, dir));
    removed.push(dir);
  }
  for (const file of proof.extraFiles) {
    rmSync(join(room, file), { force: true });
    removed.push(file);
  }
  const copy = new Set(proof.copy);
  // The snapshot's executable bit: a room file with the other one (a chmod in the room, or a
  // mode-only change in the workspace) is copied again, with the snapshot's mode.
  for (let index = 0; !proof.modesChecked && index < count; index += 1) {
    if (flat[index * 3 + 1] !== "file" || copy.has(index)) continue;
    const mode = proof.records.readUInt32LE(index * RECORD_BYTES + MODE_AT);
    if ((mode & 0o100) !== ((modes[index] as number) & 0o100)) copy.add(index);
  }
  for (const index of prunedEntries(count, pathAt, removed)) copy.add(index);

  const records = proof.records;
  const created: string[] = [];
  const writtenAt = new Set(proof.copied);
  if (copy.size > 0) {
    const mtimeS = plannedMtimeS;
    const order = [...copy].sort((a, b) => compare(pathAt(a), pathAt(b)));
    const native = selectNative(env);
    if (native !== undefined) {
      await copyNatively(
        native,
        input.workspace,
        room,
        entryAt,
        modes,
        order,
        mtimeS,
        records,
        created,
      );
    } else {
      const made = new Set<string>();
      for (const index of order) {
        const [path, kind, digest] = entryAt(index);
        const state = entries.get(path) as EntryState;
        const stat = copyEntry(input.workspace, room, path, state, mtimeS, made, created);
        writeRecord(records, index, kind, digest, stat);
      }
    }
    for (const index of order) writtenAt.add(index);
  }
  const written = [...writtenAt].map(pathAt).sort(compare);
  // Written and indexed by the proof, and not copied again since (below a pruned folder).
  const indexed = new Set(proof.indexed ? proof.copied.filter((index) => !copy.has(index)) : []);
  const unindexed = [...writtenAt]
    .filter((index) => !indexed.has(index))
    .map(pathAt)
    .sort(compare);
  const mtimeS = written.length > 0 ? plannedMtimeS : input.lastMtimeS;
  return {
    dirs: untouchedDirs(proof.dirs, [...written, ...removed, ...created]),
    recorded: {
      count,
      records,
      // The recorded block when the paths are the same, in the same order (most turns).
      paths: proof.aligned ? input.recorded.paths : joinPaths(entries.keys()),
    },
    written,
    unindexed,
    removed: removed.sort(compare),
    rehashed: proof.rehashed.length,
    rehashedPaths: proof.rehashed.map(pathAt).sort(compare),
    mtimeS,
    gone: proof.gone.sort(compare),
    kept: kept.sort(compare),
  };
}

/**
 * The entries (indices below `count`, paths by `pathAt`) that the prune of `removed` (room
 * paths removed, files or whole folders) took away or left proven through what it removed:
 * an entry below a removed link or folder was proven through it, and an entry at a removed
 * path was proven before another kind took its place there (its stat taken before the walk
 * listed the folder). Both are copied anew. Output: ascending indices. docs/design.md §3b.
 */
export function prunedEntries(
  count: number,
  pathAt: (index: number) => string,
  removed: readonly string[],
): number[] {
  if (removed.length === 0) return [];
  const pruned = new Set(removed);
  const out: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const path = pathAt(index);
    let hit = pruned.has(path);
    for (let slash = path.indexOf("/"); !hit && slash >= 0; slash = path.indexOf("/", slash + 1)) {
      hit = pruned.has(path.slice(0, slash));
    }
    if (hit) out.push(index);
  }
  return out;
}

/**
 * Copy the entries `order` (indices of `entryAt`, path order) with `@turngate/native`'s
 * `roomCopy` (several at once, off the JavaScript thread; the same rules as
 * {@link copyEntry}), their records written into `records` and the folders made pushed to
 * `created`. Errors: {@link RoomSourceChangedError}; the addon's errno-coded errors of the room.
 */
async function copyNatively(
  native: NativeAddon,
  workspace: string,
  room: string,
  entryAt: (index: number) => ProofEntry,
  modes: readonly number[],
  order: readonly number[],
  mtimeS: number,
  records: Buffer,
  created: string[],
): Promise<void> {
  const items = order.map((index) => {
    const [path, kind, digest] = entryAt(index);
    return [path, kind, digest, modes[index] as number] as const;
  });
  let done: { records: Buffer; created: string[] };
  try {
    done = await native.roomCopy(workspace, room, items, mtimeS);
  } catch (error) {
    throw sourceChanged(error);
  }
  order.forEach((index, at) => {
    done.records.copy(records, index * RECORD_BYTES, at * RECORD_BYTES, (at + 1) * RECORD_BYTES);
  });
  created.push(...done.created);
}

/** The addon's `ERR_TURNGATE_ROOM_SOURCE_CHANGED` as a {@link RoomSourceChangedError}; others as they are. */
function sourceChanged(error: unknown): unknown {
  const { code, path } = error as { code?: string; path?: string };
  return code === "ERR_TURNGATE_ROOM_SOURCE_CHANGED"
    ? new RoomSourceChangedError(path ?? "")
    : error;
}

/**
 * `dirs` with the folders whose names changed marked not clean (read again next time; kept,
 * so the folder above still knows them as its sub-folders): the parent of each of `changed`
 * (the paths written, removed, and the folders made; `""` for a top-level one).
 */
function untouchedDirs(dirs: RoomDirs, changed: readonly string[]): RoomDirs {
  if (changed.length === 0) return dirs;
  const touched = new Set<string>();
  for (const path of changed) {
    const slash = path.lastIndexOf("/");
    touched.add(slash < 0 ? "" : path.slice(0, slash));
  }
  const records = Buffer.from(dirs.records);
  dirs.paths.forEach((path, index) => {
    if (touched.has(path)) records.writeUInt32LE(0, index * DIR_RECORD_BYTES + 24);
  });
  return { records, paths: dirs.paths };
}

/**
 * Remove the room folder `abs` and what it holds, made listable first (a folder the agent
 * made unreadable could not be emptied). Errors: `fs` errors of the removal.
 */
function removeFolder(abs: string): void {
  try {
    if (lstatSync(abs).isDirectory()) chmodSync(abs, 0o700);
  } catch {
    // gone already, or not ours to chmod: the removal says what is wrong
  }
  rmSync(abs, { recursive: true, force: true });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function copyEntry(
  workspace: string,
  room: string,
  path: string,
  state: EntryState,
  mtimeS: number,
  made: Set<string>,
  created: string[],
): BigIntStats {
  const source = join(workspace, path);
  const target = join(room, path);
  ensureParent(room, path, made, created);
  // The room is turngate's alone while a turn holds its lock, so the copy is written in
  // place: an interrupted copy leaves a file whose stat the manifest does not record, and
  // the next sync copies it again.
  removeAt(target);
  if (state.kind === "symlink") {
    let text: Buffer;
    try {
      text = readlinkSync(source, { encoding: "buffer" });
    } catch {
      throw new RoomSourceChangedError(path);
    }
    if (sha256(text) !== state.content_digest) throw new RoomSourceChangedError(path);
    symlinkSync(text, target);
    return lstatSync(target, { bigint: true });
  }
  const bytes = readRegular(source, path);
  if (sha256(bytes) !== state.content_digest) throw new RoomSourceChangedError(path);
  // One descriptor for the write, the mtime and the record's stat (no path looked up again);
  // O_EXCL|O_NOFOLLOW: nothing is written through a name someone put back meanwhile.
  const fd = openSync(
    target,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    state.mode & 0o755,
  );
  try {
    // writeSync may write less than asked (a full disk, a file size limit): until all of it.
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    futimesSync(fd, mtimeS, mtimeS);
    return fstatSync(fd, { bigint: true });
  } finally {
    closeSync(fd);
  }
}

/** Remove whatever is at `abs` (a file, a link, or a whole folder); nothing there is fine. */
function removeAt(abs: string): void {
  try {
    unlinkSync(abs);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code !== "EISDIR" && code !== "EPERM") throw error;
    rmSync(abs, { recursive: true, force: true });
  }
}

/**
 * Make every folder above `path` in the room a real folder (a file or link in the way
 * goes); `made` remembers the folders this sync already made or saw, `created` gets the
 * folders it made.
 */
function ensureParent(room: string, path: string, made: Set<string>, created: string[]): void {
  const parts = path.split("/").slice(0, -1);
  let rel = "";
  for (const part of parts) {
    rel = rel === "" ? part : `${rel}/${part}`;
    if (made.has(rel)) continue;
    const abs = join(room, rel);
    const stat = lstatOrUndefined(abs);
    if (!stat?.isDirectory()) {
      if (stat !== undefined) unlinkSync(abs);
      mkdirSync(abs, { mode: 0o755 });
      created.push(rel);
    }
    made.add(rel);
  }
}

function readRegular(source: string, path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw new RoomSourceChangedError(path);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new RoomSourceChangedError(path);
    // One read of the size fstat gave (a short one: read again whole). The digest the
    // caller checks decides whether these are the snapshot's bytes.
    const bytes = Buffer.allocUnsafe(stat.size);
    const read = stat.size > 0 ? readSync(fd, bytes, 0, stat.size, 0) : 0;
    return read === stat.size ? bytes : readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

function lstatOrUndefined(abs: string): BigIntStats | undefined {
  try {
    return lstatSync(abs, { bigint: true });
  } catch {
    return undefined;
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
