import { createHash, hash } from "node:crypto";
import {
  type ContentHasher,
  effectDigest,
  type MutationRecord,
  sortRecords,
  type TextSink,
} from "@turngate/core";
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
 * UTF-16 units of a ledger's fields above which its rows do not cross to the addon: they
 * cross as one joined string, and V8 caps a string at 2^29 − 24 units (≈ 3 million rows of
 * 170 characters). Bigger ledgers take {@link pureLedgerDigest}: the same order and digest.
 */
export const MAX_JOINED_UNITS = 2 ** 28;

/** Sum of the rows' tool, path and content digest lengths (UTF-16 units); NaN for a
 * malformed row (then the addon's call refuses it, naming the field). */
function joinedUnits(rows: readonly MutationRecord[]): number {
  let units = 0;
  for (const row of rows) units += row.tool.length + row.path.length + row.content_digest.length;
  return units;
}

/**
 * The ledger order (row indices) and effect digest of `rows` computed by the pure core
 * (`sortRecords`, `effectDigest`): what `ledgerDigest` returns, for ledgers too large to
 * cross to the addon as one string.
 */
function pureLedgerDigest(rows: readonly MutationRecord[]): { order: Uint32Array; digest: string } {
  const indexed = rows.map((r, index) => ({
    tool: r.tool,
    path: r.path,
    content_digest: r.content_digest,
    index,
  }));
  const order = Uint32Array.from(sortRecords(indexed), (r) => r.index);
  return { order, digest: effectDigest(rows) };
}

/**
 * The ledger's SHA-256 with `@turngate/native` (`sha2` with the CPU's SHA extensions): the
 * ledger's order and effect digest in one `ledgerDigest` call (rendering and sorting on the
 * addon's thread pool, then hashing: no JavaScript sort, no joined text) and a `textSink`
 * (one `sha256Concat` call) for other texts. A content digest of one short text is
 * `node:crypto`'s one-shot `hash` where Node has it: measured 100,000 texts of ~30 bytes,
 * 25–29 ms against 30–35 ms for one addon call each and 37–48 ms for one `sha256Batch`
 * (passing an array of strings costs more than the hashing); the digest is the same.
 * `options.maxJoinedUnits` (default {@link MAX_JOINED_UNITS}; tests lower it): ledgers whose
 * fields add up to more UTF-16 units are ordered and digested by the pure core instead.
 */
export function nativeContentHasher(
  addon: NativeAddon,
  options: { maxJoinedUnits?: number } = {},
): ContentHasher {
  const maxJoinedUnits = options.maxJoinedUnits ?? MAX_JOINED_UNITS;
  return Object.freeze({
    sha256Hex: oneShot
      ? (text: string) => oneShot("sha256", text, "hex")
      : (text: string) => addon.sha256(text),
    ledgerDigest: (rows: readonly MutationRecord[]) =>
      joinedUnits(rows) <= maxJoinedUnits ? addon.ledgerDigest(rows) : pureLedgerDigest(rows),
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
