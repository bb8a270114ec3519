import { type BigIntStats, type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type RoomPrestatHandle, selectNative } from "../native/select.js";
import { hashRegularFileSync, hashSymlink } from "../workspace/hash/hash.js";
import type { EntryState } from "../workspace/snapshot.js";
import {
  copyRecord,
  DIR_RECORD_BYTES,
  NO_DIRS,
  RECORD_BYTES,
  type RoomDirs,
  type RoomRecords,
  readRecord,
  splitPaths,
  writeRecord,
} from "./room-manifest.js";

/**
 * The clean room's proof (docs/design.md §3b, "Clean room"): which of a snapshot's entries
 * the room already holds, proven by `lstat` against the manifest's records, which must be
 * copied, and what the room holds that the snapshot does not name. Reads only; the caller
 * (`room-files.ts`) removes and copies.
 *
 * Rules, per entry `[path, kind, digest]`:
 * - absent in the room, or another kind there: **copy**;
 * - its record (`room-manifest.ts`) has the same kind and digest, the room's `lstat` equals
 *   the recorded one (size, mtime, ctime, inode and mode, to the nanosecond) and the ctime
 *   is before `stampNs`: **proven**, the record is kept and the bytes are not read;
 * - otherwise the room's bytes are hashed (a symlink's link text; a file opened without
 *   following a link): the snapshot's digest **re-hashed** (a new record), else **copy**.
 *
 * The room is walked from its root through the folders that hold named entries only (the
 * root's `.git` is skipped): a non-folder not named as that kind is an extra file, a folder
 * that holds no named entry an extra folder (build caches among them; the caller keeps
 * those). Each folder walked gets a record (`room-manifest.ts`: inode, mtime, ctime, and
 * whether it held only named entries and their folders) for the next proof. With
 * `@turngate/native` the same rules run in parallel, off the JavaScript thread, in
 * `roomProve` (`packages/native/src/room.rs`), which also skips reading a folder the last
 * proof's record shows unchanged (`room_walk.rs`: a name added, removed or renamed moves the
 * folder's ctime); both paths give the same results.
 */

/** One snapshot entry as the proof takes it: path, kind and lowercase hex SHA-256. */
export type ProofEntry = readonly [path: string, kind: EntryState["kind"], digest: string];

/**
 * Snapshot entries as the proof takes them: one {@link ProofEntry} each, or `flat`, their
 * path, kind and digest one after the other (no array per entry: what a sync of 20,000
 * entries builds; the addon takes it joined as it is).
 */
export type ProofEntries = readonly ProofEntry[] | { readonly flat: readonly string[] };

/** `entries` as one {@link ProofEntry} per entry. */
function tuples(entries: ProofEntries): readonly ProofEntry[] {
  if (Array.isArray(entries)) return entries;
  const { flat } = entries as { readonly flat: readonly string[] };
  const out: ProofEntry[] = [];
  for (let at = 0; at + 2 < flat.length; at += 3) {
    out.push([flat[at], flat[at + 1], flat[at + 2]] as unknown as ProofEntry);
  }
  return out;
}

/** What the proof found. Lists other than `copy` are in no particular order. */
export interface RoomProof {
  /** One record per entry, in input order; kind 0 (zeros) for the entries to copy. */
  records: Buffer;
  /** Indices of the entries to copy, ascending. */
  copy: number[];
  /** Indices of the entries proven by re-hashing, ascending (the caller indexes them). */
  rehashed: number[];
  /** Non-folders in the room that no entry names as that kind. */
  extraFiles: string[];
  /** Folders in the room that hold no named entry (root `.git` excepted). */
  extraDirs: string[];
  /** Recorded paths no entry names any more. */
  gone: string[];
  /** The record of each folder the walk reached (any order), for the next proof. */
  dirs: RoomDirs;
  /**
   * Whether the entries' paths are the recorded paths in the same order: the recorded path
   * block then stands for the new one as it is.
   */
  aligned: boolean;
  /**
   * Indices of the entries the proof copied itself (given `early`, with `@turngate/native`),
   * ascending; none on the TypeScript path. In neither `copy` nor `rehashed`.
   */
  copied: number[];
  /**
   * Whether `copy` already holds the files whose owner-execute bit is not the snapshot's
   * (the native proof given `early`); otherwise the caller checks.
   */
  modesChecked: boolean;
  /**
   * Whether the room's index holds every entry of `copied` as copied (the native proof given
   * `early.index`); false on the TypeScript path.
   */
  indexed: boolean;
}

/**
 * What {@link proveRoom} needs to copy the changed entries while it proves the others (with
 * `@turngate/native`): the workspace, each entry's `st_mode`, the copies' mtime (s).
 */
export interface ProofEarlyCopy {
  workspace: string;
  modes: readonly number[];
  mtimeS: number;
  /** The room's `.git` is proven and ready: write the early copies' index entries too. */
  index?: boolean;
}

/** The recorded paths' `lstat`s begun by {@link beginRoomProof}, for one {@link proveRoom}. */
export interface ProofAhead {
  prestat?: RoomPrestatHandle;
}

/**
 * Begin the proof of `room` (absolute) before its entries are ready: with `@turngate/native`
 * the `lstat`s of the manifest's `recorded` paths start on a thread of their own (most of a
 * proof's time on a large room), while the caller encodes the snapshot's entries; pass the
 * result to {@link proveRoom} of the same room and `recorded`. On the TypeScript path, or
 * for an empty record, it does nothing. The proof's rules are unchanged (a stat is only
 * compared with its record; the stats are as of this call). Errors: as
 * {@link selectNative}. docs/design.md §3b.
 */
export function beginRoomProof(
  room: string,
  recorded: RoomRecords,
  env: NodeJS.ProcessEnv = process.env,
): ProofAhead {
  const native = selectNative(env);
  if (native === undefined || recorded.count === 0) return {};
  return { prestat: native.roomPrestat(room, recorded) };
}

/**
 * Prove `room` (absolute) against `entries` with the manifest's `recorded` entries, its
 * folder records `dirs` and the ctime `stampNs` (ns) from which a record proves nothing
 * (see the module docs), and the ctime `freshNs` of a stamp written before the call (a
 * folder is recorded clean only when older; 0n: none is), with
 * `@turngate/native` (off the JavaScript thread) when {@link selectNative} picks it, else on
 * the TypeScript path; both give the same results, except that given `early` the native
 * proof copies the entries the room recorded at their own index with the same kind and other
 * bytes itself, while it proves the others (`copied`; the TypeScript path leaves them in
 * `copy`). Given `ahead` ({@link beginRoomProof} of the same room and `recorded`), the
 * native proof takes the recorded paths' `lstat`s begun there. Errors of an early copy: the
 * addon's `ERR_TURNGATE_ROOM_SOURCE_CHANGED` (the workspace bytes are not the digest's) or an
 * errno code of the room. Errors: `TurngateError` as
 * `selectNative`; the addon's `NativeError` `ERR_TURNGATE_INVALID_ARG` for a malformed
 * record block. Reading failures in the room are outcomes (copy), never thrown.
 */
export async function proveRoom(
  room: string,
  recorded: RoomRecords,
  entries: ProofEntries,
  stampNs: bigint,
  env: NodeJS.ProcessEnv = process.env,
  dirs: RoomDirs = NO_DIRS,
  freshNs = 0n,
  early?: ProofEarlyCopy,
  ahead?: ProofAhead,
): Promise<RoomProof> {
  const native = selectNative(env);
  if (native === undefined) return proveRoomTs(room, recorded, tuples(entries), stampNs, freshNs);
  const given = Array.isArray(entries)
    ? entries
    : {
        joined: (entries as { flat: string[] }).flat.join("\0"),
        count: (entries as { flat: string[] }).flat.length / 3,
      };
  const proof = await native.roomProve(
    room,
    recorded,
    given,
    stampNs,
    dirs,
    freshNs,
    early,
    ahead?.prestat,
  );
  const { dirRecords, dirPaths, ...rest } = proof;
  return { ...rest, dirs: { records: dirRecords, paths: dirPaths } };
}

/** {@link proveRoom} on the TypeScript path (no addon: every folder is read), synchronous. */
export function proveRoomTs(
  room: string,
  recorded: RoomRecords,
  entries: readonly ProofEntry[],
  stampNs: bigint,
  freshNs = 0n,
): RoomProof {
  const byPath = new Map<string, number>();
  splitPaths(recorded.paths).forEach((path, index) => {
    byPath.set(path, index);
  });
  const records = Buffer.alloc(entries.length * RECORD_BYTES);
  const copy: number[] = [];
  const rehashed: number[] = [];
  let buffer: Buffer | undefined;
  entries.forEach(([path, kind, digest], index) => {
    const abs = join(room, path);
    const stat = lstatOrUndefined(abs);
    if (stat === undefined || kindOf(stat) !== kind) {
      copy.push(index);
      return;
    }
    const at = byPath.get(path);
    if (at !== undefined) {
      const before = readRecord(recorded.records, at);
      if (
        before.kind === kind &&
        before.digest === digest &&
        before.size === stat.size &&
        before.mtimeNs === stat.mtimeNs &&
        before.ctimeNs === stat.ctimeNs &&
        before.ino === stat.ino &&
        BigInt(before.mode) === stat.mode &&
        stat.ctimeNs < stampNs
      ) {
        copyRecord(recorded.records, at, records, index);
        return;
      }
    }
    buffer ??= Buffer.allocUnsafe(256 * 1024);
    if (roomDigest(abs, stat, buffer) === digest) {
      writeRecord(records, index, kind, digest, stat);
      rehashed.push(index);
      return;
    }
    copy.push(index);
  });

  const named = new Map<string, EntryState["kind"]>();
  const ancestors = new Set<string>();
  for (const [path, kind] of entries) {
    named.set(path, kind);
    let slash = path.indexOf("/");
    while (slash >= 0) {
      ancestors.add(path.slice(0, slash));
      slash = path.indexOf("/", slash + 1);
    }
  }
  const extraFiles: string[] = [];
  const extraDirs: string[] = [];
  const dirRecords: Buffer[] = [];
  const dirPaths: string[] = [];
  /** Walk folder `rel`; true when it got a record. */
  const visit = (rel: string): boolean => {
    const abs = rel === "" ? room : join(room, rel);
    const stat = lstatOrUndefined(abs);
    if (stat === undefined || !stat.isDirectory()) return false;
    let children: Dirent[];
    try {
      children = readdirSync(abs, { withFileTypes: true });
    } catch {
      // Its names cannot be proven: the folder goes (not the root: the caller opens it).
      if (rel !== "") extraDirs.push(rel);
      return false;
    }
    let clean = stat.ctimeNs < freshNs;
    for (const child of children) {
      const path = rel === "" ? child.name : `${rel}/${child.name}`;
      if (path === ".git") continue;
      if (child.isDirectory()) {
        if (ancestors.has(path)) {
          if (!visit(path)) clean = false;
        } else {
          extraDirs.push(path);
          clean = false;
        }
        continue;
      }
      const kind = child.isFile() ? "file" : child.isSymbolicLink() ? "symlink" : "other";
      if (named.get(path) !== kind) {
        extraFiles.push(path);
        clean = false;
      }
    }
    dirRecords.push(dirRecord(stat, clean));
    dirPaths.push(rel);
    return true;
  };
  visit("");
  const gone = [...byPath.keys()].filter((path) => !named.has(path));
  const dirs = { records: Buffer.concat(dirRecords), paths: dirPaths };
  const aligned =
    recorded.count === entries.length &&
    entries.every(([path], index) => byPath.get(path) === index);
  return {
    records,
    copy,
    rehashed,
    extraFiles,
    extraDirs,
    gone,
    dirs,
    aligned,
    copied: [],
    modesChecked: false,
    indexed: false,
  };
}

/** A folder's record (`room-manifest.ts`): inode, mtime, ctime, and the clean flag. */
function dirRecord(stat: BigIntStats, clean: boolean): Buffer {
  const out = Buffer.alloc(DIR_RECORD_BYTES);
  out.writeBigUInt64LE(stat.ino, 0);
  out.writeBigInt64LE(stat.mtimeNs, 8);
  out.writeBigInt64LE(stat.ctimeNs, 16);
  out.writeUInt32LE(clean ? 1 : 0, 24);
  return out;
}

/** The room entry's SHA-256 (the observer's hashers), or undefined when it cannot be read. */
function roomDigest(abs: string, stat: BigIntStats, buffer: Buffer): string | undefined {
  try {
    if (stat.isSymbolicLink()) return hashSymlink(abs);
    return hashRegularFileSync(abs, buffer).digest;
  } catch {
    return undefined;
  }
}

function kindOf(stat: BigIntStats): EntryState["kind"] | "other" {
  return stat.isFile() ? "file" : stat.isSymbolicLink() ? "symlink" : "other";
}

function lstatOrUndefined(abs: string): BigIntStats | undefined {
  try {
    return lstatSync(abs, { bigint: true });
  } catch {
    return undefined;
  }
}
