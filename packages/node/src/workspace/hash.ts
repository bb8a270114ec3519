import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { constants } from "node:fs";
import { open, readlink } from "node:fs/promises";
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

/**
 * Streams a regular file through SHA-256 in 256 KiB chunks.
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
    if (!stat.isFile()) {
      throw Object.assign(new Error(`not a regular file: ${absPath}`), { code: "ENOTREGULAR" });
    }
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
 * SHA-256 of a symlink's link text (raw bytes from `readlink`); the target is never
 * opened, so a link pointing outside the root is recorded without being read.
 * Throws the underlying Node error (`ENOENT`, `EINVAL` if the path is no longer a link).
 */
export async function hashSymlink(absPath: string): Promise<string> {
  const target = await readlink(absPath, { encoding: "buffer" });
  return sha256Hex(target);
}
