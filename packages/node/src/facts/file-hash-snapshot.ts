/**
 * File-hash snapshots of workspace paths (harn-verification.md §1.1, §2.1, §3.1): the
 * content hashes a diagnostic binds to, so staleness can be judged later.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import {
  FILE_HASH_SNAPSHOT_MAX_PATHS,
  type FileHashSnapshot,
  type FileHashSnapshotEntry,
  Fnv1a64,
  TurngateValidationError,
} from "@turngate/core";

/** Hash algorithms: `fnv1a64` (Harn-compatible unsigned decimal) or `sha256` (lowercase hex). */
export type FileHashAlgorithm = "fnv1a64" | "sha256";

/**
 * What the snapshot reads of a code index (see `CodeIndex`): its `seq`, and per path the
 * indexed size (bytes), mtime (ms), FNV-1a 64 `hash`, `sha256` and `last_edit_seq`.
 */
export interface FileHashIndex {
  readonly seq: number;
  file(
    path: string,
  ):
    | { size: number; mtime_ms: number; hash: string; sha256: string; last_edit_seq: number }
    | undefined;
}

export interface FileHashSnapshotOptions {
  /** The code index: fills `seq`, `known`, `indexed_*`, `last_edit_seq` and the `indexed` fast path. */
  index?: FileHashIndex;
  /** Default `fnv1a64`. */
  algorithm?: FileHashAlgorithm;
  /** Clock for `captured_at_ms` (ms since the epoch); default `Date.now`. */
  now?: () => number;
  /** Files read at once; default 16. */
  concurrency?: number;
}

const READ_CHUNK_BYTES = 64 * 1024;

function invalid(path: string, message: string): never {
  throw new TurngateValidationError("file-hash snapshot request", [{ path, message }]);
}

function inside(base: string, target: string): string | null {
  const rel = relative(base, target);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel;
}

const toSlash = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

interface Hasher {
  update(bytes: Uint8Array): void;
  digest(): string;
}

function hasher(algorithm: FileHashAlgorithm): Hasher {
  if (algorithm === "fnv1a64") return new Fnv1a64();
  const h = createHash("sha256");
  return { update: (b) => void h.update(b), digest: () => h.digest("hex") };
}

async function hashFile(
  real: string,
  algorithm: FileHashAlgorithm,
  indexed?: { size: number; mtime_ms: number; hash: string },
): Promise<{ hash: string; size: number; mtimeMs: number; fromIndex: boolean } | null> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // O_NOFOLLOW: the resolved path must not have become a symlink; O_NONBLOCK: a FIFO
    // must not block the open (it is then rejected as not a regular file).
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile()) return null;
    // Harn §1.1 step 6: same size and mtime as indexed → the indexed hash, no read.
    if (
      indexed !== undefined &&
      info.size === indexed.size &&
      Math.trunc(info.mtimeMs) === indexed.mtime_ms
    ) {
      return { hash: indexed.hash, size: indexed.size, mtimeMs: indexed.mtime_ms, fromIndex: true };
    }
    const h = hasher(algorithm);
    const buffer = new Uint8Array(READ_CHUNK_BYTES);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      h.update(buffer.subarray(0, bytesRead));
      size += bytesRead;
    }
    return { hash: h.digest(), size, mtimeMs: Math.trunc(info.mtimeMs), fromIndex: false };
  } catch {
    return null;
  } finally {
    await handle?.close().catch(() => {});
  }
}

async function entryFor(
  input: string,
  root: string,
  rootReal: string,
  algorithm: FileHashAlgorithm,
  index: FileHashIndex | undefined,
): Promise<FileHashSnapshotEntry> {
  const absolute = isAbsolute(input) ? resolve(input) : resolve(root, input);
  const rel = inside(root, absolute) ?? inside(rootReal, absolute);
  const path = rel === null ? toSlash(input) : toSlash(rel);
  const row = rel === null ? undefined : index?.file(path);
  const indexedHash = row === undefined ? null : algorithm === "fnv1a64" ? row.hash : row.sha256;
  const missing: FileHashSnapshotEntry = {
    path,
    known: row !== undefined,
    readable: false,
    hash: null,
    hash_source: "missing",
    size: null,
    mtime_ms: null,
    indexed_hash: indexedHash,
    indexed_mtime_ms: row?.mtime_ms ?? null,
    last_edit_seq: row?.last_edit_seq ?? 0,
  };
  if (rel === null) return missing;
  let real: string;
  try {
    real = await realpath(absolute);
  } catch {
    return missing;
  }
  // A path that leaves the workspace through a symlink is never read.
  if (inside(rootReal, real) === null) return missing;
  const fast =
    row === undefined || indexedHash === null
      ? undefined
      : { size: row.size, mtime_ms: row.mtime_ms, hash: indexedHash };
  const read = await hashFile(real, algorithm, fast);
  if (read === null) return missing;
  return {
    ...missing,
    readable: true,
    hash: read.hash,
    hash_source: read.fromIndex ? "indexed" : "disk",
    size: read.size,
    mtime_ms: read.mtimeMs,
  };
}

/**
 * Hashes the current bytes of `paths` under the workspace `root` (harn-verification.md
 * §1.1; shape §2.1).
 *
 * Input: `root` — an existing directory; `paths` — 1 to 4,096 non-empty strings, relative
 * to `root` or absolute; `options.algorithm` — `fnv1a64` (default; decimal FNV-1a 64 as
 * Harn) or `sha256` (lowercase hex). Output: `{seq: 0, captured_at_ms, algorithm,
 * snapshot: {path: hash}, missing: [path], files: [entry]}` with one `files` entry per
 * input path in input order (`size` in bytes, `mtime_ms` truncated ms, `hash_source`
 * `indexed`, `disk` or `missing`). Without `options.index`, `known` is false, `indexed_*`
 * null and `seq`/`last_edit_seq` 0; with it (Harn §1.1 steps 6 and 8): `seq` = the index's
 * current seq, `known` = the path is indexed, `indexed_hash` / `indexed_mtime_ms` its
 * indexed values (SHA-256 hex for `sha256`), `last_edit_seq` its newest log entry, and a file
 * whose size and mtime equal the indexed ones is `indexed` without being read. Keys are workspace-relative with `/`; a path outside the root
 * keeps its input form. Paths outside the root — lexically or through a symlink — and
 * unreadable, missing or non-regular files are `missing` and never read.
 *
 * Throws `TurngateValidationError` (`code: "invalid_input"`, `path` = `root`, `paths`,
 * `paths.<i>` or `options.algorithm`) for bad arguments, including an empty list or more
 * than 4,096 paths (Harn's host limits).
 */
export async function fileHashSnapshot(
  root: string,
  paths: readonly string[],
  options: FileHashSnapshotOptions = {},
): Promise<FileHashSnapshot> {
  const algorithm = options.algorithm ?? "fnv1a64";
  if (algorithm !== "fnv1a64" && algorithm !== "sha256")
    invalid("options.algorithm", 'must be "fnv1a64" or "sha256"');
  if (typeof root !== "string" || root === "") invalid("root", "must be a non-empty string");
  if (!Array.isArray(paths)) invalid("paths", "must be a list of strings");
  if (paths.length === 0) invalid("paths", "must contain at least one path");
  if (paths.length > FILE_HASH_SNAPSHOT_MAX_PATHS) {
    invalid("paths", `must contain at most ${FILE_HASH_SNAPSHOT_MAX_PATHS} paths`);
  }
  paths.forEach((p, i) => {
    if (typeof p !== "string") invalid(`paths.${i}`, "must be a string");
    if (p === "") invalid(`paths.${i}`, "must not be empty");
    if (p.includes("\0")) invalid(`paths.${i}`, "must not contain a NUL character");
  });
  const rootAbs = resolve(root);
  let rootReal: string;
  try {
    rootReal = await realpath(rootAbs);
    if (!(await stat(rootReal)).isDirectory()) invalid("root", "must be a directory");
  } catch (err) {
    if (err instanceof TurngateValidationError) throw err;
    invalid("root", `cannot be read: ${(err as Error).message}`);
  }
  const capturedAt = (options.now ?? Date.now)();
  const files: FileHashSnapshotEntry[] = new Array(paths.length);
  const limit = Math.max(1, Math.min(options.concurrency ?? 16, paths.length));
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < paths.length) {
        const i = next++;
        files[i] = await entryFor(paths[i] as string, rootAbs, rootReal, algorithm, options.index);
      }
    }),
  );
  const snapshot: Record<string, string> = {};
  const missing: string[] = [];
  for (const f of files) {
    if (f.hash !== null) snapshot[f.path] = f.hash;
    else missing.push(f.path);
  }
  const seq = options.index?.seq ?? 0;
  return { seq, captured_at_ms: capturedAt, algorithm, snapshot, missing, files };
}
