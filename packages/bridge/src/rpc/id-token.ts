/**
 * The source text of a request's `id` (issue #11 class 4): `JSON.parse` turns the id
 * `12345678901234567890` into the double 12345678901234567000, so echoing the parsed value
 * would answer a different id. This scanner walks the top level of a line that `JSON.parse`
 * has already accepted and returns the exact token of its (last, as `JSON.parse` keeps the
 * last) `"id"` member, so the response can carry the id byte for byte.
 * Pure: no `node:` imports.
 */

/** JSON's insignificant whitespace: space, tab, line feed, carriage return. */
function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function skipWs(text: string, i: number): number {
  while (i < text.length && isWs(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Index just past the JSON string starting at `i` (a `"`): the next `"` preceded by an even
 * number of backslashes (found with `indexOf`, not character by character).
 */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const quote = text.indexOf('"', j);
    if (quote < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    j = quote + 1;
  }
}

/** Index just past the JSON value starting at `i` (iterative for containers). */
function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c !== 0x7b && c !== 0x5b) {
    // number, true, false, null: up to the next delimiter
    let j = i;
    while (j < text.length) {
      const d = text.charCodeAt(j);
      if (d === 0x2c || d === 0x7d || d === 0x5d || isWs(d)) break;
      j++;
    }
    return j;
  }
  let depth = 0;
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 0x22) {
      j = stringEnd(text, j);
      continue;
    }
    if (d === 0x7b || d === 0x5b) depth++;
    else if (d === 0x7d || d === 0x5d) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return j;
}

/** How much of a line's end the fast path looks at (an id token longer than this is scanned). */
const TAIL_CHARS = 96;

/**
 * A line that ends `,"id":NUMBER}` (or `{"id":NUMBER}`, JSON whitespace allowed): in valid
 * JSON that number is the value of the object's last top-level member (anything nested
 * would have to close between it and the final `}`), the `"` after `,`/`{` is unescaped, so
 * it opens the member's key, which is therefore `id`; and the last member is the one
 * `JSON.parse` keeps. The Python binding writes its id there, so its lines need no scan.
 */
const TAIL_ID =
  /[,{][\x20\t\n\r]*"id"[\x20\t\n\r]*:[\x20\t\n\r]*(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)[\x20\t\n\r]*\}[\x20\t\n\r]*$/;

/**
 * The exact source text of the top-level `"id"` member of `line`, or null when there is
 * none (or the line is not a JSON object).
 * Input: one line that `JSON.parse` accepted (the scanner relies on it being valid JSON);
 * keys are compared after decoding, so `"\u0069d"` is the id too. Linear in the line length.
 * Never throws.
 */
export function idToken(line: string): string | null {
  const tail = TAIL_ID.exec(line.length > TAIL_CHARS ? line.slice(-TAIL_CHARS) : line);
  if (tail !== null) return tail[1] as string;
  let i = skipWs(line, 0);
  if (line.charCodeAt(i) !== 0x7b) return null;
  i = skipWs(line, i + 1);
  let found: string | null = null;
  while (i < line.length && line.charCodeAt(i) === 0x22) {
    const keyEnd = stringEnd(line, i);
    const rawKey = line.slice(i, keyEnd);
    let key: string;
    try {
      // A key without a backslash is its own text; only an escaped one needs decoding.
      key = rawKey.indexOf("\\") < 0 ? rawKey.slice(1, -1) : (JSON.parse(rawKey) as string);
    } catch {
      return found;
    }
    i = skipWs(line, keyEnd);
    if (line.charCodeAt(i) !== 0x3a) return found;
    i = skipWs(line, i + 1);
    const end = valueEnd(line, i);
    if (key === "id") found = line.slice(i, end);
    i = skipWs(line, end);
    if (line.charCodeAt(i) !== 0x2c) break;
    i = skipWs(line, i + 1);
  }
  return found;
}
