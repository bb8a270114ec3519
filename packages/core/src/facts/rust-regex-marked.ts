/**
 * The marked text used for Unicode word boundaries (see `rust-regex-syntax.ts`): RE2's `\b`
 * only knows ASCII word characters, so before every character of the text goes one marker
 * that carries the character's Rust (Unicode) word-ness in a form RE2's `\b` sees:
 * `a` before a word character, `\n` before `\n` (so that `(?m:$)` still sees the line end),
 * `!` before anything else. At a character gap of the marked text RE2's `\b` then compares
 * the previous real character with the next character's marker. Patterns run on the marked
 * text consume a marker before every character and only match at gaps (even offsets in
 * characters), so every match maps back to the original text.
 */
import { RE2JS } from "re2js";
import { WORD_UNICODE } from "./rust-regex-syntax.js";

/** A text with its markers, and the map from marked offsets back to the original. */
export interface MarkedText {
  /** The marked text: marker + character, for every character. */
  readonly text: string;
  /** Original UTF-16 offset of each gap of the marked text; -1 inside a character. */
  readonly origin: Int32Array;
}

let wordRun: RE2JS | null = null;

/** Builds the marked text of `text` (linear time: one re2js scan for word characters). */
export function markText(text: string): MarkedText {
  wordRun ??= RE2JS.compile(`${WORD_UNICODE}+`);
  const word = new Uint8Array(text.length);
  const m = wordRun.matcher(text);
  let from = 0;
  while (from < text.length && m.find(from)) {
    const end = m.end();
    word.fill(1, m.start(), end);
    from = end;
  }
  const parts: string[] = [];
  const origin = new Int32Array(text.length * 2 + 1).fill(-1);
  let at = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair =
      c >= 0xd800 &&
      c <= 0xdbff &&
      i + 1 < text.length &&
      (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const width = pair ? 2 : 1;
    origin[at] = i;
    parts.push(c === 10 ? "\n" : word[i] === 1 ? "a" : "!", text.slice(i, i + width));
    at += 1 + width;
    i += width;
  }
  origin[at] = text.length;
  return { text: parts.join(""), origin: origin.subarray(0, at + 1) };
}
