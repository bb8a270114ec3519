import { createHash } from "node:crypto";

/**
 * Content digest recorded for a path that existed in the baseline and is gone now.
 *
 * A fixed marker, deliberately not 64 hex characters, so it can never collide with the
 * SHA-256 of real bytes (DESIGN §3: "a fixed marker for a deleted file").
 * TODO(lead): replace with `DELETED_CONTENT_DIGEST` from @turngate/core once core exports it;
 * this is the only place the value is defined in @turngate/node.
 */
export const DELETED_CONTENT_DIGEST = "deleted";

/** Lowercase hex SHA-256 (64 chars, no prefix) of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
