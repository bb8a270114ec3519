import type { BigIntStats } from "node:fs";
import type { EntryState } from "../workspace/snapshot.js";

/**
 * The clean room's manifest file (docs/design.md §3b, "Clean room"): what turngate wrote
 * into the room, so that the next turn proves the room by `lstat` alone (O(changed files)
 * besides one `lstat` per entry). One binary file, `manifest.bin`, little-endian:
 *
 * | bytes | what |
 * | --- | --- |
 * | 4 | magic `TGRM` |
 * | 4 | u32 format version, {@link ROOM_MANIFEST_VERSION} |
 * | 4 | u32 length `H` of the header |
 * | H | the header, UTF-8 JSON ({@link RoomManifestHeader}) |
 * | 4 | u32 entry count `N` |
 * | N × 72 | one record per entry ({@link RECORD_BYTES}, layout below) |
 * | 4 | u32 length `P` of the paths block |
 * | P | the entries' paths (UTF-8, relative, `/`-separated), joined by NUL, in record order |
 * | 4 | u32 folder count `M` (this and what follows may be absent: no folder records) |
 * | M × 32 | one record per folder ({@link DIR_RECORD_BYTES}, layout below) |
 * | 4 | u32 length `Q` of the folder paths block |
 * | Q | the folders' paths, joined by NUL, in record order (`""` is the room's root) |
 *
 * A record: SHA-256 of the bytes turngate wrote (32 raw bytes), then `lstat` of the room's
 * copy right after writing it: size (u64), mtime (i64, ns), ctime (i64, ns), inode (u64),
 * `st_mode` (u32), then the kind (u8: 1 file, 2 symlink; 0 = nothing proven, the entry is
 * to be copied) and 3 zero bytes. At most 72 bytes plus the path per entry, read and
 * written whole each turn (2 MB at 20,000 files), parsed without building one object per
 * entry. The native addon's `roomProve` reads the same layout (`packages/native/src/room.rs`).
 *
 * A folder record (`room-proof.ts` takes them; the native walk `room_walk.rs` skips reading
 * a folder they prove unchanged): inode (u64), mtime (i64, ns), ctime (i64, ns), flags (u32,
 * bit 0: the folder held only named entries and their folders), 4 zero bytes.
 */

/** Format version of `manifest.bin`; another version starts an empty room. */
export const ROOM_MANIFEST_VERSION = 1;

/** Bytes per entry record. */
export const RECORD_BYTES = 72;

const MAGIC = Buffer.from("TGRM", "latin1");

/** Record offsets (bytes). */
const AT = { size: 32, mtime: 40, ctime: 48, ino: 56, mode: 64, kind: 68 } as const;

/** Kind codes of a record. */
export const RECORD_KIND = { none: 0, file: 1, symlink: 2 } as const;

/** The header of the manifest: who the room is for and the clocks of its last proof. */
export interface RoomManifestHeader {
  schema: string;
  workspace: string;
  /** The mtime (whole seconds) the last sync wrote. */
  mtime_s: number;
  /** ctime (ns, decimal) of the stamp written after the last proof. */
  stamp_ns: string;
  /** Fingerprint of `.git` after turngate's own git work (null: no `.git`, or racy). */
  git: string | null;
  /** The HEAD the room's `.git` was set to. */
  head: { commit: string | null; ref: string | null } | null;
}

/** The entries of a manifest: `count` records and their NUL-joined paths. */
export interface RoomRecords {
  count: number;
  /** `count` × {@link RECORD_BYTES} bytes. */
  records: Buffer;
  /** The paths, UTF-8, joined by NUL, in record order (empty for none). */
  paths: Buffer;
}

/** Bytes per folder record. */
export const DIR_RECORD_BYTES = 32;

/** Folder records: `paths.length` × {@link DIR_RECORD_BYTES} bytes and their paths. */
export interface RoomDirs {
  records: Buffer;
  /** Room-relative `/` paths, `""` the root. */
  paths: string[];
}

/** No folder records (every folder is read). */
export const NO_DIRS: RoomDirs = Object.freeze({ records: Buffer.alloc(0), paths: [] });

/** No entries (a new or distrusted room). */
export const NO_RECORDS: RoomRecords = Object.freeze({
  count: 0,
  records: Buffer.alloc(0),
  paths: Buffer.alloc(0),
});

/** One record, decoded (the TypeScript path and tests). */
export interface RoomRecord {
  kind: EntryState["kind"] | null;
  /** Lowercase hex SHA-256. */
  digest: string;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  ino: bigint;
  mode: number;
}

/**
 * The bytes of a manifest. Errors: `RangeError` when `records` is not `count` records, the
 * folder records are not one per folder path, or the header does not serialise.
 */
export function encodeRoomManifest(
  header: RoomManifestHeader,
  entries: RoomRecords,
  dirs: RoomDirs = NO_DIRS,
): Buffer {
  return joinRoomManifest(header, encodeRoomManifestBody(entries, dirs));
}

/**
 * The part of a manifest after its header: the entries' records and paths and the folder
 * records (the bulk of it, encoded once and joined to a header with
 * {@link joinRoomManifest}). Errors: `RangeError` as {@link encodeRoomManifest}.
 */
export function encodeRoomManifestBody(entries: RoomRecords, dirs: RoomDirs = NO_DIRS): Buffer {
  if (entries.records.length !== entries.count * RECORD_BYTES) {
    throw new RangeError(
      `room manifest: records hold ${entries.records.length} bytes, expected ${entries.count} × ${RECORD_BYTES}`,
    );
  }
  if (dirs.records.length !== dirs.paths.length * DIR_RECORD_BYTES) {
    throw new RangeError(
      `room manifest: folder records hold ${dirs.records.length} bytes, expected ${dirs.paths.length} × ${DIR_RECORD_BYTES}`,
    );
  }
  const dirPaths = Buffer.from(dirs.paths.join("\0"), "utf8");
  const out = Buffer.allocUnsafe(
    4 +
      entries.records.length +
      4 +
      entries.paths.length +
      8 +
      dirs.records.length +
      dirPaths.length,
  );
  let at = out.writeUInt32LE(entries.count, 0);
  at += entries.records.copy(out, at);
  at = out.writeUInt32LE(entries.paths.length, at);
  at += entries.paths.copy(out, at);
  at = out.writeUInt32LE(dirs.paths.length, at);
  at += dirs.records.copy(out, at);
  at = out.writeUInt32LE(dirPaths.length, at);
  dirPaths.copy(out, at);
  return out;
}

/** A whole manifest: the magic, version and `header`, then `body` ({@link encodeRoomManifestBody}). */
export function joinRoomManifest(header: RoomManifestHeader, body: Buffer): Buffer {
  const head = Buffer.from(JSON.stringify(header), "utf8");
  const prefix = Buffer.allocUnsafe(12);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(ROOM_MANIFEST_VERSION, 4);
  prefix.writeUInt32LE(head.length, 8);
  return Buffer.concat([prefix, head, body]);
}

/**
 * Decode `bytes` (a whole `manifest.bin`). Output: the header, the entries (views into
 * `bytes`, not copies) and the folder records ({@link NO_DIRS} when the file has none), or
 * undefined for anything that is not a well-formed manifest of
 * this version (the room then starts empty). Never throws.
 */
export function decodeRoomManifest(
  bytes: Buffer,
): { header: RoomManifestHeader; entries: RoomRecords; dirs: RoomDirs } | undefined {
  try {
    if (bytes.length < 16 || !bytes.subarray(0, 4).equals(MAGIC)) return undefined;
    if (bytes.readUInt32LE(4) !== ROOM_MANIFEST_VERSION) return undefined;
    const headLength = bytes.readUInt32LE(8);
    let at = 12 + headLength;
    const header = JSON.parse(bytes.toString("utf8", 12, at)) as RoomManifestHeader;
    if (typeof header !== "object" || header === null || typeof header.workspace !== "string") {
      return undefined;
    }
    const count = bytes.readUInt32LE(at);
    at += 4;
    const records = bytes.subarray(at, at + count * RECORD_BYTES);
    at += count * RECORD_BYTES;
    const pathsLength = bytes.readUInt32LE(at);
    at += 4;
    const paths = bytes.subarray(at, at + pathsLength);
    if (records.length !== count * RECORD_BYTES || paths.length !== pathsLength) return undefined;
    if (count > 0 && splitPaths(paths).length !== count) return undefined;
    at += pathsLength;
    const entries = { count, records, paths };
    if (at === bytes.length) return { header, entries, dirs: NO_DIRS };
    const dirCount = bytes.readUInt32LE(at);
    at += 4;
    const dirRecords = bytes.subarray(at, at + dirCount * DIR_RECORD_BYTES);
    at += dirCount * DIR_RECORD_BYTES;
    const dirPathsLength = bytes.readUInt32LE(at);
    at += 4;
    if (dirRecords.length !== dirCount * DIR_RECORD_BYTES) return undefined;
    if (at + dirPathsLength !== bytes.length) return undefined;
    const dirPaths = dirCount === 0 ? [] : bytes.toString("utf8", at, bytes.length).split("\0");
    if (dirPaths.length !== dirCount) return undefined;
    return { header, entries, dirs: { records: dirRecords, paths: dirPaths } };
  } catch {
    return undefined;
  }
}

/** The paths of `paths` (a NUL-joined UTF-8 block; empty → none). Pure, never throws. */
export function splitPaths(paths: Buffer): string[] {
  return paths.length === 0 ? [] : paths.toString("utf8").split("\0");
}

/** The NUL-joined UTF-8 block of `paths` (none of which may hold a NUL; not checked). Pure. */
export function joinPaths(paths: Iterable<string>): Buffer {
  return Buffer.from([...paths].join("\0"), "utf8");
}

/**
 * Decode record `index` of `records` ({@link RECORD_BYTES} each): kind (null for 0), hex
 * digest, size (bytes), mtime and ctime (ns), inode, `st_mode`. Errors: `RangeError` when
 * `index` is past the block's end.
 */
export function readRecord(records: Buffer, index: number): RoomRecord {
  const at = index * RECORD_BYTES;
  const code = records[at + AT.kind];
  return {
    kind: code === RECORD_KIND.file ? "file" : code === RECORD_KIND.symlink ? "symlink" : null,
    digest: records.toString("hex", at, at + 32),
    size: records.readBigUInt64LE(at + AT.size),
    mtimeNs: records.readBigInt64LE(at + AT.mtime),
    ctimeNs: records.readBigInt64LE(at + AT.ctime),
    ino: records.readBigUInt64LE(at + AT.ino),
    mode: records.readUInt32LE(at + AT.mode),
  };
}

/**
 * Write record `index` of `records`: `kind` and `digest` (lowercase hex SHA-256) with the
 * room copy's `lstat` (`stat`, from `lstatSync(…, { bigint: true })`).
 */
export function writeRecord(
  records: Buffer,
  index: number,
  kind: EntryState["kind"],
  digest: string,
  stat: BigIntStats,
): void {
  const at = index * RECORD_BYTES;
  records.fill(0, at, at + RECORD_BYTES);
  records.write(digest, at, 32, "hex");
  records.writeBigUInt64LE(stat.size, at + AT.size);
  records.writeBigInt64LE(stat.mtimeNs, at + AT.mtime);
  records.writeBigInt64LE(stat.ctimeNs, at + AT.ctime);
  records.writeBigUInt64LE(stat.ino, at + AT.ino);
  records.writeUInt32LE(Number(stat.mode), at + AT.mode);
  records[at + AT.kind] = kind === "symlink" ? RECORD_KIND.symlink : RECORD_KIND.file;
}

/** Copy record `from` of `source` to record `to` of `target` (72 bytes; out of range copies less). */
export function copyRecord(source: Buffer, from: number, target: Buffer, to: number): void {
  source.copy(target, to * RECORD_BYTES, from * RECORD_BYTES, (from + 1) * RECORD_BYTES);
}
