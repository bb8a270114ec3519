import { _SHA256 } from "@noble/hashes/sha2.js";

/** The two globals of the WHATWG Encoding standard this module uses (Node, browsers, Pyodide's JS host). */
interface EncodingGlobals {
  TextEncoder: new () => {
    encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
  };
  TextDecoder: new () => { decode(input: Uint8Array): string };
}

const ENCODING = globalThis as unknown as EncodingGlobals;
const ENCODER = new ENCODING.TextEncoder();
const DECODER = new ENCODING.TextDecoder();

/** Scratch for UTF-8 encoding (bytes); text longer than a third of it is encoded in pieces. */
const SCRATCH = new Uint8Array(1 << 16);

/**
 * Each byte's two lowercase hex digits as one 16-bit unit whose in-memory bytes are the two
 * ASCII characters in order (built through a byte view, so it holds on any endianness).
 */
const HEX_PAIRS = new Uint16Array(256);
{
  const digits = "0123456789abcdef";
  const bytes = new Uint8Array(HEX_PAIRS.buffer);
  for (let b = 0; b < 256; b++) {
    bytes[2 * b] = digits.charCodeAt(b >>> 4);
    bytes[2 * b + 1] = digits.charCodeAt(b & 15);
  }
}
const HEX_TEXT = new Uint8Array(64);
const HEX_TEXT_PAIRS = new Uint16Array(HEX_TEXT.buffer);

/** Lowercase hex of the first 32 bytes of `bytes` (a SHA-256 digest) as one flat string. */
function hex32(bytes: Uint8Array): string {
  for (let i = 0; i < 32; i++) HEX_TEXT_PAIRS[i] = HEX_PAIRS[bytes[i] as number] as number;
  return DECODER.decode(HEX_TEXT);
}

/** Texts up to this many UTF-16 units are copied unit by unit when they are ASCII. */
const SHORT_TEXT = 256;
/** `SCRATCH.subarray(0, n)` for n ≤ SHORT_TEXT, made once each (no view per hash). */
const SCRATCH_VIEWS: Uint8Array[] = [];

/** Anything that takes bytes synchronously and keeps no reference to them (SHA-256, FNV-1a). */
export interface ByteSink {
  update(bytes: Uint8Array): unknown;
}

/**
 * Internal helper (not exported from the package; facts/fnv1a64.ts reuses it).
 * Feeds the UTF-8 bytes of `text` to `hash` through the shared scratch buffer (unpaired
 * surrogates become U+FFFD, as `TextEncoder` does). A short ASCII text is copied unit by
 * unit (cheaper than a `TextEncoder` call); anything else goes through `encodeInto`, which
 * never splits a surrogate pair, so a long text is encoded piece by piece with the same
 * bytes as in one go.
 */
export function updateUtf8(hash: ByteSink, text: string): void {
  const n = text.length;
  if (n <= SHORT_TEXT) {
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) break;
      SCRATCH[i] = c;
    }
    if (i === n) {
      let view = SCRATCH_VIEWS[n];
      if (view === undefined) {
        view = SCRATCH.subarray(0, n);
        SCRATCH_VIEWS[n] = view;
      }
      hash.update(view);
      return;
    }
  }
  let rest = text;
  for (;;) {
    const { read, written } = ENCODER.encodeInto(rest, SCRATCH);
    hash.update(SCRATCH.subarray(0, written));
    if (read >= rest.length) return;
    rest = rest.slice(read);
  }
}

/**
 * noble's SHA-256, plus a hex digest taken from the hasher's own 64-byte block buffer:
 * noble writes the digest through the view it keeps of that buffer, where a caller's array
 * costs a new `DataView` per digest.
 */
class ReusableSha256 extends _SHA256 {
  /** Finishes the hash; returns the lowercase 64-hex digest. */
  hex(): string {
    this.digestInto(this.buffer);
    return hex32(this.buffer);
  }

  /**
   * The lowercase 64-hex SHA-256 of `text` when it is ASCII and at most
   * {@link ONE_BLOCK_TEXT} units long (one padded block: FIPS 180-4 §5.1.1), else
   * `undefined`. The units are written straight into the block buffer, padded, and
   * compressed once by noble's `process` from the initial state; the digest is read from
   * the state words. Leaves the hasher's state to be reset by the next use. A value that is
   * not a string is `undefined` too, so `sha256Hex` throws for it as before (a `TypeError`
   * from `TextEncoder`), never hashes an empty block.
   */
  oneBlockHex(text: string): string | undefined {
    if (typeof text !== "string") return undefined;
    const n = text.length;
    if (n > ONE_BLOCK_TEXT) return undefined;
    const buffer = this.buffer;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) return undefined;
      buffer[i] = c;
    }
    buffer[n] = 0x80;
    buffer.fill(0, n + 1, 60);
    this.view.setUint32(60, n * 8); // the message length in bits, big-endian (≤ 440)
    this.set(IV[0], IV[1], IV[2], IV[3], IV[4], IV[5], IV[6], IV[7]);
    this.process(this.view, 0);
    hexWord(0, this.A);
    hexWord(1, this.B);
    hexWord(2, this.C);
    hexWord(3, this.D);
    hexWord(4, this.E);
    hexWord(5, this.F);
    hexWord(6, this.G);
    hexWord(7, this.H);
    return DECODER.decode(HEX_TEXT);
  }

  /** The current state words A–H (for a fresh hasher: FIPS 180-4 §5.3.3's initial hash value). */
  stateWords(): StateWords {
    return this.get();
  }
}

/** The eight 32-bit words of a SHA-256 state. */
type StateWords = readonly [number, number, number, number, number, number, number, number];

/** SHA-256's initial state, read once from a fresh noble hasher. */
const IV: StateWords = new ReusableSha256().stateWords();

/** Longest text (UTF-16 units, ASCII) that fits one block with its padding: 64 − 1 − 8. */
const ONE_BLOCK_TEXT = 55;

/**
 * Writes the 8 hex digits of state word `word` (big-endian) at word position `at` of
 * HEX_TEXT. `hex32` would need the words written into a byte buffer first: 40 ns more per
 * one-block digest (measured, 520 → 560 ns).
 */
function hexWord(at: number, word: number): void {
  const base = 4 * at;
  HEX_TEXT_PAIRS[base] = HEX_PAIRS[word >>> 24] as number;
  HEX_TEXT_PAIRS[base + 1] = HEX_PAIRS[(word >>> 16) & 0xff] as number;
  HEX_TEXT_PAIRS[base + 2] = HEX_PAIRS[(word >>> 8) & 0xff] as number;
  HEX_TEXT_PAIRS[base + 3] = HEX_PAIRS[word & 0xff] as number;
}

/** A SHA-256 in its initial state; `_cloneInto` copies that state into the reused hasher. */
const INITIAL = new ReusableSha256();
const REUSED = new ReusableSha256();

/**
 * Lowercase 64-hex SHA-256 of the UTF-8 bytes of `text` (no `sha256:` prefix, A3S §2.2;
 * unpaired surrogates are encoded as U+FFFD, as `TextEncoder` does).
 *
 * An ASCII text of at most 55 units (a ledger's typical content: one block) is written into
 * one padded block and compressed once (`oneBlockHex`); any other text goes through one
 * hasher that is reset (noble's `_cloneInto` from a fresh instance, as its HMAC does) and
 * reused for every call, so a call allocates no hasher, no digest array and no byte copy of
 * a short text. Synchronous and re-entrant-safe: nothing runs between reset and digest.
 */
export function sha256Hex(text: string): string {
  const short = REUSED.oneBlockHex(text);
  if (short !== undefined) return short;
  INITIAL._cloneInto(REUSED);
  updateUtf8(REUSED, text);
  return REUSED.hex();
}

/** Pieces joined and encoded together (a small batch stays in cache). */
const BATCH_PIECES = 1024;

/**
 * Incremental SHA-256 over the UTF-8 bytes of a sequence of strings: `write` pieces, then
 * `hex()`. Pieces are joined and encoded in small batches, so hashing a long ledger builds
 * neither one giant string nor per-row byte arrays. `hex()` equals
 * `sha256Hex(pieces.join(""))` as long as no piece ends inside a surrogate pair that the
 * next piece completes (ledger fields are escaped, so theirs never do).
 */
export class Sha256TextSink {
  readonly #hash = new ReusableSha256();
  #pieces: string[] = [];

  /** Appends the UTF-8 bytes of `text`. */
  write(text: string): void {
    const pieces = this.#pieces;
    pieces.push(text);
    if (pieces.length >= BATCH_PIECES) this.#drain();
  }

  /** The lowercase 64-hex digest; the sink cannot be written after this. */
  hex(): string {
    this.#drain();
    return this.#hash.hex();
  }

  #drain(): void {
    const pieces = this.#pieces;
    if (pieces.length === 0) return;
    this.#pieces = [];
    updateUtf8(this.#hash, pieces.length === 1 ? (pieces[0] as string) : pieces.join(""));
  }
}
