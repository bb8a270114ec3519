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
 * bidi embeddings/overrides/isolates (U+202A–U+202E, U+2066–U+2069) and the BOM.
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
    cp === 0xfeff
  );
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
    else if (isUnsafeCodePoint(cp)) out += `\\u${hex(cp, 4)}`;
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
    else out += `\\u${hex(cp, 4)}`;
  }
  return out;
}

/**
 * Remove terminal escape sequences from `text`: CSI (`ESC [` … final byte, and the 8-bit
 * CSI U+009B), OSC (`ESC ]` … BEL or `ESC \`), DCS/SOS/PM/APC strings (`ESC P|X|^|_` …
 * `ESC \`) and two-character `ESC x` sequences. Colours and cursor moves of a test
 * runner's output disappear instead of acting on the terminal; an unterminated sequence is
 * dropped to the end of the text.
 */
export function stripEscapeSequences(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code !== ESC && code !== 0x9b) {
      out += text[i];
      i += 1;
      continue;
    }
    const next = code === 0x9b ? "[" : text[i + 1];
    let j = code === 0x9b ? i + 1 : i + 2;
    if (next === "[") {
      // Parameter and intermediate bytes (0x20–0x3F), then one final byte (0x40–0x7E).
      while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x3f) j++;
      j += 1;
    } else if (next === "]" || next === "P" || next === "X" || next === "^" || next === "_") {
      while (j < text.length) {
        const c = text.charCodeAt(j);
        if (c === BEL && next === "]") {
          j += 1;
          break;
        }
        if (c === ESC && text[j + 1] === "\\") {
          j += 2;
          break;
        }
        j += 1;
      }
    } else if (next === undefined) {
      j = i + 1;
    }
    i = Math.min(j, text.length);
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
