/**
 * The stdio server's SHA-256 for hashing methods (issue #17 item 5: bridge per-call cost):
 * `node:crypto` (OpenSSL) instead of core's pure `@noble/hashes`, which is most of a small
 * `ledger.digest` call. Same digest for every text: Node encodes a string as UTF-8 with a
 * lone surrogate as U+FFFD, as `TextEncoder` (and so core) does.
 */
import { createHash, hash } from "node:crypto";

/** `crypto.hash` (Node ≥ 20.12): one call, no Hash object. */
type OneShot = (algorithm: string, data: string, encoding: "hex") => string;
const oneShot = (typeof hash === "function" ? hash : undefined) as OneShot | undefined;

/** Lowercase 64-hex SHA-256 of the UTF-8 bytes of `text`. Never throws. */
export const nodeSha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot("sha256", text, "hex")
  : (text) => createHash("sha256").update(text, "utf8").digest("hex");
