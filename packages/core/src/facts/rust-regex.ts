/**
 * Rust `regex` crate semantics on top of the JS engine, for the user-supplied patterns of
 * diagnostic normalization (harn-verification.md §2.14, §3.7): Harn compiles
 * `replacements`, `strip_patterns` and `ignore_patterns` with Rust's `regex`, so a pattern
 * must mean the same here.
 *
 * A pattern is translated from Rust syntax to a JS `RegExp` (flags `gv`, plus `i` when the
 * whole pattern is case-insensitive):
 * - `\s \d \w \b \B \< \>` and `\b{start|end|start-half|end-half}` are Unicode-aware as in
 *   Rust (JS's are ASCII or a different whitespace set); `(?-u)` gives the ASCII forms.
 * - `.` never matches `\n` (JS also excludes `\r`, U+2028, U+2029); `(?s)` matches anything.
 * - `(?m)` `^`/`$` match only around `\n`; `\A`/`\z` are text start/end.
 * - `(?P<name>…)`/`(?<name>…)`, `(?flags)`, `(?flags:…)` with flags `i m s U u x R`.
 * - classes: ranges, escapes, `[[:alpha:]]`, nesting, `&&`, `--`, `~~`.
 * - `\x7F`, `\x{…}`, `\u007F`, `\u{…}`, `\U0000007F`, `\U{…}`, `\pL`, `\p{…}`, `\P…`.
 * Rust rejects look-around and backreferences; so does this (typed error). Case-insensitivity
 * switched on for only part of a pattern has no JS equivalent on Node 20 and is rejected.
 * Known difference: a repeated group whose body can match empty (`a*?+`) — Rust reports
 * empty matches, the JS engine refuses the empty iteration and matches more.
 *
 * Replacement follows Rust's `replace_all`: matches are found left to right; an empty match
 * that starts where the previous match ended is skipped (JS reports it); the replacement
 * template expands `$$`, `$N`, `$name` (longest `[0-9A-Za-z_]` run) and `${…}`; an unknown
 * or non-participating group expands to `""`; a `$` that starts no reference stays literal.
 */
import { TurngateError } from "../errors.js";
import { RUST_WHITESPACE_CLASS } from "./harn-values.js";

/**
 * A pattern Rust's `regex` would reject, or one this translation cannot express. `code` is
 * `"invalid_regex"`; `path` names the option field the pattern came from; the message starts
 * `Invalid regex:` as Harn's does.
 */
export class InvalidRegexError extends TurngateError {
  readonly path: string;
  readonly pattern: string;
  readonly detail: string;
  constructor(pattern: string, detail: string, path = "") {
    const where = path === "" ? "" : ` at ${path}`;
    super("invalid_regex", `Invalid regex${where}: ${detail} (pattern ${JSON.stringify(pattern)})`);
    this.name = "InvalidRegexError";
    this.path = path;
    this.pattern = pattern;
    this.detail = detail;
  }
}

/** A compiled Rust-syntax pattern: the JS regex and its group-name → index table. */
export interface RustRegex {
  readonly source: string;
  readonly regex: RegExp;
  readonly names: ReadonlyMap<string, number>;
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
  u: boolean;
  x: boolean;
  R: boolean;
}

const WORD_UNICODE = "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]";
const WORD_ASCII = "[0-9A-Za-z_]";
const WS_UNICODE = `[${RUST_WHITESPACE_CLASS}]`;
const WS_ASCII = "[\\t\\n\\v\\f\\r ]";
const DIGIT_UNICODE = "\\p{Nd}";
const DIGIT_ASCII = "[0-9]";
const ANY = "[\\u{0}-\\u{10FFFF}]";
const WS_CHAR = new RegExp(`^[${RUST_WHITESPACE_CLASS}]$`);

const ASCII_CLASSES: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\u{0}-\\u{7F}",
  blank: "\\t ",
  cntrl: "\\u{0}-\\u{1F}\\u{7F}",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`\\{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

function lit(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

function isAsciiAlnum(cp: number): boolean {
  return (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
}

/** Rust regex-syntax `is_meta_character`. */
const META = new Set("\\.+*?()|[]{}^$#&-~".split(""));

class Translator {
  private pos = 0;
  private readonly chars: string[];
  private groupCount = 0;
  readonly names = new Map<string, number>();
  /** Where `i` was first switched on (-1: never) and whether it was ever on elsewhere. */
  globalCaseInsensitive = false;
  private sawCaseScope = false;

  constructor(private readonly pattern: string) {
    this.chars = Array.from(pattern);
  }

  fail(detail: string): never {
    throw new InvalidRegexError(this.pattern, detail);
  }

  private peek(offset = 0): string | undefined {
    return this.chars[this.pos + offset];
  }

  private eof(): boolean {
    return this.pos >= this.chars.length;
  }

  translate(): string {
    const flags: Flags = { i: false, m: false, s: false, U: false, u: true, x: false, R: false };
    // A leading `(?flags)` applies to the whole pattern: `i` there becomes the JS `i` flag.
    const leading = /^\(\?([imsUuxR-]*)\)/u.exec(this.pattern);
    if (leading) {
      const f = this.parseFlagString(leading[1] ?? "", flags);
      Object.assign(flags, f);
      if (flags.i) this.globalCaseInsensitive = true;
      this.pos = Array.from(leading[0]).length;
    }
    const out = this.alternation(flags, 0);
    if (!this.eof()) this.fail("unopened group");
    return out;
  }

  private parseFlagString(text: string, base: Flags): Flags {
    const flags = { ...base };
    let negate = false;
    let sawDash = false;
    for (const ch of text) {
      if (ch === "-") {
        if (sawDash) this.fail("repeated negation in flags");
        negate = true;
        sawDash = true;
        continue;
      }
      if (!"imsUuxR".includes(ch)) this.fail(`unrecognized flag ${ch}`);
      flags[ch as keyof Flags] = !negate;
    }
    if (text.endsWith("-")) this.fail("flag negation without a flag");
    return flags;
  }

  /** alternation := concat ('|' concat)* ; stops before ')' or end. */
  private alternation(flags: Flags, depth: number): string {
    const branches: string[] = [];
    const local = { ...flags };
    let current = "";
    while (!this.eof()) {
      const ch = this.peek() as string;
      if (ch === ")") {
        if (depth === 0) this.fail("unopened group");
        break;
      }
      if (ch === "|") {
        this.pos++;
        branches.push(current);
        current = "";
        continue;
      }
      current += this.piece(local, depth);
    }
    branches.push(current);
    return branches.join("|");
  }

  /** One atom with its repetitions (Rust lets them stack: `a**` is `(?:a*)*`). */
  private piece(flags: Flags, depth: number): string {
    const atom = this.atom(flags, depth);
    if (atom === null) return "";
    let text = atom.text;
    for (;;) {
      this.skipExtended(flags);
      const rep = this.repetition(flags);
      if (rep === "") return text;
      if (!atom.repeatable) this.fail("repetition operator missing expression");
      text = `(?:${text})${rep}`;
    }
  }

  private skipExtended(flags: Flags): void {
    if (!flags.x) return;
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) return;
      if (WS_CHAR.test(ch)) {
        this.pos++;
        continue;
      }
      if (ch === "#") {
        while (!this.eof() && this.peek() !== "\n") this.pos++;
        continue;
      }
      return;
    }
  }

  private repetition(flags: Flags): string {
    const ch = this.peek();
    let op: string;
    if (ch === "*" || ch === "+" || ch === "?") {
      this.pos++;
      op = ch;
    } else if (ch === "{") {
      const rest = this.chars.slice(this.pos).join("");
      const m = flags.x
        ? /^\{\s*([0-9]+)\s*(?:(,)\s*([0-9]*)\s*)?\}/u.exec(rest)
        : /^\{([0-9]+)(?:(,)([0-9]*))?\}/u.exec(rest);
      if (!m) this.fail("invalid counted repetition");
      const min = Number(m[1]);
      const max = m[3] === undefined || m[3] === "" ? undefined : Number(m[3]);
      if (max !== undefined && max < min) this.fail("invalid repetition range");
      op = m[2] === undefined ? `{${min}}` : `{${min},${max ?? ""}}`;
      this.pos += Array.from(m[0]).length;
    } else {
      return "";
    }
    let lazy = false;
    if (this.peek() === "?") {
      this.pos++;
      lazy = true;
    }
    if (flags.U) lazy = !lazy;
    return lazy ? `${op}?` : op;
  }

  private atom(flags: Flags, depth: number): { text: string; repeatable: boolean } | null {
    if (flags.x) {
      this.skipExtended(flags);
      if (this.eof() || this.peek() === "|" || this.peek() === ")") return null;
    }
    const ch = this.peek() as string;
    this.pos++;
    switch (ch) {
      case "(":
        return this.group(flags, depth);
      case "[":
        return { text: this.charClass(flags), repeatable: true };
      case ".":
        if (!flags.u) this.fail("pattern can match invalid UTF-8");
        return { text: flags.s ? ANY : flags.R ? "[^\\n\\r]" : "[^\\n]", repeatable: true };
      case "^":
        return {
          text: flags.m ? (flags.R ? "(?<![^\\n\\r])" : "(?<![^\\n])") : "^",
          repeatable: true,
        };
      case "$":
        return {
          text: flags.m ? (flags.R ? "(?![^\\n\\r])" : "(?![^\\n])") : "$",
          repeatable: true,
        };
      case "\\":
        return this.escape(flags);
      case "*":
      case "+":
      case "?":
        this.fail("repetition operator missing expression");
        break;
      case "{":
        this.fail("repetition operator missing expression");
        break;
      default:
        break;
    }
    const cp = ch.codePointAt(0) as number;
    return { text: isAsciiAlnum(cp) ? ch : lit(cp), repeatable: true };
  }

  private group(flags: Flags, depth: number): { text: string; repeatable: boolean } | null {
    if (this.peek() !== "?") {
      this.groupCount++;
      const body = this.alternation(flags, depth + 1);
      this.expect(")");
      return { text: `(${body})`, repeatable: true };
    }
    this.pos++; // '?'
    const rest = this.chars.slice(this.pos).join("");
    const named = /^(?:P?<)([^>]*)>/u.exec(rest);
    if (
      rest.startsWith("=") ||
      rest.startsWith("!") ||
      rest.startsWith("<=") ||
      rest.startsWith("<!")
    ) {
      this.fail("look-around, including look-ahead and look-behind, is not supported");
    }
    if (named) {
      const name = named[1] ?? "";
      if (!/^[_\p{Alphabetic}][_\p{Alphabetic}\p{Nd}.[\]]*$/u.test(name))
        this.fail("invalid capture group name");
      if (this.names.has(name)) this.fail("duplicate capture group name");
      this.pos += Array.from(named[0]).length;
      this.groupCount++;
      this.names.set(name, this.groupCount);
      const body = this.alternation(flags, depth + 1);
      this.expect(")");
      return { text: `(${body})`, repeatable: true };
    }
    const fm = /^([imsUuxR-]*)([:)])/u.exec(rest);
    if (!fm) this.fail("unrecognized group syntax");
    const next = this.parseFlagString(fm[1] ?? "", flags);
    this.pos += Array.from(fm[0]).length;
    if (next.i !== flags.i) this.sawCaseScope = true;
    if (this.sawCaseScope && next.i !== this.globalCaseInsensitive) {
      this.fail("case-insensitive matching for only part of a pattern is not supported here");
    }
    if (fm[2] === ")") {
      // `(?flags)` changes the flags for the rest of the enclosing group.
      Object.assign(flags, next);
      return null;
    }
    const body = this.alternation(next, depth + 1);
    this.expect(")");
    return { text: `(?:${body})`, repeatable: true };
  }

  private expect(ch: string): void {
    if (this.peek() !== ch) this.fail(ch === ")" ? "unclosed group" : `expected ${ch}`);
    this.pos++;
  }

  private hexEscape(digits: number | "braced"): number {
    let text: string;
    if (digits === "braced") {
      this.expect("{");
      text = "";
      while (!this.eof() && this.peek() !== "}") text += this.chars[this.pos++];
      this.expect("}");
    } else {
      text = this.chars.slice(this.pos, this.pos + digits).join("");
      if (text.length !== digits) this.fail("incomplete escape sequence");
      this.pos += digits;
    }
    if (!/^[0-9A-Fa-f]{1,8}$/.test(text)) this.fail("invalid hexadecimal digit");
    const cp = Number.parseInt(text, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail("invalid Unicode scalar value");
    return cp;
  }

  private unicodeClass(negated: boolean): string {
    let name: string;
    if (this.peek() === "{") {
      this.pos++;
      name = "";
      while (!this.eof() && this.peek() !== "}") name += this.chars[this.pos++];
      this.expect("}");
    } else {
      const c = this.peek();
      if (c === undefined) this.fail("incomplete escape sequence");
      this.pos++;
      name = c;
    }
    let negate = negated;
    let body = name.trim();
    if (body.startsWith("^")) {
      negate = !negate;
      body = body.slice(1).trim();
    }
    const op = /\s*(!=|=|:)\s*/.exec(body);
    if (op) {
      if (op[1] === "!=") negate = !negate;
      body = `${body.slice(0, op.index)}=${body.slice(op.index + op[0].length)}`;
    }
    return this.validProperty(negate ? "P" : "p", body);
  }

  /** Finds the JS spelling of a Rust Unicode class name (Rust matches names loosely). */
  private validProperty(p: "p" | "P", body: string): string {
    const capital = (t: string) =>
      t.replace(/(^|_)([a-z])/g, (_m, a: string, b: string) => a + b.toUpperCase());
    const candidates: string[] = [];
    if (!body.includes("=")) {
      for (const n of [body, capital(body)])
        candidates.push(n, `Script=${n}`, `General_Category=${n}`);
    } else {
      const [k = "", v = ""] = body.split("=");
      const key = k.toLowerCase().replace(/[\s_-]/g, "");
      const alias: Record<string, string> = {
        gc: "General_Category",
        generalcategory: "General_Category",
        sc: "Script",
        script: "Script",
        scx: "Script_Extensions",
        scriptextensions: "Script_Extensions",
      };
      for (const n of [v, capital(v)]) candidates.push(`${alias[key] ?? k}=${n}`);
    }
    for (const c of candidates) {
      const text = `\\${p}{${c}}`;
      try {
        new RegExp(text, "v");
        return text;
      } catch {}
    }
    return this.fail(`unrecognized Unicode class ${JSON.stringify(body)}`);
  }

  /** Escape outside a class. */
  private escape(flags: Flags): { text: string; repeatable: boolean } {
    const ch = this.peek();
    if (ch === undefined) this.fail("incomplete escape sequence");
    this.pos++;
    const word = flags.u ? WORD_UNICODE : WORD_ASCII;
    switch (ch) {
      case "b": {
        if (this.peek() === "{") {
          const rest = this.chars.slice(this.pos).join("");
          const m = /^\{(start|end|start-half|end-half)\}/.exec(rest);
          if (!m) this.fail("unrecognized word boundary");
          this.pos += m[0].length;
          const kind = m[1];
          const text =
            kind === "start"
              ? `(?<!${word})(?=${word})`
              : kind === "end"
                ? `(?<=${word})(?!${word})`
                : kind === "start-half"
                  ? `(?<!${word})`
                  : `(?!${word})`;
          return { text, repeatable: true };
        }
        return { text: `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`, repeatable: true };
      }
      case "B":
        return { text: `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word}))`, repeatable: true };
      case "<":
        return { text: `(?<!${word})(?=${word})`, repeatable: true };
      case ">":
        return { text: `(?<=${word})(?!${word})`, repeatable: true };
      case "A":
        return { text: "^", repeatable: true };
      case "z":
        return { text: "$", repeatable: true };
      default:
        return { text: this.classEscape(ch, flags, false), repeatable: true };
    }
  }

  /**
   * Escapes valid both inside and outside a class, as a JS class-set operand (a nested
   * class, a property escape or one `\u{…}` literal). `ch` is the char after `\`.
   */
  private classEscape(ch: string, flags: Flags, inClass: boolean): string {
    switch (ch) {
      case "d":
        return flags.u ? DIGIT_UNICODE : DIGIT_ASCII;
      case "D":
        return flags.u ? "\\P{Nd}" : "[^0-9]";
      case "s":
        return flags.u ? WS_UNICODE : WS_ASCII;
      case "S":
        return flags.u ? `[^${RUST_WHITESPACE_CLASS}]` : "[^\\t\\n\\v\\f\\r ]";
      case "w":
        return flags.u ? WORD_UNICODE : WORD_ASCII;
      case "W":
        return flags.u ? `[^${WORD_UNICODE.slice(1, -1)}]` : "[^0-9A-Za-z_]";
      case "p":
        return this.unicodeClass(false);
      case "P":
        return this.unicodeClass(true);
      case "n":
        return lit(10);
      case "t":
        return lit(9);
      case "r":
        return lit(13);
      case "f":
        return lit(12);
      case "v":
        return lit(11);
      case "a":
        return lit(7);
      case "x":
        return lit(this.peek() === "{" ? this.hexEscape("braced") : this.hexEscape(2));
      case "u":
        return lit(this.peek() === "{" ? this.hexEscape("braced") : this.hexEscape(4));
      case "U":
        return lit(this.peek() === "{" ? this.hexEscape("braced") : this.hexEscape(8));
      default: {
        const cp = ch.codePointAt(0) as number;
        if (META.has(ch) || (cp < 128 && !isAsciiAlnum(cp) && ch !== "<" && ch !== ">"))
          return lit(cp);
        if (ch >= "0" && ch <= "9") this.fail("backreferences are not supported");
        if (inClass && (ch === "<" || ch === ">")) this.fail("unrecognized escape sequence");
        return this.fail("unrecognized escape sequence");
      }
    }
  }

  /** Parses a class after its `[`; returns a JS `v`-mode class. */
  private charClass(flags: Flags): string {
    let negated = false;
    if (this.peek() === "^") {
      this.pos++;
      negated = true;
    }
    const body = this.classSet(flags, true);
    this.expect("]");
    return negated ? `[^${body}]` : `[${body}]`;
  }

  /** class set := union (op union)* with left-associative `&&`, `--`, `~~`. */
  private classSet(flags: Flags, first: boolean): string {
    let left = this.classUnion(flags, first);
    for (;;) {
      this.skipClassSpace(flags);
      const a = this.peek();
      const b = this.peek(1);
      const op = a !== undefined && a === b && (a === "&" || a === "-" || a === "~") ? a : null;
      if (op === null) return left;
      this.pos += 2;
      const right = this.classUnion(flags, false);
      const l = `[${left}]`;
      const r = `[${right}]`;
      left = op === "&" ? `${l}&&${r}` : op === "-" ? `${l}--${r}` : `[${l}--${r}][${r}--${l}]`;
    }
  }

  private skipClassSpace(flags: Flags): void {
    if (!flags.x) return;
    while (!this.eof() && WS_CHAR.test(this.peek() as string)) this.pos++;
  }

  /** A union of items up to `]` or a set operator; returns JS class-set contents. */
  private classUnion(flags: Flags, first: boolean): string {
    const items: string[] = [];
    let allowLeadingBracket = first;
    for (;;) {
      this.skipClassSpace(flags);
      const ch = this.peek();
      if (ch === undefined) this.fail("unclosed character class");
      if (ch === "]" && !allowLeadingBracket) break;
      const next = this.peek(1);
      if (
        ch !== "]" &&
        next === ch &&
        (ch === "&" || ch === "~" || (ch === "-" && items.length > 0))
      )
        break;
      allowLeadingBracket = false;
      if (ch === "[") {
        const rest = this.chars.slice(this.pos).join("");
        const ascii = /^\[:(\^)?([a-z]+):\]/.exec(rest);
        if (ascii) {
          const set = ASCII_CLASSES[ascii[2] ?? ""];
          if (set === undefined) this.fail("invalid ASCII class name");
          this.pos += ascii[0].length;
          items.push(ascii[1] ? `[^${set}]` : `[${set}]`);
          continue;
        }
        this.pos++;
        items.push(this.charClass(flags));
        continue;
      }
      const start = this.classAtom(flags);
      this.skipClassSpace(flags);
      if (
        this.peek() === "-" &&
        this.peek(1) !== "]" &&
        this.peek(1) !== "-" &&
        start.cp !== null
      ) {
        this.pos++;
        this.skipClassSpace(flags);
        const end = this.classAtom(flags);
        if (end.cp === null) this.fail("invalid range boundary");
        if (end.cp < start.cp) this.fail("invalid character class range");
        items.push(`${lit(start.cp)}-${lit(end.cp)}`);
        continue;
      }
      items.push(start.text);
    }
    if (items.length === 0) this.fail("empty character class");
    return items.join("");
  }

  /** One class member: a literal (with its code point) or an escape class (cp null). */
  private classAtom(flags: Flags): { text: string; cp: number | null } {
    const ch = this.peek() as string;
    this.pos++;
    if (ch === "\\") {
      const e = this.peek();
      if (e === undefined) this.fail("incomplete escape sequence");
      this.pos++;
      const text = this.classEscape(e, flags, true);
      const m = /^\\u\{([0-9a-f]+)\}$/.exec(text);
      return { text, cp: m ? Number.parseInt(m[1] as string, 16) : null };
    }
    const cp = ch.codePointAt(0) as number;
    return { text: lit(cp), cp };
  }
}

const cache = new Map<string, RustRegex>();
const CACHE_LIMIT = 512;

/**
 * Compiles a Rust-syntax regex (see module doc) into a cached JS regex.
 * Throws {@link InvalidRegexError} (code `invalid_regex`, `path` = `fieldPath`) for a
 * pattern Rust would reject or this translation cannot express.
 */
export function compileRustRegex(pattern: string, fieldPath = ""): RustRegex {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let compiled: RustRegex;
  try {
    const t = new Translator(pattern);
    const source = t.translate();
    let regex: RegExp;
    try {
      regex = new RegExp(source, t.globalCaseInsensitive ? "giv" : "gv");
    } catch (err) {
      throw new InvalidRegexError(pattern, (err as Error).message);
    }
    compiled = { source, regex, names: t.names };
  } catch (err) {
    if (err instanceof InvalidRegexError)
      throw new InvalidRegexError(pattern, err.detail, fieldPath);
    throw err;
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, compiled);
  return compiled;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function advance(text: string, index: number): number {
  const c = text.charCodeAt(index);
  if (c >= 0xd800 && c <= 0xdbff && index + 1 < text.length) {
    const d = text.charCodeAt(index + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return index + 2;
  }
  return index + 1;
}

function expand(template: string, m: RegExpExecArray, names: ReadonlyMap<string, number>): string {
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
      const run = /^[0-9A-Za-z_]+/.exec(template.slice(at + 1));
      if (run) {
        name = run[0];
        end = at + 1 + name.length;
      }
    }
    if (name === null) {
      out += "$";
      i = at + 1;
      continue;
    }
    const index = /^\+?[0-9]+$/.test(name) ? Number(name.replace(/^\+/, "")) : names.get(name);
    out += index === undefined ? "" : (m[index] ?? "");
    i = end;
  }
  return out + template.slice(i);
}

function eachMatch(re: RustRegex, text: string, visit: (m: RegExpExecArray) => boolean): void {
  const regex = re.regex;
  regex.lastIndex = 0;
  let lastEnd = -1;
  while (regex.lastIndex <= text.length) {
    const m = regex.exec(text);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    if (
      start > 0 &&
      isLowSurrogate(text.charCodeAt(start)) &&
      isHighSurrogate(text.charCodeAt(start - 1))
    ) {
      // V8 tries empty-width matches inside a surrogate pair; Rust never splits a char.
      regex.lastIndex = start + 1;
      continue;
    }
    if (start === end && start === lastEnd) {
      regex.lastIndex = advance(text, end);
      continue;
    }
    if (!visit(m)) break;
    lastEnd = end;
    regex.lastIndex = start === end ? advance(text, end) : end;
  }
  regex.lastIndex = 0;
}

/** Rust `Regex::replace_all(text, replacement)` for a compiled pattern (see module doc). */
export function rustReplaceAll(re: RustRegex, text: string, replacement: string): string {
  let out = "";
  let last = 0;
  eachMatch(re, text, (m) => {
    out += text.slice(last, m.index) + expand(replacement, m, re.names);
    last = m.index + m[0].length;
    return true;
  });
  return last === 0 && out === "" ? text : out + text.slice(last);
}

/** Rust `Regex::is_match(text)`: true when the pattern matches anywhere (even empty). */
export function rustIsMatch(re: RustRegex, text: string): boolean {
  let found = false;
  eachMatch(re, text, () => {
    found = true;
    return false;
  });
  return found;
}
