/**
 * The `scope.dir` selector glob, Harn's `match_name` (harn-verification.md §3.5).
 *
 * Order: `*` matches everything; no `*`, `?` or `[` → exact equality; `prefix*` →
 * starts-with, `*infix*` → contains, `*suffix` → ends-with (prefix/infix/suffix without
 * `*?[`); otherwise a whole-string glob with globset semantics: `*` and `?` cross `/`
 * (`**` is `*`), `[abc]` / `[a-z]` / `[!a]` / `[^a]` classes (a `]` first in a class is
 * literal), `{a,b}` alternates (not nested), `\x` escapes x. A glob that does not parse
 * (unclosed `[` or `{`, nested `{`, unopened `}`, a reversed range, a trailing `\`) falls
 * back to: trailing `*` → starts-with the rest, leading `*` → ends-with the rest, else
 * equality.
 */

import { expectString } from "../../validate.js";

const META = /[*?[]/;

/**
 * Compiles a full glob to an anchored RegExp (unicode mode), or `null` when it does not
 * parse. Throws `TurngateValidationError` (path `pattern`) when `pattern` is not a string.
 */
export function compileGlob(pattern: string): RegExp | null {
  return globRegExp(expectString(pattern, "scope glob", "pattern"));
}

function globRegExp(pattern: string): RegExp | null {
  const chars = Array.from(pattern);
  let out = "";
  let inAlt = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === "*") {
      out += "[^]*";
      while (chars[i + 1] === "*") i++;
    } else if (c === "?") out += "[^]";
    else if (c === "\\") {
      const next = chars[i + 1];
      if (next === undefined) return null;
      out += escapeChar(next);
      i++;
    } else if (c === "{") {
      if (inAlt) return null;
      inAlt = true;
      out += "(?:";
    } else if (c === "}") {
      if (!inAlt) return null;
      inAlt = false;
      out += ")";
    } else if (c === "," && inAlt) out += "|";
    else if (c === "[") {
      const parsed = parseClass(chars, i);
      if (parsed === null) return null;
      out += parsed.source;
      i = parsed.end;
    } else out += escapeChar(c);
  }
  if (inAlt) return null;
  return new RegExp(`^(?:${out})$`, "u");
}

/**
 * `c` as a literal outside a class. Unicode mode allows only the syntax characters and `/`
 * to be escaped there (`\-` is a SyntaxError: issue 36), and every other character stands
 * for itself.
 */
function escapeChar(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/** `c` as a literal inside a class: the syntax characters, `/` and `-` may be escaped there. */
function escapeClassChar(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? `\\${c}` : c;
}

function parseClass(chars: string[], start: number): { source: string; end: number } | null {
  let i = start + 1;
  let negated = false;
  if (chars[i] === "!" || chars[i] === "^") {
    negated = true;
    i++;
  }
  const ranges: string[] = [];
  let first = true;
  while (i < chars.length) {
    const c = chars[i] as string;
    if (c === "]" && !first) {
      return { source: `[${negated ? "^" : ""}${ranges.join("")}]`, end: i };
    }
    first = false;
    if (chars[i + 1] === "-" && chars[i + 2] !== undefined && chars[i + 2] !== "]") {
      const hi = chars[i + 2] as string;
      if ((hi.codePointAt(0) as number) < (c.codePointAt(0) as number)) return null;
      ranges.push(`${escapeClassChar(c)}-${escapeClassChar(hi)}`);
      i += 3;
    } else {
      ranges.push(escapeClassChar(c));
      i++;
    }
  }
  return null;
}

/**
 * The `scope.dir` glob `pattern` as a predicate on the query path (§3.5), with the
 * pattern's form decided once: `compileMatcher(p)(name) === matchName(p, name)`. Internal:
 * `pattern` must be a string.
 */
export function compileMatcher(pattern: string): (name: string) => boolean {
  if (pattern === "*") return () => true;
  if (!META.test(pattern)) return (name) => pattern === name;
  if (pattern.endsWith("*") && !META.test(pattern.slice(0, -1))) {
    const prefix = pattern.slice(0, -1);
    return (name) => name.startsWith(prefix);
  }
  if (
    pattern.length >= 2 &&
    pattern.startsWith("*") &&
    pattern.endsWith("*") &&
    !META.test(pattern.slice(1, -1))
  ) {
    const infix = pattern.slice(1, -1);
    return (name) => name.includes(infix);
  }
  if (pattern.startsWith("*") && !META.test(pattern.slice(1))) {
    const suffix = pattern.slice(1);
    return (name) => name.endsWith(suffix);
  }
  const re = globRegExp(pattern);
  if (re !== null) return (name) => re.test(name);
  if (pattern.endsWith("*")) {
    const prefix = pattern.slice(0, -1);
    return (name) => name.startsWith(prefix);
  }
  if (pattern.startsWith("*")) {
    const suffix = pattern.slice(1);
    return (name) => name.endsWith(suffix);
  }
  return (name) => pattern === name;
}

/**
 * Does `name` (the query path) match the `scope.dir` glob `pattern`? (§3.5) Throws
 * `TurngateValidationError` (path `pattern` / `name`) when either is not a string.
 */
export function matchName(pattern: string, name: string): boolean {
  expectString(pattern, "scope glob", "pattern");
  expectString(name, "scope glob", "name");
  return compileMatcher(pattern)(name);
}
