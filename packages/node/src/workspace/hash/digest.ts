import { createHash } from "node:crypto";

/**
 * Lowercase hex SHA-256 (64 chars, no prefix) of `bytes`; a string is hashed as its UTF-8
 * bytes. Never throws. The one node-side SHA-256 helper (file digests, reference §2.5).
 */
export function sha256Hex(bytes: string | Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
