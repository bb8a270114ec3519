import { dirname } from "node:path";
import writeFileAtomicLib from "write-file-atomic";
import { ensureDirectory } from "./ensure-dir.js";

/**
 * Write `data` to `path` atomically: the bytes go to a temporary file in the same folder,
 * are fsynced and then renamed over `path`, so a reader sees the old file or the whole new
 * one, never a prefix. Missing parent folders are created (`ensureDirectory`: a new
 * `.turngate/` gets its `.gitignore`).
 *
 * Input: a file path and a string (UTF-8) or bytes.
 * Output: resolves once the rename is done.
 * Errors: rejects with the underlying `fs` error (e.g. `EACCES`, `ENOSPC`).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await ensureDirectory(dirname(path));
  const bytes =
    typeof data === "string" ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  await writeFileAtomicLib(path, bytes, { fsync: true });
}

/**
 * Write `value` as JSON (2-space indent, trailing newline) to `path` atomically, creating
 * missing parent folders. Key order is the object's own order.
 *
 * Errors: rejects with the `fs` error, or a `TypeError` when `value` cannot be serialised
 * (a cycle or a BigInt).
 */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}
