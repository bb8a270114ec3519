/**
 * Text that reaches a terminal from outside turngate — file names, check output, check
 * commands — must not be able to forge or hide turngate's own lines (a file named
 * `"x\nverified: effect digest 0000"`, an output that clears the screen or reverses the
 * text direction). These helpers make such text inert for the text output; JSON output
 * is not affected.
 */
import { isAbsolute, relative } from "node:path";

/** Longest tail line shown, in characters; the rest is replaced by `…(N more bytes)`. */
export const MAX_TAIL_LINE_CHARS = 400;

const ESC = 0x1b;
const BEL = 0x07;

/**
 * True for characters that control a terminal or the direction/visibility of text: C0
 * controls (U+0000–U+001F), DEL, C1 controls (U+0080–U+009F), the Arabic letter mark,
 * zero-width and direction marks (U+200B–U+200F), line and paragraph separators,
 * bidi embeddings/overrides/isolates (U+202A–U+202E, U+2066–U+2069), the BOM, and the
 * characters that are invisible in a terminal but read by a model: the soft hyphen
 * (U+00AD), the Mongolian vowel separator (U+180E), word joiner and invisible operators
 * (U+2060–U+2064), deprecated format characters (U+206A–U+206F), interlinear annotation
 * marks (U+FFF9–U+FFFB) and the tag characters (U+E0000–U+E007F), which can spell out a
 * hidden sentence.
 */
function isUnsafeCodePoint(cp: number): boolean {
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0x061c ||
    (cp >= 0x200b && cp <= 0x200f) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0xfeff ||
    cp === 0x00ad ||
    cp === 0x180e ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0x206a && cp <= 0x206f) ||
    (cp >= 0xfff9 && cp <= 0xfffb) ||
    (cp >= 0xe0000 && cp <= 0xe007f)
  );
}

/** `\uXXXX`, or `\u{XXXXX}` beyond the BMP (a tag character). */
function unicodeEscape(cp: number): string {
  return cp > 0xffff ? `\\u{${hex(cp, 5)}}` : `\\u${hex(cp, 4)}`;
}

function hasUnsafe(text: string): boolean {
  for (const char of text) {
    if (isUnsafeCodePoint(char.codePointAt(0) as number)) return true;
  }
  return false;
}

const SHORT_ESCAPES: Record<string, string> = {
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

function hex(cp: number, width: number): string {
  return cp.toString(16).padStart(width, "0");
}

/**
 * A path as shown in text output: unchanged when it is plain; JSON-style quoted when it
 * holds an unsafe character (`isUnsafeCodePoint`) or starts with `"` — `"`, `\` and the
 * short escapes as in JSON, every other unsafe character as `\uXXXX` (JSON.stringify alone
 * leaves DEL, C1 and bidi characters raw). E.g. `a\nb` → `"a\nb"` (backslash-n, no line
 * break), `x\u202Ey` → `"x\u202ey"`. Input/output: strings. Never throws.
 */
export function displayPath(path: string): string {
  if (!path.startsWith('"') && !hasUnsafe(path)) return path;
  let out = '"';
  for (const char of path) {
    const cp = char.codePointAt(0) as number;
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (SHORT_ESCAPES[char] !== undefined) out += SHORT_ESCAPES[char];
    else if (isUnsafeCodePoint(cp)) out += unicodeEscape(cp);
    else out += char;
  }
  return `${out}"`;
}

/**
 * One line of other outside text (a check id or command, a gate message naming task ids)
 * with every unsafe character but TAB escaped visibly: `\r`, `\n`, `\xHH` for other
 * C0/DEL/C1 controls, `\uXXXX` for the rest. Plain text is returned unchanged.
 */
export function escapeControls(text: string): string {
  if (!hasUnsafe(text)) return text;
  let out = "";
  for (const char of text) {
    const cp = char.codePointAt(0) as number;
    if (char === "\t" || !isUnsafeCodePoint(cp)) out += char;
    else if (char === "\n" || char === "\r") out += SHORT_ESCAPES[char];
    else if (cp <= 0x9f) out += `\\x${hex(cp, 2)}`;
    else out += unicodeEscape(cp);
  }
  return out;
}

/** 8-bit C1 introducers of control strings (DCS, SOS, OSC, PM, APC), ended by ST (U+009C). */
const C1_STRING_STARTS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
/** 7-bit introducers of control strings after ESC: DCS `P`, SOS `X`, OSC `]`, PM `^`, APC `_`. */
const STRING_STARTS = new Set(["P", "X", "]", "^", "_"]);
/** ISO 2022 locking shifts SO (U+000E) and SI (U+000F), e.g. `tput sgr0` on TERM=linux ends with SI. */
const SHIFT_OUT = 0x0e;
const SHIFT_IN = 0x0f;

/**
 * Remove every ECMA-48 / ISO 2022 escape sequence and control string from `text`
 * (issue #12 item 11):
 * - CSI: `ESC [` or U+009B, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one
 *   final byte 0x40–0x7E (colours, cursor moves, `ESC [ ? 1049 h`);
 * - control strings: `ESC P` / `X` / `]` / `^` / `_` and the 8-bit DCS, SOS, OSC, PM, APC
 *   (U+0090, U+0098, U+009D, U+009E, U+009F), up to ST (`ESC \` or U+009C) or BEL;
 * - nF sequences: ESC, intermediate bytes 0x20–0x2F, one final byte 0x30–0x7E — ISO 2022
 *   designations such as `ESC ( B` (what `tput sgr0` on xterm and rustfmt's colours emit;
 *   the old two-character rule left its `B` behind) or `ESC $ ) A`;
 * - Fp/Fe/Fs two-character sequences: ESC and one byte 0x30–0x7E (`ESC 7`, `ESC =`, `ESC c`);
 * - the locking shifts SO and SI (ISO 2022), which `tput sgr0` emits on TERM=linux.
 * An ESC followed by a control or by nothing is dropped alone; an unterminated sequence is
 * dropped to the end of the text. Other characters are kept as they are (escape the rest
 * with `escapeControls`). Input/output: strings; never throws.
 */
export function stripEscapeSequences(text: string): string {
  let out = "";
  let i = 0;
  const n = text.length;
  const byteIn = (j: number, low: number, high: number) =>
    j < n && text.charCodeAt(j) >= low && text.charCodeAt(j) <= high;
  const skipString = (from: number, bell: boolean): number => {
    let j = from;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === 0x9c || (bell && c === BEL)) return j + 1;
      if (c === ESC && text[j + 1] === "\\") return j + 2;
      j += 1;
    }
    return n;
  };
  const skipCsi = (from: number): number => {
    let j = from;
    while (byteIn(j, 0x30, 0x3f)) j++;
    while (byteIn(j, 0x20, 0x2f)) j++;
    return byteIn(j, 0x40, 0x7e) ? j + 1 : Math.min(j + 1, n);
  };
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code === SHIFT_OUT || code === SHIFT_IN) {
      i += 1;
    } else if (code === 0x9b) {
      i = skipCsi(i + 1);
    } else if (C1_STRING_STARTS.has(code)) {
      i = skipString(i + 1, true);
    } else if (code !== ESC) {
      out += text[i];
      i += 1;
    } else {
      const next = text[i + 1];
      if (next === "[") i = skipCsi(i + 2);
      else if (next !== undefined && STRING_STARTS.has(next)) i = skipString(i + 2, true);
      else if (byteIn(i + 1, 0x20, 0x2f)) {
        let j = i + 1;
        while (byteIn(j, 0x20, 0x2f)) j++;
        i = byteIn(j, 0x30, 0x7e) ? j + 1 : j;
      } else if (byteIn(i + 1, 0x30, 0x7e)) i += 2;
      else i += 1;
    }
  }
  return out;
}

/**
 * One line of a failing check's output as shown under the verdict: a trailing CR (CRLF
 * output) removed, escape sequences stripped (`stripEscapeSequences`), remaining unsafe
 * characters escaped (`escapeControls`), and capped at 400 characters followed by
 * `…(N more bytes)`, N the UTF-8 size of what was cut.
 */
export function terminalSafeTailLine(line: string): string {
  const safe = escapeControls(stripEscapeSequences(line.replace(/\r$/, "")));
  const chars = Array.from(safe);
  if (chars.length <= MAX_TAIL_LINE_CHARS) return safe;
  const rest = chars.slice(MAX_TAIL_LINE_CHARS).join("");
  return `${chars.slice(0, MAX_TAIL_LINE_CHARS).join("")}…(${Buffer.byteLength(rest, "utf8")} more bytes)`;
}

/**
 * How text output names a file turngate keeps: relative to the workspace `root` when it is
 * inside it (`.turngate/baseline.json`), else absolute (under `--state-dir`); quoted by
 * `displayPath` when needed.
 */
export function shownPath(root: string, path: string): string {
  const inside = relative(root, path) || ".";
  return displayPath(inside.startsWith("..") || isAbsolute(inside) ? path : inside);
}
