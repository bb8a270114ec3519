/**
 * Rust `regex` crate semantics for the user-supplied patterns of diagnostic normalization
 * (harn-verification.md §2.14, §3.7): Harn compiles `replacements`, `strip_patterns` and
 * `ignore_patterns` with Rust's `regex`, so a pattern must mean the same here, and matching
 * must take time linear in the text as it does there (a host pattern must never be able to
 * freeze the process: no backtracking engine touches host patterns).
 *
 * Matching is done by re2js (a pure-JS port of RE2: automata, linear time). Rust syntax is
 * translated to RE2 syntax by `rust-regex-syntax.ts` where the two differ: Unicode `\s \d \w`
 * and word boundaries, `.`, anchors and `(?m)`, flags `i m s U u x R`, class set operations,
 * Rust's escapes and group names. Replacement follows Rust's `replace_all`: matches left to
 * right; an empty match that starts where the previous match ended is skipped; the template
 * expands `$$`, `$N`, `$name` (longest `[0-9A-Za-z_]` run) and `${…}`; an unknown or
 * non-participating group expands to `""`; a `$` that starts no reference stays literal.
 *
 * Limits (each a typed {@link InvalidRegexError}, never a `RangeError`): nesting deeper than
 * {@link MAX_REGEX_NESTING} (Rust's default `nest_limit`), patterns longer than
 * {@link MAX_REGEX_PATTERN_LENGTH} code units, compiled programs larger than
 * {@link MAX_REGEX_PROGRAM_SIZE} instructions (Rust likewise has a compiled-size limit).
 *
 * Known differences from Rust's `regex` 1.12 (all rejected with `InvalidRegexError`, none
 * silently different; look-around and backreferences are rejected as Rust does): counted
 * repetitions above 1000, or nested ones whose product exceeds 1000 (RE2's limit; Rust
 * accepts them up to its size limit); multi-line anchors in CRLF mode `(?mR)`; Unicode and
 * ASCII `(?-u)` word boundaries mixed in one pattern; Unicode property names re2js does not
 * know (e.g. `scx=` script extensions). The Rust-regex oracle vectors
 * (test/facts/fixtures/rust-regex) agree on every other case. Unicode tables are
 * re2js's (Unicode 17; Rust's `regex` 1.12 uses 16), so characters assigned in Unicode 17
 * may classify differently.
 */
import { RE2JS, RE2JSException } from "re2js";
import { InvalidRegexError } from "./invalid-regex-error.js";
import { markText } from "./rust-regex-marked.js";
import { markedSearch, type Re2Translation, translateRustRegex } from "./rust-regex-syntax.js";

export { InvalidRegexError } from "./invalid-regex-error.js";
export { MAX_REGEX_NESTING, MAX_REGEX_PATTERN_LENGTH } from "./rust-regex-syntax.js";

/** Largest compiled re2js program accepted (instructions, `RE2JS.programSize()`). */
export const MAX_REGEX_PROGRAM_SIZE = 200_000;

/** A compiled Rust-syntax pattern. */
export interface RustRegex {
  /** The Rust pattern. */
  readonly pattern: string;
  /** The RE2 translation run on the text itself. */
  readonly direct: RE2JS;
  /**
   * The translation run on the marked text, for patterns with Unicode word boundaries
   * (used when the text has a non-ASCII character): `start` searches from the start of the
   * marked text, `inside` from a gap, given one context character before it (see
   * `markedSearch`); group 1 is the match. `null` when not needed.
   */
  readonly marked: { readonly start: RE2JS; readonly inside: RE2JS } | null;
  /** Capture group name → index. */
  readonly names: ReadonlyMap<string, number>;
}

const propertyCache = new Map<string, boolean>();

function re2KnowsProperty(name: string): boolean {
  let known = propertyCache.get(name);
  if (known === undefined) {
    try {
      RE2JS.compile(`\\p{${name}}`);
      known = true;
    } catch {
      known = false;
    }
    propertyCache.set(name, known);
  }
  return known;
}

function compileRe2(pattern: string, t: Re2Translation, source = t.source): RE2JS {
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, t.lookbehind ? RE2JS.LOOKBEHINDS : 0);
  } catch (err) {
    if (err instanceof RE2JSException) throw new InvalidRegexError(pattern, err.message);
    if (err instanceof RangeError) throw new InvalidRegexError(pattern, "pattern too large");
    throw err;
  }
  if (re.programSize() > MAX_REGEX_PROGRAM_SIZE)
    throw new InvalidRegexError(
      pattern,
      `compiled pattern exceeds the size limit of ${MAX_REGEX_PROGRAM_SIZE} instructions`,
    );
  return re;
}

const cache = new Map<string, RustRegex>();
const CACHE_LIMIT = 512;

/**
 * Compiles a Rust-syntax regex (see module doc) for linear-time matching; cached by pattern.
 * Throws {@link InvalidRegexError} (code `invalid_regex`, `path` = `fieldPath`) for a
 * pattern Rust would reject, one over the limits, or one this translation cannot express.
 */
export function compileRustRegex(pattern: string, fieldPath = ""): RustRegex {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let compiled: RustRegex;
  try {
    const direct = translateRustRegex(pattern, "direct", re2KnowsProperty);
    let marked: RustRegex["marked"] = null;
    if (direct.unicodeBoundary) {
      const t = translateRustRegex(pattern, "marked", re2KnowsProperty);
      marked = {
        start: compileRe2(pattern, t, markedSearch(t.source, false)),
        inside: compileRe2(pattern, t, markedSearch(t.source, true)),
      };
    }
    compiled = { pattern, direct: compileRe2(pattern, direct), marked, names: direct.names };
  } catch (err) {
    if (err instanceof InvalidRegexError)
      throw new InvalidRegexError(pattern, err.detail, fieldPath);
    throw err;
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, compiled);
  return compiled;
}

const NON_ASCII = /[^\0-\x7f]/;

/** The text of group `i` of the current match (`undefined` when it did not take part). */
type GroupAt = (i: number) => string | undefined;

type Visit = (start: number, end: number, group: GroupAt) => boolean;

function nextChar(text: string, index: number): number {
  const c = text.charCodeAt(index);
  if (c >= 0xd800 && c <= 0xdbff && index + 1 < text.length) {
    if ((text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) return index + 2;
  }
  return index + 1;
}

/** Rust's `find_iter` on the text itself: leftmost-first matches, left to right. */
function eachDirect(re: RE2JS, text: string, visit: Visit): void {
  const m = re.matcher(text);
  const count = m.groupCount();
  const group: GroupAt = (i) => {
    if (i > count) return undefined;
    const s = m.start(i);
    return s < 0 ? undefined : text.slice(s, m.end(i));
  };
  let from = 0;
  let lastEnd = -1;
  while (from <= text.length && m.find(from)) {
    const start = m.start();
    const end = m.end();
    if (start === end && start === lastEnd) {
      // Rust skips an empty match right where the previous match ended.
      if (start >= text.length) return;
      from = nextChar(text, start);
      continue;
    }
    if (!visit(start, end, group)) return;
    lastEnd = end;
    if (start !== end) from = end;
    else if (end >= text.length) return;
    else from = nextChar(text, end);
  }
}

/**
 * The same on the marked text: each search is anchored at a gap (see `markedSearch`); a gap
 * is followed by a marker, the character (one or two code units) and a marker.
 */
function eachMarked(re: NonNullable<RustRegex["marked"]>, text: string, visit: Visit): void {
  const { text: marked, origin } = markText(text);
  const toText = (o: number) => origin[o] as number;
  const nextGap = (gap: number) => nextChar(marked, gap + 1) + 1;
  let from = 0;
  let lastEnd = -1;
  while (from <= marked.length) {
    // From a later gap the input starts one code unit earlier: the marker before the gap is
    // the context that `\b` and `(?m:^)` look at.
    const base = from === 0 ? 0 : from - 1;
    const m = (from === 0 ? re.start : re.inside).matcher(from === 0 ? marked : marked.slice(base));
    if (!m.find(0)) return;
    const start = base + m.start(1);
    const end = base + m.end(1);
    if (start === end && start === lastEnd) {
      if (start >= marked.length) return;
      from = nextGap(start);
      continue;
    }
    const count = m.groupCount();
    const group: GroupAt = (i) => {
      if (i + 1 > count) return undefined;
      const s = m.start(i + 1);
      return s < 0 ? undefined : text.slice(toText(base + s), toText(base + m.end(i + 1)));
    };
    if (!visit(toText(start), toText(end), group)) return;
    lastEnd = end;
    if (start !== end) from = end;
    else if (end >= marked.length) return;
    else from = nextGap(end);
  }
}

function eachMatch(re: RustRegex, text: string, visit: Visit): void {
  if (re.marked !== null && NON_ASCII.test(text)) eachMarked(re.marked, text, visit);
  else eachDirect(re.direct, text, visit);
}

/** `[0-9A-Za-z_]`, the characters of a `$name` reference. */
function isNameChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function expand(template: string, group: GroupAt, names: ReadonlyMap<string, number>): string {
  if (!template.includes("$")) return template;
  let out = "";
  let i = 0;
  while (i < template.length) {
    const at = template.indexOf("$", i);
    if (at === -1) break;
    out += template.slice(i, at);
    if (template[at + 1] === "$") {
      out += "$";
      i = at + 2;
      continue;
    }
    let name: string | null = null;
    let end = at + 1;
    if (template[at + 1] === "{") {
      const close = template.indexOf("}", at + 2);
      if (close !== -1) {
        name = template.slice(at + 2, close);
        end = close + 1;
      }
    } else {
      let len = 0;
      while (isNameChar(template.charCodeAt(at + 1 + len))) len++;
      if (len > 0) {
        name = template.slice(at + 1, at + 1 + len);
        end = at + 1 + len;
      }
    }
    if (name === null) {
      out += "$";
      i = at + 1;
      continue;
    }
    const index = /^\+?[0-9]+$/.test(name) ? Number(name.replace(/^\+/, "")) : names.get(name);
    out += index === undefined ? "" : (group(index) ?? "");
    i = end;
  }
  return out + template.slice(i);
}

/** Rust `Regex::replace_all(text, replacement)` for a compiled pattern (see module doc). */
export function rustReplaceAll(re: RustRegex, text: string, replacement: string): string {
  let out = "";
  let last = 0;
  let any = false;
  eachMatch(re, text, (start, end, group) => {
    out += text.slice(last, start) + expand(replacement, group, re.names);
    last = end;
    any = true;
    return true;
  });
  return any ? out + text.slice(last) : text;
}

/** Rust `Regex::is_match(text)`: true when the pattern matches anywhere (even empty). */
export function rustIsMatch(re: RustRegex, text: string): boolean {
  if (re.marked !== null && NON_ASCII.test(text)) return re.marked.start.test(markText(text).text);
  return re.direct.test(text);
}
