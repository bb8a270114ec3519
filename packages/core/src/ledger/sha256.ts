import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";

const HEX_CODES = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));

/**
 * Lowercase hex of `bytes` as one flat string (built from char codes in one call, not by
 * concatenating 2-character pieces, which leaves a deep rope that later costs a copy).
 */
export function toHex(bytes: Uint8Array): string {
  const codes = new Array<number>(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    codes[2 * i] = HEX_CODES[b >>> 4] as number;
    codes[2 * i + 1] = HEX_CODES[b & 15] as number;
  }
  return String.fromCharCode(...codes);
}

/** Lowercase 64-hex SHA-256 of the UTF-8 bytes of `text` (no `sha256:` prefix, A3S §2.2). */
export function sha256Hex(text: string): string {
  return toHex(sha256(utf8Bytes(text)));
}

/**
 * UTF-8 bytes of `text`. Short ASCII strings are copied code unit by code unit (much
 * cheaper than a TextEncoder call per small string); anything else goes to TextEncoder
 * (unpaired surrogates become U+FFFD, as TextEncoder does).
 */
export function utf8Bytes(text: string): Uint8Array {
  const n = text.length;
  if (n > 1024) return utf8ToBytes(text);
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return utf8ToBytes(text);
    bytes[i] = c;
  }
  return bytes;
}

const CHUNK_BYTES = 1 << 16;

/**
 * Incremental SHA-256 over the UTF-8 bytes of a sequence of strings: `write` pieces, then
 * `hex()`. Bytes go through one reused 64 KiB buffer (ASCII is copied code unit by code
 * unit; other pieces are UTF-8 encoded whole), so hashing a long ledger builds neither a
 * giant string nor per-row byte arrays. `hex()` equals `sha256Hex(pieces.join(""))` as long
 * as no piece ends inside a surrogate pair that the next piece completes.
 */
export class Sha256Utf8Sink {
  readonly #hash = sha256.create();
  readonly #buffer = new Uint8Array(CHUNK_BYTES);
  #length = 0;

  /** Appends the UTF-8 bytes of `text`. */
  write(text: string): void {
    const n = text.length;
    if (this.#length + n > CHUNK_BYTES) this.#drain();
    if (n > CHUNK_BYTES) {
      this.#hash.update(utf8ToBytes(text));
      return;
    }
    const buffer = this.#buffer;
    let pos = this.#length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) {
        // Not ASCII: encode the whole piece instead (rare in paths and digests).
        this.#writeBytes(utf8ToBytes(text));
        return;
      }
      buffer[pos++] = c;
    }
    this.#length = pos;
  }

  /**
   * Appends `text` and returns true when every code unit is printable ASCII (U+0020–U+007E)
   * other than `\` and `|` — i.e. text that the ledger's field escaping leaves unchanged;
   * otherwise writes nothing and returns false. (The fast path of the effect digest.)
   */
  writePlainField(text: string): boolean {
    const n = text.length;
    if (n > CHUNK_BYTES) return false;
    if (this.#length + n > CHUNK_BYTES) this.#drain();
    const buffer = this.#buffer;
    let pos = this.#length;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 0x5c || c === 0x7c) return false;
      buffer[pos++] = c;
    }
    this.#length = pos;
    return true;
  }

  /** The lowercase hex digest; the sink cannot be written after this. */
  hex(): string {
    this.#drain();
    return toHex(this.#hash.digest());
  }

  #writeBytes(bytes: Uint8Array): void {
    if (this.#length + bytes.length > CHUNK_BYTES) this.#drain();
    if (bytes.length > CHUNK_BYTES) this.#hash.update(bytes);
    else {
      this.#buffer.set(bytes, this.#length);
      this.#length += bytes.length;
    }
  }

  #drain(): void {
    if (this.#length > 0) this.#hash.update(this.#buffer.subarray(0, this.#length));
    this.#length = 0;
  }
}
