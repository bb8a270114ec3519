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
const U32 = 2 ** 32;
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
  const sorted = groups.map((map) => sortedKeys(map));
  const lengths = sorted.map((paths) => paths.map((path) => Buffer.byteLength(path, "utf8")));
  let total = HEADER;
  for (const group of lengths) for (const length of group) total += FIXED + 5 + 3 + length;
  const out = Buffer.allocUnsafe(total);
  out.write(SNAPSHOT_ENTRIES_MAGIC, 0, "latin1");
  out.writeUInt8(SNAPSHOT_ENTRIES_VERSION, 4);
  out.fill(0, 5, 8);
  out.writeUInt32LE(sorted[0]?.length ?? 0, 8);
  out.writeUInt32LE(sorted[1]?.length ?? 0, 12);
  let at = HEADER;
  for (let g = 0; g < 2; g++) {
    const map = groups[g] as ReadonlyMap<string, EntryState | OutsideEntry>;
    const paths = sorted[g] as string[];
    const sizes = lengths[g] as number[];
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i] as string;
      const e = map.get(path) as EntryState | OutsideEntry;
      const scope = "scope" in e ? e.scope : "source";
      const hashed = "hashed" in e ? e.hashed : true;
      if (!Number.isInteger(e.mode) || e.mode < 0 || e.mode > 0xffff) {
        throw invalid("entries", `mode out of range for ${path}: ${e.mode}`);
      }
      if (!Number.isInteger(e.size) || e.size < 0) {
        throw invalid("entries", `size must be a non-negative integer for ${path}`);
      }
      if (!Number.isInteger(e.ino) || e.ino < 0) {
        throw invalid("entries", `ino must be a non-negative integer for ${path}`);
      }
      const wide = e.size >= U40 || e.ino >= U48;
      out[at] =
        (e.kind === "symlink" ? 1 : 0) |
        (SCOPES.indexOf(scope) << 2) |
        (hashed ? 1 << 4 : 0) |
        (wide ? 1 << 7 : 0);
      out.writeUInt16LE(e.mode, at + 1);
      if (hashed) out.write(e.content_digest, at + 3, 32, "hex");
      else ZERO_DIGEST.copy(out, at + 3);
      at += 35;
      if (wide) {
        out.writeDoubleLE(e.size, at);
        out.writeDoubleLE(e.ino, at + 8);
        at += 16;
      } else {
        // u40 size, then u48 inode: a low u32 and the high byte(s).
        out.writeUInt32LE(e.size % U32, at);
        out[at + 4] = Math.floor(e.size / U32);
        out.writeUInt32LE(e.ino % U32, at + 5);
        out.writeUInt16LE(Math.floor(e.ino / U32), at + 9);
        at += 11;
      }
      out.writeDoubleLE(e.mtime_ms, at);
      out.writeDoubleLE(e.ctime_ms, at + 8);
      at += 16;
      const length = sizes[i] as number;
      for (let n = length; ; n >>>= 7) {
        if (n < 0x80) {
          out[at++] = n;
          break;
        }
        out[at++] = (n & 0x7f) | 0x80;
      }
      at += out.write(path, at, length, "utf8");
    }
  }
  return out.subarray(0, at);
}

/** The keys of `map` in code-unit order; sorted only when they are not already in order. */
function sortedKeys(map: ReadonlyMap<string, unknown>): string[] {
  const keys = [...map.keys()];
  for (let i = 1; i < keys.length; i++) {
    if (compareCodeUnits(keys[i - 1] as string, keys[i] as string) > 0) {
      return keys.sort(compareCodeUnits);
    }
  }
  return keys;
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
      if (at + FIXED > buf.length) throw invalid("entries", `${whereOf(g, i)}: cut short`);
      const flags = buf[at] as number;
      const mode = buf.readUInt16LE(at + 1);
      const wide = (flags & 0x80) !== 0;
      const scope = SCOPES[(flags >> 2) & 3] as OutsideScope | "source";
      const hashed = (flags & 0x10) !== 0;
      if ((flags & 0x62) !== 0)
        throw invalid("entries", `${whereOf(g, i)}: unknown flags ${flags}`);
      if (wide && at + FIXED + 5 > buf.length)
        throw invalid("entries", `${whereOf(g, i)}: cut short`);
      const digest = hashed ? buf.toString("hex", at + 3, at + 35) : "";
      let p = at + 35;
      const size = wide ? buf.readDoubleLE(p) : buf.readUInt32LE(p) + (buf[p + 4] as number) * U32;
      const ino = wide
        ? buf.readDoubleLE(p + 8)
        : buf.readUInt32LE(p + 5) + buf.readUInt16LE(p + 9) * U32;
      p += wide ? 16 : 11;
      const mtime = buf.readDoubleLE(p);
      const ctime = buf.readDoubleLE(p + 8);
      p += 16;
      let length = 0;
      for (let shift = 0; ; shift += 7) {
        if (p >= buf.length || shift > 21) throw invalid("entries", `${whereOf(g, i)}: cut short`);
        const byte = buf[p++] as number;
        length += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) break;
      }
      if (p + length > buf.length) throw invalid("entries", `${whereOf(g, i)}: cut short`);
      let path: string;
      if (isAscii(buf, p, p + length)) path = buf.toString("latin1", p, p + length);
      else {
        try {
          path = decoder.decode(buf.subarray(p, p + length));
        } catch {
          throw invalid("entries", `${whereOf(g, i)}: the path is not valid UTF-8`);
        }
      }
      if (path === "" || path.startsWith("/")) {
        throw invalid("entries", `${whereOf(g, i)}: the path must be relative`);
      }
      if (previous !== undefined && compareCodeUnits(previous, path) >= 0) {
        throw invalid("entries", `${whereOf(g, i)}: "${path}" is out of order or a duplicate`);
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
          throw invalid(
            "entries",
            `${whereOf(g, i)}: a source entry must be hashed, in scope source`,
          );
        }
        entries.set(path, state);
      } else {
        if (scope === "source")
          throw invalid("entries", `${whereOf(g, i)}: an outside entry has a scope`);
        if (entries.has(path))
          throw invalid("entries", `${whereOf(g, i)}: "${path}" is also a source entry`);
        outside.set(path, { ...state, scope, hashed });
      }
      at = p + length;
    }
  }
  if (at !== buf.length) throw invalid("entries", `${buf.length - at} trailing bytes`);
  return { entries, outside };
}

/** `entries[i]` or `outside[i]`, for an error message. */
function whereOf(group: number, i: number): string {
  return `${group === 0 ? "entries" : "outside"}[${i}]`;
}

/** Whether `buf[from, to)` holds only ASCII bytes (then latin1 decodes it as UTF-8 would). */
function isAscii(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if ((buf[i] as number) >= 0x80) return false;
  return true;
}

function invalid(field: string, message: string): WorkspaceObserverError {
  return new WorkspaceObserverError("invalid_snapshot", `snapshot.${field}: ${message}`, field);
}
