import { createHash, hash } from "node:crypto";
import type { ContentHasher, MutationRecord, TextSink } from "@turngate/core";
import { type NativeAddon, selectNative } from "./select.js";

/** Pieces joined into one string before they are hashed (as the pure sink does). */
const BATCH_PIECES = 1024;

/** `crypto.hash` (Node ≥ 20.12): one call, no Hash object. */
type OneShot = (algorithm: string, data: string, encoding: "hex") => string;
const oneShot: OneShot | undefined =
  typeof hash === "function" ? (hash as unknown as OneShot) : undefined;

/**
 * The ledger's SHA-256 on `node:crypto` (OpenSSL): the same digests as the pure
 * `@noble/hashes` default (strings as UTF-8, a lone surrogate as U+FFFD).
 */
export const NODE_CRYPTO_CONTENT_HASHER: ContentHasher = Object.freeze({
  sha256Hex: oneShot
    ? (text: string) => oneShot("sha256", text, "hex")
    : (text: string) => createHash("sha256").update(text, "utf8").digest("hex"),
  textSink(): TextSink {
    const h = createHash("sha256");
    let pieces: string[] = [];
    const drain = () => {
      if (pieces.length === 0) return;
      h.update(pieces.length === 1 ? (pieces[0] as string) : pieces.join(""), "utf8");
      pieces = [];
    };
    return {
      write(text: string) {
        pieces.push(text);
        if (pieces.length >= BATCH_PIECES) drain();
      },
      hex() {
        drain();
        return h.digest("hex");
      },
    };
  },
});

/**
 * The ledger's SHA-256 with `@turngate/native` (`sha2` with the CPU's SHA extensions): the
 * ledger's order and effect digest in one `ledgerDigest` call (rendering and sorting on the
 * addon's thread pool, then hashing: no JavaScript sort, no joined text) and a `textSink`
 * (one `sha256Concat` call) for other texts. A content digest of one short text is
 * `node:crypto`'s one-shot `hash` where Node has it: measured 100,000 texts of ~30 bytes,
 * 25–29 ms against 30–35 ms for one addon call each and 37–48 ms for one `sha256Batch`
 * (passing an array of strings costs more than the hashing); the digest is the same.
 */
export function nativeContentHasher(addon: NativeAddon): ContentHasher {
  return Object.freeze({
    sha256Hex: oneShot
      ? (text: string) => oneShot("sha256", text, "hex")
      : (text: string) => addon.sha256(text),
    ledgerDigest: (rows: readonly MutationRecord[]) => addon.ledgerDigest(rows),
    textSink(): TextSink {
      const chunks: string[] = [];
      let pieces: string[] = [];
      return {
        write(text: string) {
          pieces.push(text);
          if (pieces.length >= BATCH_PIECES) {
            chunks.push(pieces.join(""));
            pieces = [];
          }
        },
        hex() {
          if (pieces.length > 0) chunks.push(pieces.join(""));
          pieces = [];
          return addon.sha256Concat(chunks);
        },
      };
    },
  });
}

/**
 * The content hasher a Node host gives its ledgers (issue 17): the addon's when
 * {@link selectNative} picks it, `node:crypto`'s otherwise. Throws as `selectNative`
 * (`TURNGATE_NATIVE=1` without the addon, or a bad value).
 */
export function hostContentHasher(env: NodeJS.ProcessEnv = process.env): ContentHasher {
  const addon = selectNative(env);
  return addon === undefined ? NODE_CRYPTO_CONTENT_HASHER : nativeContentHasher(addon);
}
