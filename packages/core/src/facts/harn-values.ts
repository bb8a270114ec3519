/**
 * Harn value semantics the verification facts must mirror on plain JSON values
 * (reference harn-verification.md §2.9, §2.10, §2.14). Internal to the facts module.
 *
 * - nil is `null` or `undefined`; `??` coalesces only nil.
 * - dicts are plain objects (not arrays); lists are arrays.
 * - strings are compared, sorted and measured by Unicode code point (Harn/Rust order and
 *   `len`), never by UTF-16 unit.
 */
import { isJsonObject } from "../ledger/json.js";
import { compareCodePoints } from "../ledger/order.js";

/** A JSON object as the facts functions receive it. */
export type Dict = Record<string, unknown>;

/** True for `null` and `undefined` (Harn `nil`). */
export function isNil(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** True for a plain JSON object (Harn `dict`); arrays and `null` are not dicts. Same test as the ledger's `isJsonObject`. */
export function isDict(value: unknown): value is Dict {
  return isJsonObject(value);
}

/** `value?.[key]` with Harn semantics: nil or a non-dict yields `undefined`. */
export function field(value: unknown, key: string): unknown {
  return isDict(value) ? value[key] : undefined;
}

/** First non-nil of the given values (Harn `a ?? b ?? c`), else `undefined`. */
export function coalesce(...values: unknown[]): unknown {
  for (const v of values) if (!isNil(v)) return v;
  return undefined;
}

/**
 * Harn truthiness (`x ? true : false`): nil and `false` are falsy; numbers are truthy when
 * non-zero; strings, lists and dicts when non-empty; everything else is truthy.
 */
export function truthy(value: unknown): boolean {
  if (isNil(value)) return false;
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value !== 0 && !Number.isNaN(value);
  if (typeof value === "string") return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isDict(value)) return Object.keys(value).length > 0;
  return true;
}

const I64_MAX = 9223372036854775807n;
const I64_MIN = -9223372036854775808n;

/**
 * Harn `to_int`: an integer number → itself; a finite float → truncated toward zero; a
 * string → strict base-10 i64 parse (optional sign, digits only, no whitespace); anything
 * else (or out of i64 range) → `null`.
 */
export function toInt(value: unknown): number | null {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    const t = Math.trunc(value);
    return Object.is(t, -0) ? 0 : t;
  }
  if (typeof value === "string") {
    if (!/^[+-]?[0-9]+$/.test(value)) return null;
    const big = BigInt(value);
    if (big > I64_MAX || big < I64_MIN) return null;
    return Number(big);
  }
  return null;
}

/**
 * `value` clamped to the integers JSON carries exactly and the schemas allow
 * (±(2^53−1), `Number.MAX_SAFE_INTEGER`): Harn's i64 counts beyond that have no exact JS
 * number anyway (issue #11 class 3: a count of 1.5e47 left the published schema).
 */
export function clampSafeInteger(value: number): number {
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, value));
}

/** Expands a JS number string with an exponent (`1e+21`, `1e-7`) to plain decimal digits. */
function plainDecimal(text: string): string {
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const sign = m[1] ?? "";
  const digits = (m[2] ?? "") + (m[3] ?? "");
  const exp = Number(m[4]);
  const point = 1 + exp;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Byte-wise (UTF-8 = code point) comparison of two strings; Harn's `sort()` order. */
export { compareCodePoints };

const ASTRAL_OR_HIGH = /[\ud800-\uffff]/;

/** True when UTF-16 order may differ from code point order for these strings. */
export function needsCodePointCompare(values: readonly string[]): boolean {
  for (const v of values) if (ASTRAL_OR_HIGH.test(v)) return true;
  return false;
}

/** `a` vs `b` in UTF-16 unit order (equals code point order when no unit is ≥ U+D800). */
export function compareUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Sorts strings in place by code point (Harn/Rust byte order). Uses the engine's native
 * sort when no string holds a unit at or above U+D800 (then UTF-16 order is code point order).
 */
export function sortCodePoints(values: string[]): string[] {
  return needsCodePointCompare(values) ? values.sort(compareCodePoints) : values.sort();
}

/** Code point (Unicode scalar) count of a string — Harn `len(string)`. */
export function charLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Display of a scalar (anything but a list or dict). */
function displayScalar(value: unknown): string {
  if (isNil(value)) return "nil";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
    return plainDecimal(String(Object.is(value, -0) ? 0 : value));
  }
  if (typeof value === "bigint") return value.toString();
  return String(value);
}

/**
 * Harn `to_string` / display of a JSON value: nil → `nil`; booleans; integers in decimal;
 * floats in plain decimal (never exponent form, as Rust prints f64); strings verbatim;
 * lists `[a, b]`; dicts `{k: v, …}` with keys in byte order (Harn's BTreeMap).
 *
 * Iterative (an explicit stack of pending text pieces and values), so a value nested any
 * number of levels deep is displayed without exhausting the call stack (issue #11 class 1).
 * A container that contains itself is shown as `<cycle>` at the repeat (JSON never has one).
 */
export function display(value: unknown): string {
  if (!Array.isArray(value) && !isDict(value)) return displayScalar(value);
  const out: string[] = [];
  // Work items: a literal piece of text, a value still to display, or the end of a
  // container (pops it from the cycle guard).
  type Item = { text: string } | { value: unknown } | { close: object };
  const work: Item[] = [{ value }];
  const open = new Set<object>();
  while (work.length > 0) {
    const item = work.pop() as Item;
    if ("text" in item) {
      out.push(item.text);
      continue;
    }
    if ("close" in item) {
      open.delete(item.close);
      continue;
    }
    const v = item.value;
    const isList = Array.isArray(v);
    if (!isList && !isDict(v)) {
      out.push(displayScalar(v));
      continue;
    }
    if (open.has(v as object)) {
      out.push("<cycle>");
      continue;
    }
    open.add(v as object);
    // Pushed in reverse: the stack pops them in display order.
    const parts: Item[] = [{ text: isList ? "[" : "{" }];
    if (isList) {
      (v as unknown[]).forEach((element, i) => {
        if (i > 0) parts.push({ text: ", " });
        parts.push({ value: element });
      });
    } else {
      const dict = v as Dict;
      const keys = sortCodePoints(Object.keys(dict).filter((k) => dict[k] !== undefined));
      keys.forEach((k, i) => {
        parts.push({ text: `${i > 0 ? ", " : ""}${k}: ` });
        parts.push({ value: dict[k] });
      });
    }
    parts.push({ text: isList ? "]" : "}" }, { close: v as object });
    for (let i = parts.length - 1; i >= 0; i--) work.push(parts[i] as Item);
  }
  return out.join("");
}

/**
 * Unicode White_Space, the set Rust's `char::is_whitespace`, `str::trim` and the regex
 * class `\s` use (differs from JS `\s`: includes U+0085, excludes U+FEFF).
 */
export const RUST_WHITESPACE_CLASS =
  "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";

/** True when the UTF-16 unit is a Unicode White_Space character (all are in the BMP). */
export function isRustWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Rust `str::trim`: strips leading and trailing Unicode White_Space. */
export function rustTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isRustWhitespace(text.charCodeAt(start))) start++;
  while (end > start && isRustWhitespace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** `trim(to_string(value ?? ""))`. */
export function trimmedText(value: unknown): string {
  return rustTrim(isNil(value) ? "" : display(value));
}

/**
 * Harn string-list rule (§2.10): nil → `[]`; a non-list → `[value]`; each item →
 * `trim(to_string(item ?? ""))`; blanks and duplicates dropped, first-seen order kept.
 */
export function stringList(value: unknown): string[] {
  if (isNil(value)) return [];
  const raw = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of raw) {
    const text = trimmedText(item);
    if (text !== "" && !seen.has(text)) {
      seen.add(text);
      out.push(text);
    }
  }
  return out;
}

/**
 * Snapshot-map rule (§2.9): nil → `undefined`; a dict whose `snapshot` key is non-nil →
 * that value; anything else unchanged.
 */
export function unwrapSnapshot(value: unknown): unknown {
  if (isNil(value)) return undefined;
  if (isDict(value) && !isNil(value.snapshot)) return value.snapshot;
  return value;
}

/**
 * JSON equality (serde_json `==`): same type and same value; objects compare key sets and
 * values regardless of key order. Numbers compare by value (JS cannot tell `1` from `1.0`).
 * Iterative (a stack of pairs still to compare), so any nesting depth is safe (issue #11).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const pending: Array<[unknown, unknown]> = [[a, b]];
  while (pending.length > 0) {
    const [x, y] = pending.pop() as [unknown, unknown];
    if (x === y) continue;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push([x[i], y[i]]);
      continue;
    }
    if (!isDict(x) || !isDict(y)) return false;
    const kx = Object.keys(x).filter((k) => x[k] !== undefined);
    const ky = Object.keys(y).filter((k) => y[k] !== undefined);
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(y, k)) return false;
      pending.push([x[k], y[k]]);
    }
  }
  return true;
}

/** Harn value equality for `!=` on nil/strings/numbers/bools/lists/dicts (nil == nil). */
export function harnEqual(a: unknown, b: unknown): boolean {
  if (isNil(a) || isNil(b)) return isNil(a) && isNil(b);
  return jsonEqual(a, b);
}
