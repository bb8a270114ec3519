/**
 * The source text of a request's `id` (issue #11 class 4): `JSON.parse` turns the id
 * `12345678901234567890` into the double 12345678901234567000, so echoing the parsed value
 * would answer a different id. This scanner walks the top level of a line that `JSON.parse`
 * has already accepted and returns the exact token of its (last, as `JSON.parse` keeps the
 * last) `"id"` member, so the response can carry the id byte for byte.
 * Pure: no `node:` imports.
 */

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  return i;
}

/** Index just past the JSON string starting at `i` (a `"`). */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j += 2;
    else if (c === 0x22) return j + 1;
    else j++;
  }
  return j;
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
      if (d === 0x2c || d === 0x7d || d === 0x5d || WS.has(d)) break;
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

/**
 * The exact source text of the top-level `"id"` member of `line`, or null when there is
 * none (or the line is not a JSON object).
 * Input: one line that `JSON.parse` accepted (the scanner relies on it being valid JSON);
 * keys are compared after decoding, so `"\u0069d"` is the id too. Linear in the line length.
 * Never throws.
 */
export function idToken(line: string): string | null {
  let i = skipWs(line, 0);
  if (line.charCodeAt(i) !== 0x7b) return null;
  i = skipWs(line, i + 1);
  let found: string | null = null;
  while (i < line.length && line.charCodeAt(i) === 0x22) {
    const keyEnd = stringEnd(line, i);
    const rawKey = line.slice(i, keyEnd);
    let key: string;
    try {
      key = rawKey === '"id"' ? "id" : (JSON.parse(rawKey) as string);
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
