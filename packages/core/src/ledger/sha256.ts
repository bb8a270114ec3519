import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";

/** Lowercase 64-hex SHA-256 of the UTF-8 bytes of `text` (no `sha256:` prefix, A3S §2.2). */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/**
 * Incremental SHA-256 over a sequence of strings: `push` text pieces, then `hex()`.
 * Pieces are buffered into ~64 KiB chunks so a long ledger is never copied into one
 * giant string; the result equals `sha256Hex(pieces.join(""))`.
 */
export class Sha256TextHasher {
  readonly #hash = sha256.create();
  #buffer = "";

  push(text: string): void {
    this.#buffer += text;
    if (this.#buffer.length >= 65536) {
      this.#hash.update(utf8ToBytes(this.#buffer));
      this.#buffer = "";
    }
  }

  hex(): string {
    if (this.#buffer !== "") this.#hash.update(utf8ToBytes(this.#buffer));
    this.#buffer = "";
    return bytesToHex(this.#hash.digest());
  }
}
