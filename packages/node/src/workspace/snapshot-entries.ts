import { WorkspaceObserverError } from "./errors.js";
import {
  compareCodeUnits,
  type EntryState,
  type OutsideEntry,
  type OutsideScope,
  type WorkspaceSnapshot,
} from "./snapshot.js";

/**
 * The binary form of a snapshot's entries (issue 33 item 3, docs/design.md §3b "Gapless turns"): the bulk of
 * a stored baseline or turn chain, 20,000 files in about 1.7 MB instead of 6.7 MB of JSON,
 * read without a JSON parse. Layout, little-endian:
 *
 * - header (16 bytes): `TGSE`, version `1`, 3 zero bytes, the source entry count (u32),
 *   the outside entry count (u32);
 * - one record per entry, source entries first, each group sorted by path (UTF-16 code
 *   units): flags (u8: bit 0 symlink, bits 2–3 scope — 0 source, 1 ignored, 2 output,
 *   3 harness —, bit 4 hashed, bit 7 wide), mode (u16), the SHA-256 digest (32 bytes; zeros
 *   when not hashed), size (u40) and inode (u48), or both as f64 when wide (a size of 2^40
 *   bytes or an inode of 2^48 or more), mtime and ctime (f64 ms each), the path's length in
 *   bytes (LEB128: one byte under 128 bytes) and the path (UTF-8).
 *
 * That is 62 bytes per entry plus its path and length (67 when wide).
 */
export const SNAPSHOT_ENTRIES_MAGIC = "TGSE";

/** The format version written in the header. */
export const SNAPSHOT_ENTRIES_VERSION = 1;

const HEADER = 16;
/** flags, mode, digest, size, inode, mtime, ctime (not wide). */
const FIXED = 62;
const U40 = 2 ** 40;
const U48 = 2 ** 48;
const SCOPES: readonly (OutsideScope | "source")[] = ["source", "ignored", "output", "harness"];
const ZERO_DIGEST = Buffer.alloc(32);

/**
 * Encodes the entries and outside entries of `snapshot` in the binary form described by
 * {@link SNAPSHOT_ENTRIES_MAGIC}. Input: a snapshot. Output: the bytes. Throws
 * {@link WorkspaceObserverError} `invalid_snapshot` (field `entries`) for a mode above
 * 65,535, or a negative or non-integer size or inode.
 */
export function encodeSnapshotEntries(snapshot: WorkspaceSnapshot): Buffer {
  const groups = [snapshot.entries, snapshot.outside] as const;
  const sorted = groups.map((map) => [...map.keys()].sort(compareCodeUnits));
  const names = sorted.map((paths) => paths.map((path) => Buffer.from(path, "utf8")));
  let total = HEADER;
  for (const group of names) for (const name of group) total += FIXED + 5 + 3 + name.length;
  const out = Buffer.allocUnsafe(total);
  out.write(SNAPSHOT_ENTRIES_MAGIC, 0, "latin1");
  out.writeUInt8(SNAPSHOT_ENTRIES_VERSION, 4);
  out.fill(0, 5, 8);
  out.writeUInt32LE(sorted[0]?.length ?? 0, 8);
  out.writeUInt32LE(sorted[1]?.length ?? 0, 12);
  let at = HEADER;
  for (const [g, paths] of sorted.entries()) {
    const map = groups[g] as ReadonlyMap<string, EntryState | OutsideEntry>;
    for (const [i, path] of paths.entries()) {
      const e = map.get(path) as EntryState | OutsideEntry;
      const name = (names[g] as Buffer[])[i] as Buffer;
      const scope = "scope" in e ? e.scope : "source";
      const hashed = "hashed" in e ? e.hashed : true;
      if (!Number.isInteger(e.mode) || e.mode < 0 || e.mode > 0xffff) {
        throw invalid("entries", `mode out of range for ${path}: ${e.mode}`);
      }
      for (const [field, value] of [
        ["size", e.size],
        ["ino", e.ino],
      ] as const) {
        if (!Number.isInteger(value) || value < 0) {
          throw invalid("entries", `${field} must be a non-negative integer for ${path}`);
        }
      }
      const wide = e.size >= U40 || e.ino >= U48;
      out.writeUInt8(
        (e.kind === "symlink" ? 1 : 0) |
          (SCOPES.indexOf(scope) << 2) |
          (hashed ? 1 << 4 : 0) |
          (wide ? 1 << 7 : 0),
        at,
      );
      out.writeUInt16LE(e.mode, at + 1);
      if (hashed) out.write(e.content_digest, at + 3, 32, "hex");
      else ZERO_DIGEST.copy(out, at + 3);
      at += 35;
      if (wide) {
        out.writeDoubleLE(e.size, at);
        out.writeDoubleLE(e.ino, at + 8);
        at += 16;
      } else {
        out.writeUIntLE(e.size, at, 5);
        out.writeUIntLE(e.ino, at + 5, 6);
        at += 11;
      }
      out.writeDoubleLE(e.mtime_ms, at);
      out.writeDoubleLE(e.ctime_ms, at + 8);
      at += 16;
      for (let n = name.length; ; n >>>= 7) {
        if (n < 0x80) {
          out.writeUInt8(n, at++);
          break;
        }
        out.writeUInt8((n & 0x7f) | 0x80, at++);
      }
      name.copy(out, at);
      at += name.length;
    }
  }
  return out.subarray(0, at);
}

/**
 * Decodes the output of {@link encodeSnapshotEntries}. Input: the bytes. Output: the source
 * entries and the outside entries, as in a {@link WorkspaceSnapshot}. Throws
 * {@link WorkspaceObserverError} `invalid_snapshot` naming what is wrong (field `entries`):
 * a wrong magic or version, a record cut short or trailing bytes, a path that is empty,
 * absolute, not valid UTF-8 or out of order (duplicates included), a source entry with an
 * outside scope or not hashed, an outside path that is also a source entry.
 */
export function decodeSnapshotEntries(bytes: Uint8Array): {
  entries: Map<string, EntryState>;
  outside: Map<string, OutsideEntry>;
} {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < HEADER || buf.toString("latin1", 0, 4) !== SNAPSHOT_ENTRIES_MAGIC) {
    throw invalid("entries", `not a snapshot entries file (no ${SNAPSHOT_ENTRIES_MAGIC} header)`);
  }
  if (buf.readUInt8(4) !== SNAPSHOT_ENTRIES_VERSION) {
    throw invalid("entries", `unknown snapshot entries version ${buf.readUInt8(4)}`);
  }
  const counts = [buf.readUInt32LE(8), buf.readUInt32LE(12)];
  const entries = new Map<string, EntryState>();
  const outside = new Map<string, OutsideEntry>();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let at = HEADER;
  for (const [g, count] of counts.entries()) {
    let previous: string | undefined;
    for (let i = 0; i < (count as number); i++) {
      const where = `${g === 0 ? "entries" : "outside"}[${i}]`;
      if (at + FIXED > buf.length) throw invalid("entries", `${where}: cut short`);
      const flags = buf.readUInt8(at);
      const mode = buf.readUInt16LE(at + 1);
      const wide = (flags & 0x80) !== 0;
      const scope = SCOPES[(flags >> 2) & 3] as OutsideScope | "source";
      const hashed = (flags & 0x10) !== 0;
      if ((flags & 0x62) !== 0) throw invalid("entries", `${where}: unknown flags ${flags}`);
      if (wide && at + FIXED + 5 > buf.length) throw invalid("entries", `${where}: cut short`);
      const digest = hashed ? buf.toString("hex", at + 3, at + 35) : "";
      let p = at + 35;
      const size = wide ? buf.readDoubleLE(p) : buf.readUIntLE(p, 5);
      const ino = wide ? buf.readDoubleLE(p + 8) : buf.readUIntLE(p + 5, 6);
      p += wide ? 16 : 11;
      const mtime = buf.readDoubleLE(p);
      const ctime = buf.readDoubleLE(p + 8);
      p += 16;
      let length = 0;
      for (let shift = 0; ; shift += 7) {
        if (p >= buf.length || shift > 21) throw invalid("entries", `${where}: cut short`);
        const byte = buf.readUInt8(p++);
        length += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) break;
      }
      if (p + length > buf.length) throw invalid("entries", `${where}: cut short`);
      let path: string;
      try {
        path = decoder.decode(buf.subarray(p, p + length));
      } catch {
        throw invalid("entries", `${where}: the path is not valid UTF-8`);
      }
      if (path === "" || path.startsWith("/")) {
        throw invalid("entries", `${where}: the path must be relative`);
      }
      if (previous !== undefined && compareCodeUnits(previous, path) >= 0) {
        throw invalid("entries", `${where}: "${path}" is out of order or a duplicate`);
      }
      previous = path;
      const state: EntryState = {
        kind: (flags & 1) === 1 ? "symlink" : "file",
        content_digest: digest,
        size,
        mtime_ms: mtime,
        ctime_ms: ctime,
        ino,
        mode,
      };
      if (g === 0) {
        if (scope !== "source" || !hashed) {
          throw invalid("entries", `${where}: a source entry must be hashed, in scope source`);
        }
        entries.set(path, state);
      } else {
        if (scope === "source") throw invalid("entries", `${where}: an outside entry has a scope`);
        if (entries.has(path))
          throw invalid("entries", `${where}: "${path}" is also a source entry`);
        outside.set(path, { ...state, scope, hashed });
      }
      at = p + length;
    }
  }
  if (at !== buf.length) throw invalid("entries", `${buf.length - at} trailing bytes`);
  return { entries, outside };
}

function invalid(field: string, message: string): WorkspaceObserverError {
  return new WorkspaceObserverError("invalid_snapshot", `snapshot.${field}: ${message}`, field);
}
