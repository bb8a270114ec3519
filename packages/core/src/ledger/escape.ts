import { TurngateValidationError } from "../errors.js";

/**
 * Field escaping for the canonical ledger text (docs/design.md §3 change: the text is injective).
 *
 * A3S renders each row as `{tool}|{path}|{content_digest}` and joins rows with `\n`, with
 * no escaping, so a path holding `|` or a newline can make two different ledgers render
 * the same text. turngate escapes each field:
 *
 * - a backslash becomes two backslashes;
 * - a vertical bar becomes backslash + vertical bar;
 * - line feed, carriage return and tab become `\n`, `\r`, `\t` (backslash + letter);
 * - any other control character U+0000–U+001F or U+007F–U+009F becomes `\x` + two
 *   lowercase hex digits (`\x01`);
 * - an unpaired UTF-16 surrogate becomes `\u` + four lowercase hex digits (`\ud800`).
 *
 * Every other character is written as is, so an ordinary path (none of the above) renders
 * exactly as in A3S and gives A3S's digest. The escaped field contains no raw `|`, no raw
 * line feed and only well-formed Unicode, and every `\` starts exactly one escape, so the
 * text splits back into rows and fields in exactly one way (`parseCanonicalLedgerText`),
 * and its UTF-8 bytes are a one-to-one image of the text.
 */
export function escapeLedgerField(field: string): string {
  // Fast path: no backslash, pipe, control character or surrogate at all.
  if (!MAYBE_SPECIAL.test(field)) return field;
  let i = 0;
  for (; i < field.length; i++) if (needsEscape(field, i)) break;
  if (i === field.length) return field;
  let out = field.slice(0, i);
  for (; i < field.length; i++) {
    const c = field.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && isLow(field.charCodeAt(i + 1))) {
      out += field.slice(i, i + 2);
      i++;
    } else if (c === 0x5c) out += "\\\\";
    else if (c === 0x7c) out += "\\|";
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (isControl(c)) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += `\\u${c.toString(16)}`;
    else out += field.charAt(i);
  }
  return out;
}

/**
 * Inverse of `escapeLedgerField`. Throws `TurngateValidationError` on a malformed escape
 * (a trailing `\`, an unknown escape letter, bad hex, or a raw `|`/line feed).
 */
export function unescapeLedgerField(field: string, path = "field"): string {
  let out = "";
  for (let i = 0; i < field.length; i++) {
    const ch = field[i] as string;
    if (ch === "|" || ch === "\n") throw bad(path, `raw ${JSON.stringify(ch)} at ${i}`);
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = field[i + 1];
    if (next === "\\" || next === "|") out += next;
    else if (next === "n") out += "\n";
    else if (next === "r") out += "\r";
    else if (next === "t") out += "\t";
    else if (next === "x" || next === "u") {
      const width = next === "x" ? 2 : 4;
      const hex = field.slice(i + 2, i + 2 + width);
      if (!/^[0-9a-f]+$/.test(hex) || hex.length !== width)
        throw bad(path, `bad \\${next} escape at ${i}`);
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += width;
    } else throw bad(path, `bad escape at ${i}`);
    i++;
  }
  return out;
}

/**
 * Matches any code unit that may need escaping: `\`, `|`, C0/DEL/C1 controls, or a
 * surrogate (paired ones are then kept by the exact scan).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const MAYBE_SPECIAL = /[\\|\u0000-\u001f\u007f-\u009f\ud800-\udfff]/;

function bad(path: string, message: string): TurngateValidationError {
  return new TurngateValidationError("canonical ledger text", [{ path, message }]);
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function isControl(c: number): boolean {
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f);
}

function needsEscape(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c === 0x5c || c === 0x7c || isControl(c)) return true;
  if (c < 0xd800 || c > 0xdfff) return false;
  // A well-formed pair is written as is; anything else is an unpaired surrogate.
  if (c <= 0xdbff && isLow(s.charCodeAt(i + 1))) return false;
  return !(isLow(c) && i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff);
}
