/**
 * The marked text used for Unicode word boundaries (see `rust-regex-syntax.ts`): RE2's `\b`
 * only knows ASCII word characters, so every character of the text is put between two
 * copies of a marker that carries the character's Rust (Unicode) word-ness in a form RE2's
 * `\b` sees: `a` around a word character, `\n` around `\n` (so that `(?m:^)` and `(?m:$)`
 * still see line ends), `!` around anything else. At a character gap of the marked text RE2's
 * `\b`, `\B`, `(?m:^)` and `(?m:$)` then look at the two neighbouring characters' markers,
 * which is exactly Rust's meaning. Patterns run on the marked text consume a marker, the
 * character and a marker for every character and only start at gaps (`markedSearch`), so
 * every match maps back to the original text.
 */
import { RE2JS } from "re2js";
import { WORD_UNICODE } from "./rust-regex-syntax.js";

/** A text with its markers, and the map from marked offsets back to the original. */
export interface MarkedText {
  /** The marked text: marker, character, marker — for every character. */
  readonly text: string;
  /** Original UTF-16 offset of each gap of the marked text; -1 inside a character. */
  readonly origin: Int32Array;
}

const ASCII_TRIPLES: string[] = Array.from({ length: 128 }, (_, c) => {
  const ch = String.fromCharCode(c);
  const m = c === 10 ? "\n" : /^[0-9A-Za-z_]$/.test(ch) ? "a" : "!";
  return m + ch + m;
});

let word: RE2JS | null = null;
const wordCache = new Map<number, boolean>();
const WORD_CACHE_LIMIT = 4096;

/** Rust's Unicode word-ness of a non-ASCII code point, from re2js's own tables (memoized). */
function isWord(cp: number): boolean {
  let known = wordCache.get(cp);
  if (known === undefined) {
    word ??= RE2JS.compile(WORD_UNICODE);
    known = word.test(String.fromCodePoint(cp));
    if (wordCache.size >= WORD_CACHE_LIMIT) wordCache.clear();
    wordCache.set(cp, known);
  }
  return known;
}

/** Builds the marked text of `text`, in time linear in its length. */
export function markText(text: string): MarkedText {
  const parts: string[] = [];
  const origin = new Int32Array(text.length * 3 + 1).fill(-1);
  let at = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    origin[at] = i;
    if (c < 128) {
      parts.push(ASCII_TRIPLES[c] as string);
      at += 3;
      i += 1;
      continue;
    }
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    const m = isWord(cp) ? "a" : "!";
    parts.push(m, text.slice(i, i + width), m);
    at += 2 + width;
    i += width;
  }
  origin[at] = text.length;
  return { text: parts.join(""), origin: origin.subarray(0, at + 1) };
}
