import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync } from "node:fs";
import { open } from "node:fs/promises";
import { sha256Hex } from "./digest.js";

const CHUNK_BYTES = 256 * 1024;
// O_NOFOLLOW: a file swapped for a symlink after lstat is not followed (ELOOP instead).
// O_NONBLOCK: a file swapped for a FIFO after lstat does not hang the open.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Result of hashing one path: its digest and the stat the digest belongs to. */
export interface HashedFile {
  digest: string;
  stat: Stats;
}

function notRegular(absPath: string): Error {
  return Object.assign(new Error(`not a regular file: ${absPath}`), { code: "ENOTREGULAR" });
}

/**
 * Streams a regular file through SHA-256 in 256 KiB chunks, asynchronously (for large
 * files, so the event loop stays responsive).
 *
 * Input: absolute path. Output: lowercase hex digest plus the `fstat` of the opened file
 * (taken before reading). Throws the underlying Node error (`ENOENT`, `EACCES`, `ELOOP`
 * when the path is now a symlink, …) and an error with code `ENOTREGULAR` when the opened
 * object is not a regular file.
 */
export async function hashRegularFile(absPath: string): Promise<HashedFile> {
  const handle = await open(absPath, OPEN_FLAGS);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notRegular(absPath);
    const hash = createHash("sha256");
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(stat.size, 1)));
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
    return { digest: hash.digest("hex"), stat };
  } finally {
    await handle.close();
  }
}

/**
 * The same as {@link hashRegularFile}, synchronously, reading through the caller's
 * `buffer` (any size ≥ 1 byte). For small files: one async round trip per syscall costs
 * several times more than the read itself. Same results and errors.
 */
export function hashRegularFileSync(absPath: string, buffer: Buffer): HashedFile {
  const fd = openSync(absPath, OPEN_FLAGS);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notRegular(absPath);
    const hash = createHash("sha256");
    let total = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      total += bytesRead;
      // A short read that reaches the fstat size is the end of the file: no read(2) just to
      // meet EOF (one syscall in five for a small file). The native hasher has the same rule.
      if (bytesRead < buffer.length && total === stat.size) break;
    }
    return { digest: hash.digest("hex"), stat };
  } finally {
    closeSync(fd);
  }
}

/**
 * SHA-256 of a symlink's link text (raw bytes from `readlink`); the target is never
 * opened, so a link pointing outside the root is recorded without being read.
 * Throws the underlying Node error (`ENOENT`, `EINVAL` if the path is no longer a link).
 */
export function hashSymlink(absPath: string): string {
  return sha256Hex(readlinkSync(absPath, { encoding: "buffer" }));
}

/**
 * SHA-256 of the file at `absPath`, following symlinks (as git does for the config and
 * ignore files it reads), streamed through `buffer`-sized reads (default 256 KiB), so a
 * file over 2 GiB hashes instead of failing with `ERR_FS_FILE_TOO_LARGE`. Synchronous:
 * for small files read on the observer's synchronous paths.
 * Output: lowercase hex digest. Throws the underlying Node error (`ENOENT`, `EACCES`,
 * `EISDIR`, …).
 */
export function hashFileFollowingSync(
  absPath: string,
  buffer: Buffer = Buffer.allocUnsafe(CHUNK_BYTES),
): string {
  const fd = openSync(absPath, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const hash = createHash("sha256");
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
    return hash.digest("hex");
  } finally {
    closeSync(fd);
  }
}
