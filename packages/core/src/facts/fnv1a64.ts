import { updateUtf8 } from "../ledger/sha256.js";

/**
 * FNV-1a 64-bit content hash, rendered as an unsigned decimal string (reference
 * harn-verification.md §3.1): offset basis 14695981039346656037, prime 1099511628211,
 * XOR each raw byte then multiply mod 2^64. Same value as Harn's code-index file hash.
 *
 * The 64-bit state is kept as two 32-bit halves so hashing costs a few ns per byte
 * (no BigInt per byte); BigInt is used only to render the final decimal string.
 */

const OFFSET_HI = 0xcbf29ce4;
const OFFSET_LO = 0x84222325;
const TWO_32 = 0x1_0000_0000;

/** Incremental FNV-1a 64 hasher: feed byte chunks with `update`, read with `digest`. */
export class Fnv1a64 {
  private hi = OFFSET_HI;
  private lo = OFFSET_LO;

  /** Folds `bytes` into the state; returns `this` for chaining. */
  update(bytes: Uint8Array): this {
    let hi = this.hi;
    let lo = this.lo;
    for (let i = 0; i < bytes.length; i++) {
      lo = (lo ^ (bytes[i] as number)) >>> 0;
      // (hi·2^32 + lo) · (2^40 + 0x1b3) mod 2^64
      const loProduct = lo * 0x1b3;
      const carry = Math.floor(loProduct / TWO_32);
      hi = (hi * 0x1b3 + carry + ((lo << 8) >>> 0)) >>> 0;
      lo = loProduct >>> 0;
    }
    this.hi = hi;
    this.lo = lo;
    return this;
  }

  /**
   * Folds the UTF-8 bytes of `text` into the state (a lone surrogate is encoded as
   * U+FFFD, as `TextEncoder` does); returns `this`.
   */
  updateString(text: string): this {
    updateUtf8(this, text);
    return this;
  }

  /** The hash of every byte fed so far, as an unsigned decimal string. */
  digest(): string {
    return ((BigInt(this.hi) << 32n) | BigInt(this.lo)).toString();
  }
}

/**
 * FNV-1a 64 of `input`: a `Uint8Array` is hashed as raw bytes; a string is hashed as its
 * UTF-8 bytes (no newline or BOM normalization). Returns the unsigned decimal string, e.g.
 * `fnv1a64("")` → `"14695981039346656037"`, `fnv1a64("hello world")` →
 * `"8618312879776256743"`. Implements harn-verification.md §3.1.
 */
export function fnv1a64(input: Uint8Array | string): string {
  const h = new Fnv1a64();
  return (typeof input === "string" ? h.updateString(input) : h.update(input)).digest();
}
