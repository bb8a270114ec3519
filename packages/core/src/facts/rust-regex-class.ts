/**
 * Rust regex character classes as RE2 (re2js) syntax, for the translation in
 * `rust-regex-syntax.ts` (harn-verification.md §3.7 normalization patterns).
 *
 * A Rust class is a boolean expression over class items: union (`[ab]`), negation (`[^…]`,
 * `\W`), intersection `&&`, difference `--`, symmetric difference `~~`, nesting. RE2 classes
 * are only unions of items, optionally negated. The expression is brought into disjunctive
 * normal form: a union of terms, each term a conjunction of (possibly negated) RE2 bracket
 * classes. A term consumes one character with its first class and checks the others with a
 * one-character look-behind (`(?<=[…])` / `(?<![…])`), which re2js evaluates in linear time.
 * A plain union or a negated union, by far the common case, stays one RE2 bracket class.
 *
 * Case-insensitivity is applied by the caller wrapping the result in `(?i:…)`: RE2 then folds
 * every bracket class before negating it, which is the order Rust's `regex` uses (fold each
 * operand, then apply the set operation or the negation), so the DNF keeps Rust's meaning.
 */

/** One RE2 bracket-class item: `a`, `\x{e9}-\x{ff}`, `\p{Greek}`, `\P{Nd}`. */
export type ClassItem = string;

/** A Rust class as a boolean expression over RE2 bracket-class items. */
export type ClassExpr =
  | { readonly kind: "items"; readonly items: readonly ClassItem[] }
  | { readonly kind: "not"; readonly of: ClassExpr }
  | { readonly kind: "and" | "or"; readonly of: readonly ClassExpr[] };

/** Most terms a class may need in disjunctive normal form (set operations multiply them). */
export const MAX_CLASS_TERMS = 64;

interface Literal {
  readonly negated: boolean;
  readonly items: readonly ClassItem[];
}
type Term = readonly Literal[];

/** Thrown when a class needs more than {@link MAX_CLASS_TERMS} terms. */
export class ClassTooComplexError extends Error {}

function product(a: readonly Term[], b: readonly Term[]): Term[] {
  if (a.length * b.length > MAX_CLASS_TERMS) throw new ClassTooComplexError();
  const out: Term[] = [];
  for (const x of a) for (const y of b) out.push([...x, ...y]);
  return out;
}

function dnf(e: ClassExpr): Term[] {
  switch (e.kind) {
    case "items":
      return [[{ negated: false, items: e.items }]];
    case "or": {
      const out = e.of.flatMap(dnf);
      if (out.length > MAX_CLASS_TERMS) throw new ClassTooComplexError();
      return out;
    }
    case "and":
      return e.of.reduce<Term[]>((acc, x) => product(acc, dnf(x)), [[]]);
    case "not": {
      // ¬(t1 ∨ t2 ∨ …) = ¬t1 ∧ ¬t2 ∧ …, and ¬(l1 ∧ l2 ∧ …) = ¬l1 ∨ ¬l2 ∨ …
      let acc: Term[] = [[]];
      for (const term of dnf(e.of))
        acc = product(
          acc,
          term.map((l) => [{ negated: !l.negated, items: l.items }]),
        );
      return acc;
    }
  }
}

const NEVER = "[^\\x{0}-\\x{10FFFF}]";
const ANY = "(?s:.)";

function bracket(l: Literal): string {
  return `[${l.negated ? "^" : ""}${l.items.join("")}]`;
}

function emitTerm(term: Term): string {
  if (term.length === 0) return ANY;
  const first = term.find((l) => !l.negated) ?? (term[0] as Literal);
  let out = bracket(first);
  for (const l of term) {
    if (l === first) continue;
    out += l.negated ? `(?<!${bracket({ ...l, negated: false })})` : `(?<=${bracket(l)})`;
  }
  return out;
}

/**
 * The RE2 text matching exactly one character of the class `e`, and whether it uses a
 * look-behind (then it must be compiled with `RE2JS.LOOKBEHINDS`). Throws
 * {@link ClassTooComplexError} past {@link MAX_CLASS_TERMS} terms.
 */
export function classToRe2(e: ClassExpr): { text: string; lookbehind: boolean } {
  const terms = dnf(e);
  if (terms.length === 0) return { text: NEVER, lookbehind: false };
  const union: ClassItem[] = [];
  const rest: Term[] = [];
  for (const t of terms) {
    const only = t.length === 1 ? t[0] : undefined;
    if (only !== undefined && !only.negated) union.push(...only.items);
    else rest.push(t);
  }
  const parts = rest.map(emitTerm);
  if (union.length > 0) parts.unshift(`[${union.join("")}]`);
  const lookbehind = rest.some((t) => t.length > 1);
  return { text: parts.length === 1 ? (parts[0] as string) : `(?:${parts.join("|")})`, lookbehind };
}
