import { TurngateValidationError } from "../errors.js";
import type { MutationRecord } from "../schemas/ledger.js";
import { Sha256TextSink, sha256Hex } from "./sha256.js";

/** An incremental SHA-256 over the UTF-8 bytes of a sequence of strings. */
export interface TextSink {
  /** Appends the UTF-8 bytes of `text` (a lone surrogate as U+FFFD). */
  write(text: string): void;
  /** The lowercase 64-hex digest of everything written; the sink is done after this. */
  hex(): string;
}

/**
 * The SHA-256 the mutation ledger uses for content digests (A3S §2.2) and the effect digest
 * (issue 17: injectable, so a host can give a faster one; `@turngate/node` injects the
 * native addon's or `node:crypto`'s). Every implementation must return exactly what
 * {@link NOBLE_CONTENT_HASHER} returns for every input, including texts with lone
 * surrogates (encoded as U+FFFD, as `TextEncoder` does).
 */
export interface ContentHasher {
  /** Lowercase 64-hex SHA-256 of the UTF-8 bytes of `text`. */
  sha256Hex(text: string): string;
  /** A fresh {@link TextSink}. */
  textSink(): TextSink;
  /**
   * Optional (issue 17): the ledger order and the effect digest of rows in one call, for a
   * host whose hasher can also sort and render (the native addon). Must return `order`,
   * the indices of `rows` sorted by path and then tool in code-point order (stable: equal
   * rows keep index order), and `digest`, exactly what `digestOfLedgerRows` gives for the
   * rows in that order (`""` for none). The ledger checks that `order` is a permutation;
   * the rest is the implementation's promise, proven by a property test against the pure
   * path.
   */
  ledgerDigest?(rows: readonly MutationRecord[]): LedgerOrderDigest;
}

/** What {@link ContentHasher.ledgerDigest} returns. */
export interface LedgerOrderDigest {
  /** Row indices in ledger order. */
  order: Uint32Array;
  /** Lowercase 64-hex effect digest of the rows in that order; `""` for no rows. */
  digest: string;
}

/**
 * The pure default: `@noble/hashes` SHA-256 (runs unchanged in Node, browsers and
 * Pyodide's JS host; docs/design.md §2).
 */
export const NOBLE_CONTENT_HASHER: ContentHasher = Object.freeze({
  sha256Hex,
  textSink: () => new Sha256TextSink(),
});

/**
 * Validates a `hasher` option. Input: anything. Output: the hasher, or
 * {@link NOBLE_CONTENT_HASHER} when absent. Throws `TurngateValidationError` (path
 * `hasher`) when it is present without the two functions.
 */
export function toContentHasher(value: unknown): ContentHasher {
  if (value === undefined || value === null) return NOBLE_CONTENT_HASHER;
  const h = value as Partial<ContentHasher>;
  if (h.ledgerDigest !== undefined && typeof h.ledgerDigest !== "function") {
    throw new TurngateValidationError("ledger options", [
      { path: "hasher.ledgerDigest", message: "expected a function when present" },
    ]);
  }
  if (typeof h.sha256Hex !== "function" || typeof h.textSink !== "function") {
    throw new TurngateValidationError("ledger options", [
      {
        path: "hasher",
        message: "expected an object with sha256Hex(text) and textSink() functions",
      },
    ]);
  }
  return h as ContentHasher;
}
