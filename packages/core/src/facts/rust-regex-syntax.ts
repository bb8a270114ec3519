/**
 * Translation of Rust `regex` syntax into RE2 syntax for re2js (harn-verification.md §2.14,
 * §3.7: Harn compiles normalization patterns with Rust's `regex`). The parser follows Rust's
 * grammar and error rules; the output spells every construct so that RE2 gives it Rust's
 * meaning, and never depends on RE2's defaults:
 * - `\s \d \w` are Unicode-aware as in Rust (RE2's are ASCII); `(?-u)` gives the ASCII forms.
 * - `.` is `[^\n]` (`(?s)`: any character); `^`/`$` are `\A`/`\z`, or RE2's multi-line
 *   `(?m:^)`/`(?m:$)` under `(?m)`. Flags `i m s U u x R` are resolved here; only `i` reaches
 *   RE2, as `(?i:…)` around each literal or class.
 * - classes with `&&`, `--`, `~~`, nesting and negation go through `rust-regex-class.ts`.
 * - word boundaries (`\b \B \< \>`, `\b{start|end|start-half|end-half}`): RE2's `\b` is
 *   ASCII-only. On an ASCII text that is Rust's `\b`; on any other text a pattern with a
 *   Unicode boundary runs on a *marked* text (see `rust-regex-marked.ts`) whose markers
 *   carry each character's Unicode word-ness as ASCII word-ness. The `start`/`end` forms add
 *   a one-character look-behind. {@link translateRustRegex} therefore takes a mode.
 * - named groups become plain groups; the name → index table is returned.
 */
import { InvalidRegexError } from "./invalid-regex-error.js";
import { type ClassExpr, ClassTooComplexError, classToRe2 } from "./rust-regex-class.js";

/**
 * Deepest nesting of groups and bracket classes a pattern may have. Rust's `regex` rejects
 * patterns nested deeper than its default `nest_limit`, 250; this uses the same number.
 */
export const MAX_REGEX_NESTING = 250;

/** Longest pattern accepted, in UTF-16 code units (Rust has no such limit, only a size limit). */
export const MAX_REGEX_PATTERN_LENGTH = 65_536;

/**
 * `direct`: the pattern runs on the text itself. `marked`: it runs on the marked text, where
 * every character stands between two marker characters (see `rust-regex-marked.ts`); the
 * body is then wrapped by {@link markedSearch}.
 */
export type TranslationMode = "direct" | "marked";

/** A translated pattern. */
export interface Re2Translation {
  /** RE2 syntax for re2js (in marked mode the body for {@link markedSearch}). */
  readonly source: string;
  /** Capture group name → group index (Rust numbering; RE2 gets unnamed groups). */
  readonly names: ReadonlyMap<string, number>;
  /** Uses a Unicode word-boundary assertion (needs the marked mode on non-ASCII text). */
  readonly unicodeBoundary: boolean;
  /** Uses a look-behind: compile with `RE2JS.LOOKBEHINDS`. */
  readonly lookbehind: boolean;
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

const WORD_ASCII = "[0-9A-Za-z_]";
/** Rust's Unicode `\w`: Alphabetic, M, Nd, Pc, Join_Control (U+200C, U+200D). */
const WORD_ITEMS = ["\\p{Alphabetic}", "\\p{M}", "\\p{Nd}", "\\p{Pc}", "\\x{200c}-\\x{200d}"];
export const WORD_UNICODE = `[${WORD_ITEMS.join("")}]`;
/** Rust's Unicode `\s`: the White_Space property. */
const SPACE_ITEMS = [
  "\\x{9}-\\x{d}",
  " ",
  "\\x{85}",
  "\\x{a0}",
  "\\x{1680}",
  "\\x{2000}-\\x{200a}",
  "\\x{2028}-\\x{2029}",
  "\\x{202f}",
  "\\x{205f}",
  "\\x{3000}",
];
const SPACE_ASCII_ITEMS = ["\\x{9}-\\x{d}", " "];
const WS_CHAR = new RegExp(`^[${SPACE_ITEMS.join("").replaceAll("\\x", "\\u")}]$`, "u");

const ASCII_CLASSES: Record<string, readonly string[]> = {
  alnum: ["0-9", "A-Z", "a-z"],
  alpha: ["A-Z", "a-z"],
  ascii: ["\\x{0}-\\x{7f}"],
  blank: ["\\x{9}", " "],
  cntrl: ["\\x{0}-\\x{1f}", "\\x{7f}"],
  digit: ["0-9"],
  graph: ["!-~"],
  lower: ["a-z"],
  print: [" -~"],
  punct: ["!-/", ":-@", "\\[-`", "\\{-~"],
  space: ["\\x{9}-\\x{d}", " "],
  upper: ["A-Z"],
  word: ["0-9", "A-Z", "a-z", "_"],
  xdigit: ["0-9", "A-F", "a-f"],
};

/** Unicode general category long names (loose-matched) → the short names RE2 knows. */
const CATEGORY_ALIASES: Record<string, string> = {
  letter: "L",
  casedletter: "LC",
  uppercaseletter: "Lu",
  lowercaseletter: "Ll",
  titlecaseletter: "Lt",
  modifierletter: "Lm",
  otherletter: "Lo",
  mark: "M",
  combiningmark: "M",
  nonspacingmark: "Mn",
  spacingmark: "Mc",
  enclosingmark: "Me",
  number: "N",
  decimalnumber: "Nd",
  digit: "Nd",
  letternumber: "Nl",
  othernumber: "No",
  punctuation: "P",
  punct: "P",
  connectorpunctuation: "Pc",
  dashpunctuation: "Pd",
  openpunctuation: "Ps",
  closepunctuation: "Pe",
  initialpunctuation: "Pi",
  finalpunctuation: "Pf",
  otherpunctuation: "Po",
  symbol: "S",
  mathsymbol: "Sm",
  currencysymbol: "Sc",
  modifiersymbol: "Sk",
  othersymbol: "So",
  separator: "Z",
  spaceseparator: "Zs",
  lineseparator: "Zl",
  paragraphseparator: "Zp",
  other: "C",
  control: "Cc",
  cntrl: "Cc",
  format: "Cf",
  surrogate: "Cs",
  privateuse: "Co",
  unassigned: "Cn",
};

/** Unicode properties RE2 lacks, spelled as explicit ranges. */
const PROPERTY_RANGES: Record<string, readonly string[]> = {
  ascii: ["\\x{0}-\\x{7f}"],
  joincontrol: ["\\x{200c}-\\x{200d}"],
  joinc: ["\\x{200c}-\\x{200d}"],
  whitespace: SPACE_ITEMS,
  wspace: SPACE_ITEMS,
  space: SPACE_ITEMS,
};

/** Rust regex-syntax `is_meta_character`. */
const META = new Set("\\.+*?()|[]{}^$#&-~".split(""));

function lit(cp: number): string {
  if ((cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122))
    return String.fromCharCode(cp);
  return `\\x{${cp.toString(16)}}`;
}

function isAsciiAlnum(ch: string): boolean {
  return /^[0-9A-Za-z]$/.test(ch);
}

const items = (list: readonly string[]): ClassExpr => ({ kind: "items", items: list });
const not = (of: ClassExpr): ClassExpr => ({ kind: "not", of });

type Boundary = "b" | "B" | "start" | "end" | "start-half" | "end-half";

/** ASCII word boundaries (and Unicode ones on an all-ASCII text) from RE2's `\b`/`\B`. */
const ASCII_BOUNDARY: Record<Boundary, string> = {
  b: "\\b",
  B: "\\B",
  start: `(?<!${WORD_ASCII})\\b`,
  end: `(?<=${WORD_ASCII})\\b`,
  "start-half": `(?<!${WORD_ASCII})`,
  "end-half": `(?:(?<=${WORD_ASCII})\\b|(?<!${WORD_ASCII})\\B)`,
};

/**
 * The marked-mode pattern around a translated body: anchored at the start of the input, it
 * skips whole marked characters (three code points each) lazily, so the body can only start
 * at a character gap and the leftmost such start wins, as in an unanchored search. Group 1 is
 * the match. `inside`: the input starts with one context character (the marker before the
 * gap the search starts at), skipped first.
 */
export function markedSearch(body: string, inside: boolean): string {
  return `\\A${inside ? "(?s:.)" : ""}(?:(?s:.)(?s:.)(?s:.))*?(${body})`;
}

class Translator {
  private pos = 0;
  private readonly chars: string[];
  private groupCount = 0;
  private classDepth = 0;
  readonly names = new Map<string, number>();
  unicodeBoundary = false;
  asciiBoundary = false;
  lookbehind = false;

  constructor(
    private readonly pattern: string,
    private readonly mode: TranslationMode,
    private readonly validProperty: (name: string) => boolean,
  ) {
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

  /** The next `n` characters as a string (a bounded window, never the whole rest). */
  private ahead(n: number): string {
    return this.chars.slice(this.pos, this.pos + n).join("");
  }

  translate(): string {
    const flags: Flags = { i: false, m: false, s: false, U: false, u: true, x: false, R: false };
    const out = this.alternation(flags, 0);
    if (!this.eof()) this.fail("unopened group");
    if (this.unicodeBoundary && this.asciiBoundary)
      this.fail("Unicode and ASCII ((?-u)) word boundaries in one pattern are not supported here");
    return out;
  }

  private parseFlagString(text: string, base: Flags): Flags {
    const flags = { ...base };
    let negate = false;
    let sawDash = false;
    const seen = new Set<string>();
    for (const ch of text) {
      if (ch === "-") {
        if (sawDash) this.fail("repeated negation in flags");
        negate = true;
        sawDash = true;
        continue;
      }
      if (!"imsUuxR".includes(ch)) this.fail(`unrecognized flag ${ch}`);
      if (seen.has(ch)) this.fail("duplicate flag");
      seen.add(ch);
      flags[ch as keyof Flags] = !negate;
    }
    if (text.endsWith("-")) this.fail("flag negation without a flag");
    return flags;
  }

  /** alternation := concat ('|' concat)* ; stops before ')' or end. */
  private alternation(flags: Flags, depth: number): string {
    if (depth > MAX_REGEX_NESTING)
      this.fail(`exceeds the nesting limit of ${MAX_REGEX_NESTING} groups`);
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
    let text = atom;
    for (;;) {
      this.skipExtended(flags);
      const rep = this.repetition(flags);
      if (rep === "") return text;
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
      const window = this.ahead(64);
      const m = flags.x
        ? /^\{\s*([0-9]+)\s*(?:(,)\s*([0-9]*)\s*)?\}/u.exec(window)
        : /^\{([0-9]+)(?:(,)([0-9]*))?\}/u.exec(window);
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

  /** A consuming atom: `text` matches one character; adds case folding and the marker. */
  private consume(text: string, flags: Flags): string {
    const body = flags.i ? `(?i:${text})` : text;
    return this.mode === "marked" ? `(?:(?s:.)${body}(?s:.))` : body;
  }

  private classAtom(e: ClassExpr, flags: Flags): string {
    let c: { text: string; lookbehind: boolean };
    try {
      c = classToRe2(e);
    } catch (err) {
      if (err instanceof ClassTooComplexError)
        this.fail("character class set operations too complex");
      throw err;
    }
    if (c.lookbehind) this.lookbehind = true;
    return this.consume(c.text, flags);
  }

  private boundary(kind: Boundary, flags: Flags): string {
    this.lookbehind ||= kind !== "b" && kind !== "B";
    if (!flags.u) {
      this.asciiBoundary = true;
      return ASCII_BOUNDARY[kind];
    }
    // On the marked text the markers carry the Unicode word-ness as ASCII word-ness, so the
    // ASCII forms are the Unicode boundaries there; the direct mode only runs them on ASCII.
    this.unicodeBoundary = true;
    return ASCII_BOUNDARY[kind];
  }

  private atom(flags: Flags, depth: number): string | null {
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
        return this.classAtom(this.charClass(flags), flags);
      case ".":
        if (!flags.u) this.fail("pattern can match invalid UTF-8");
        if (flags.s) return this.consume("(?s:.)", flags);
        return this.consume(flags.R ? "[^\\n\\r]" : "[^\\n]", flags);
      case "^":
        if (!flags.m) return "\\A";
        if (flags.R) this.fail("multi-line anchors in CRLF mode (?mR) are not supported here");
        return "(?m:^)";
      case "$":
        if (!flags.m) return "\\z";
        if (flags.R) this.fail("multi-line anchors in CRLF mode (?mR) are not supported here");
        return "(?m:$)";
      case "\\":
        return this.escape(flags);
      case "*":
      case "+":
      case "?":
      case "{":
        return this.fail("repetition operator missing expression");
      default:
        return this.consume(lit(ch.codePointAt(0) as number), flags);
    }
  }

  private groupName(): string | null {
    // After `(?`: `P<name>` or `<name>`.
    let i = this.pos;
    if (this.chars[i] === "P") i++;
    if (this.chars[i] !== "<") return null;
    const start = i + 1;
    let end = start;
    while (end < this.chars.length && this.chars[end] !== ">") end++;
    if (end >= this.chars.length) this.fail("unclosed capture group name");
    const name = this.chars.slice(start, end).join("");
    this.pos = end + 1;
    return name;
  }

  private group(flags: Flags, depth: number): string | null {
    if (this.peek() !== "?") {
      this.groupCount++;
      const body = this.alternation(flags, depth + 1);
      this.expect(")");
      return `(${body})`;
    }
    this.pos++; // '?'
    const two = this.ahead(2);
    if (two.startsWith("=") || two.startsWith("!") || two === "<=" || two === "<!") {
      this.fail("look-around, including look-ahead and look-behind, is not supported");
    }
    const name = this.groupName();
    if (name !== null) {
      if (!/^[_\p{Alphabetic}][_\p{Alphabetic}\p{Nd}.[\]]*$/u.test(name))
        this.fail("invalid capture group name");
      if (this.names.has(name)) this.fail("duplicate capture group name");
      this.groupCount++;
      this.names.set(name, this.groupCount);
      const body = this.alternation(flags, depth + 1);
      this.expect(")");
      return `(${body})`;
    }
    let flagText = "";
    while (!this.eof() && this.peek() !== ":" && this.peek() !== ")") {
      const c = this.peek() as string;
      if (!"imsUuxR-".includes(c)) this.fail("unrecognized group syntax");
      flagText += c;
      this.pos++;
    }
    if (this.eof()) this.fail("unclosed group");
    const close = this.peek();
    this.pos++;
    const next = this.parseFlagString(flagText, flags);
    if (close === ")") {
      // `(?flags)` changes the flags for the rest of the enclosing group.
      Object.assign(flags, next);
      return null;
    }
    const body = this.alternation(next, depth + 1);
    this.expect(")");
    return `(?:${body})`;
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
      while (!this.eof() && this.peek() !== "}" && text.length <= 8) text += this.chars[this.pos++];
      this.expect("}");
    } else {
      text = this.ahead(digits);
      if (Array.from(text).length !== digits) this.fail("incomplete escape sequence");
      this.pos += digits;
    }
    if (!/^[0-9A-Fa-f]{1,8}$/.test(text)) this.fail("invalid hexadecimal digit");
    const cp = Number.parseInt(text, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) this.fail("invalid Unicode scalar value");
    return cp;
  }

  private unicodeClass(negated: boolean): ClassExpr {
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
    let key = "";
    const op = /\s*(!=|=|:)\s*/.exec(body);
    if (op) {
      if (op[1] === "!=") negate = !negate;
      key = body.slice(0, op.index);
      body = body.slice(op.index + op[0].length);
    }
    const resolved = this.property(key, body);
    if (resolved === null) this.fail(`unrecognized Unicode class ${JSON.stringify(name)}`);
    return negate ? not(resolved) : resolved;
  }

  /** Resolves a Rust Unicode class name (matched loosely, as Rust does) to RE2 items. */
  private property(key: string, value: string): ClassExpr | null {
    const loose = (t: string) => t.toLowerCase().replace(/[\s_-]/g, "");
    const k = loose(key);
    if (k !== "" && !["gc", "generalcategory", "sc", "script"].includes(k)) return null;
    const v = loose(value);
    if (k === "" || k === "gc" || k === "generalcategory") {
      const ranges = k === "" ? PROPERTY_RANGES[v] : undefined;
      if (ranges !== undefined) return items(ranges);
      const alias = CATEGORY_ALIASES[v];
      if (alias !== undefined) return items([`\\p{${alias}}`]);
    }
    const capital = (t: string) =>
      t
        .trim()
        .replace(/[\s-]+/g, "_")
        .toLowerCase()
        .replace(/(^|_)([a-z])/g, (_m, a: string, b: string) => a + b.toUpperCase());
    for (const candidate of [value.trim(), capital(value)]) {
      if (/^[A-Za-z0-9_&]+$/.test(candidate) && this.validProperty(candidate))
        return items([`\\p{${candidate}}`]);
    }
    return null;
  }

  /** Escape outside a class. */
  private escape(flags: Flags): string {
    const ch = this.peek();
    if (ch === undefined) this.fail("incomplete escape sequence");
    this.pos++;
    switch (ch) {
      case "b": {
        if (this.peek() === "{") {
          const m = /^\{(start|end|start-half|end-half)\}/.exec(this.ahead(12));
          if (!m) this.fail("unrecognized word boundary");
          this.pos += m[0].length;
          return this.boundary(m[1] as Boundary, flags);
        }
        return this.boundary("b", flags);
      }
      case "B":
        return this.boundary("B", flags);
      case "<":
        return this.boundary("start", flags);
      case ">":
        return this.boundary("end", flags);
      case "A":
        return "\\A";
      case "z":
        return "\\z";
      default: {
        const e = this.classEscape(ch, flags);
        return typeof e === "number" ? this.consume(lit(e), flags) : this.classAtom(e, flags);
      }
    }
  }

  /**
   * Escapes valid both inside and outside a class: a code point for a literal, or a class
   * expression for `\d \s \w \p …`. `ch` is the char after `\`.
   */
  private classEscape(ch: string, flags: Flags): number | ClassExpr {
    switch (ch) {
      case "d":
        return items(flags.u ? ["\\p{Nd}"] : ["0-9"]);
      case "D":
        return not(items(flags.u ? ["\\p{Nd}"] : ["0-9"]));
      case "s":
        return items(flags.u ? SPACE_ITEMS : SPACE_ASCII_ITEMS);
      case "S":
        return not(items(flags.u ? SPACE_ITEMS : SPACE_ASCII_ITEMS));
      case "w":
        return items(flags.u ? WORD_ITEMS : (ASCII_CLASSES.word ?? []));
      case "W":
        return not(items(flags.u ? WORD_ITEMS : (ASCII_CLASSES.word ?? [])));
      case "p":
        return this.unicodeClass(false);
      case "P":
        return this.unicodeClass(true);
      case "n":
        return 10;
      case "t":
        return 9;
      case "r":
        return 13;
      case "f":
        return 12;
      case "v":
        return 11;
      case "a":
        return 7;
      case "x":
        return this.peek() === "{" ? this.hexEscape("braced") : this.hexEscape(2);
      case "u":
        return this.peek() === "{" ? this.hexEscape("braced") : this.hexEscape(4);
      case "U":
        return this.peek() === "{" ? this.hexEscape("braced") : this.hexEscape(8);
      default: {
        const cp = ch.codePointAt(0) as number;
        if (META.has(ch) || (cp < 128 && !isAsciiAlnum(ch) && ch !== "<" && ch !== ">")) return cp;
        if (ch >= "0" && ch <= "9") this.fail("backreferences are not supported");
        return this.fail("unrecognized escape sequence");
      }
    }
  }

  /** Parses a class after its `[`. */
  private charClass(flags: Flags): ClassExpr {
    this.classDepth++;
    if (this.classDepth > MAX_REGEX_NESTING)
      this.fail(`exceeds the nesting limit of ${MAX_REGEX_NESTING} classes`);
    let negated = false;
    if (this.peek() === "^") {
      this.pos++;
      negated = true;
    }
    const body = this.classSet(flags, true);
    this.expect("]");
    this.classDepth--;
    return negated ? not(body) : body;
  }

  /** class set := union (op union)* with left-associative `&&`, `--`, `~~`. */
  private classSet(flags: Flags, first: boolean): ClassExpr {
    let left = this.classUnion(flags, first);
    for (;;) {
      this.skipClassSpace(flags);
      const a = this.peek();
      const b = this.peek(1);
      const op = a !== undefined && a === b && (a === "&" || a === "-" || a === "~") ? a : null;
      if (op === null) return left;
      this.pos += 2;
      const right = this.classUnion(flags, false);
      left =
        op === "&"
          ? { kind: "and", of: [left, right] }
          : op === "-"
            ? { kind: "and", of: [left, not(right)] }
            : {
                kind: "or",
                of: [
                  { kind: "and", of: [left, not(right)] },
                  { kind: "and", of: [right, not(left)] },
                ],
              };
    }
  }

  private skipClassSpace(flags: Flags): void {
    if (!flags.x) return;
    while (!this.eof() && WS_CHAR.test(this.peek() as string)) this.pos++;
  }

  /** A union of items up to `]` or a set operator. */
  private classUnion(flags: Flags, first: boolean): ClassExpr {
    const plain: string[] = [];
    const others: ClassExpr[] = [];
    let count = 0;
    let allowLeadingBracket = first;
    for (;;) {
      this.skipClassSpace(flags);
      const ch = this.peek();
      if (ch === undefined) this.fail("unclosed character class");
      if (ch === "]" && !allowLeadingBracket) break;
      const next = this.peek(1);
      if (ch !== "]" && next === ch && (ch === "&" || ch === "~" || (ch === "-" && count > 0)))
        break;
      allowLeadingBracket = false;
      count++;
      if (ch === "[") {
        const ascii = /^\[:(\^)?([a-z]+):\]/.exec(this.ahead(12));
        if (ascii) {
          const set = ASCII_CLASSES[ascii[2] ?? ""];
          if (set === undefined) this.fail("invalid ASCII class name");
          this.pos += ascii[0].length;
          if (ascii[1]) others.push(not(items(set)));
          else plain.push(...set);
          continue;
        }
        this.pos++;
        others.push(this.charClass(flags));
        continue;
      }
      const start = this.classMember(flags);
      this.skipClassSpace(flags);
      if (
        this.peek() === "-" &&
        this.peek(1) !== "]" &&
        this.peek(1) !== "-" &&
        typeof start === "number"
      ) {
        this.pos++;
        this.skipClassSpace(flags);
        const end = this.classMember(flags);
        if (typeof end !== "number") this.fail("invalid range boundary");
        if (end < start) this.fail("invalid character class range");
        plain.push(`${lit(start)}-${lit(end)}`);
        continue;
      }
      if (typeof start === "number") plain.push(lit(start));
      else if (start.kind === "items") plain.push(...start.items);
      else others.push(start);
    }
    if (count === 0) this.fail("empty character class");
    if (plain.length > 0) others.unshift(items(plain));
    return others.length === 1 ? (others[0] as ClassExpr) : { kind: "or", of: others };
  }

  /** One class member: a literal code point or an escape class. */
  private classMember(flags: Flags): number | ClassExpr {
    const ch = this.peek() as string;
    this.pos++;
    if (ch === "\\") {
      const e = this.peek();
      if (e === undefined) this.fail("incomplete escape sequence");
      this.pos++;
      if (e === "<" || e === ">") this.fail("unrecognized escape sequence");
      return this.classEscape(e, flags);
    }
    return ch.codePointAt(0) as number;
  }
}

/**
 * Translates a Rust-syntax pattern to RE2 syntax for `mode` (see module doc).
 * `validProperty(name)` tells whether RE2 knows `\p{name}`. Throws {@link InvalidRegexError}
 * (no path; the caller adds it) for a pattern Rust rejects, one nested deeper than
 * {@link MAX_REGEX_NESTING} or longer than {@link MAX_REGEX_PATTERN_LENGTH} code units, or
 * one using a construct this translation does not support.
 */
export function translateRustRegex(
  pattern: string,
  mode: TranslationMode,
  validProperty: (name: string) => boolean,
): Re2Translation {
  if (pattern.length > MAX_REGEX_PATTERN_LENGTH)
    throw new InvalidRegexError(
      pattern,
      `pattern longer than ${MAX_REGEX_PATTERN_LENGTH} UTF-16 code units`,
    );
  const t = new Translator(pattern, mode, validProperty);
  const source = t.translate();
  return { source, names: t.names, unicodeBoundary: t.unicodeBoundary, lookbehind: t.lookbehind };
}
