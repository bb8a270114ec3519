/**
 * Generators of the fuzz suite: hostile JSON values (deep nesting, extreme numbers, lone
 * surrogates, prototype keys, long strings), valid seed params (every vector of the test
 * matrix, which covers every stateless method) and mutations of them — one field replaced,
 * removed, added or buried deep — so both the success path (results checked against
 * protocol.json) and the refusal path (typed errors at the right field) are exercised.
 */
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";

/** Strings an attacker would try. */
export const weirdString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom(
    "",
    " ",
    "\t\n",
    "\u0000",
    "\ud800",
    "x\udfffy",
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
    "../../../etc/passwd",
    "/",
    "*",
    "[",
    "(?=x)",
    "(a+)+$",
    "\\",
    "\u2028\u2029",
    "\r\n",
    "\u001b[31mred\u001b[0m",
    "a".repeat(5000),
    "R5",
    "passed",
    "verified",
  ),
);

/** Numbers at and past the edges of what the schemas allow (all JSON-representable). */
export const weirdNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -0,
    -1,
    1,
    1.5,
    1e20,
    -1e20,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    4294967296,
  ),
);

/**
 * Deepest nesting of a generated JS value (well past the 512 limit): fast-check's reporter
 * and JSON.stringify recurse, so deeper values (10^5 levels) are generated as text instead
 * (`deepText`) and sent as raw lines.
 */
export const MAX_VALUE_LEVELS = 1200;

/** JSON text of `leaf` (JSON text) nested `levels` deep in arrays or objects. */
export function deepText(levels: number, kind: "array" | "object", leaf = "null"): string {
  return kind === "array"
    ? `${"[".repeat(levels)}${leaf}${"]".repeat(levels)}`
    : `${'{"k":'.repeat(levels)}${leaf}${"}".repeat(levels)}`;
}

/**
 * A value nested far deeper than fast-check can print (10^3–10^5 levels), carried as a
 * recipe: `materialize` builds it inside the property, and a failure prints the recipe.
 */
export class DeepRecipe {
  constructor(
    readonly levels: number,
    readonly kind: "array" | "object",
  ) {}
  [fc.toStringMethod](): string {
    return `deep(${this.levels} ${this.kind === "array" ? "arrays" : "objects"})`;
  }
}

/** Hostile-deep recipes: a few thousand to 100,000 levels. */
export const deepRecipe: fc.Arbitrary<DeepRecipe> = fc
  .tuple(
    fc.integer({ min: 2000, max: 100_000 }),
    fc.constantFrom("array" as const, "object" as const),
  )
  .map(([levels, kind]) => new DeepRecipe(levels, kind));

/** The value of a recipe (anything else unchanged). */
export function materialize(value: unknown): unknown {
  return value instanceof DeepRecipe ? nest("x", value.levels, value.kind) : value;
}

/** Wraps `leaf` in `levels` arrays or single-key objects (iteratively). */
export function nest(leaf: unknown, levels: number, kind: "array" | "object"): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = kind === "array" ? [v] : { k: v };
  return v;
}

/** A value nested from a few to a few thousand levels. */
export const deepValue: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 1, max: 20 }),
      fc.integer({ min: 500, max: 520 }),
      fc.integer({ min: 1000, max: MAX_VALUE_LEVELS }),
    ),
    fc.constantFrom("array" as const, "object" as const),
    fc.oneof(fc.constant(null), weirdString, weirdNumber),
  )
  .map(([levels, kind, leaf]) => nest(leaf, levels, kind));

/** Any hostile JSON value. */
export const fuzzValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: weirdString },
  { weight: 3, arbitrary: weirdNumber },
  { weight: 1, arbitrary: deepValue },
  { weight: 2, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 2, arbitrary: fc.array(weirdString, { maxLength: 4 }) },
  {
    weight: 2,
    arbitrary: fc.dictionary(weirdString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  },
);

/** One edit of a JSON value. `at` picks the node (modulo the node count). */
export type Edit =
  | { kind: "replace"; at: number; value: unknown }
  | { kind: "delete"; at: number }
  | { kind: "add"; at: number; key: string; value: unknown }
  | { kind: "bury"; at: number; levels: number };

/** Generates edits: replace a node, delete a member, add a member, bury a node deep. */
export const edit: fc.Arbitrary<Edit> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), value: fuzzValue }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("add" as const),
      at: fc.nat(),
      key: weirdString,
      value: fuzzValue,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("bury" as const),
      at: fc.nat(),
      levels: fc.oneof(fc.constant(600), fc.integer({ min: 1, max: MAX_VALUE_LEVELS })),
    }),
  },
);

type Slot = { parent: Record<string, unknown> | unknown[]; key: string | number };

/** Every (parent, key) slot of a JSON value, breadth first, at most `limit`. */
function slots(root: unknown, limit = 400): Slot[] {
  const out: Slot[] = [];
  const queue: unknown[] = [root];
  while (queue.length > 0 && out.length < limit) {
    const node = queue.shift();
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        out.push({ parent: node, key: i });
        queue.push(child);
      });
    } else if (typeof node === "object" && node !== null) {
      for (const [k, child] of Object.entries(node)) {
        out.push({ parent: node as Record<string, unknown>, key: k });
        queue.push(child);
      }
    }
  }
  return out;
}

/** Deep copy of a JSON value, iterative (values here nest thousands of levels). */
export function cloneJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const rootCopy: unknown = Array.isArray(value) ? [] : {};
  const stack: Array<[unknown, Record<string | number, unknown>]> = [
    [value, rootCopy as Record<string, unknown>],
  ];
  while (stack.length > 0) {
    const [from, to] = stack.pop() as [unknown, Record<string | number, unknown>];
    for (const [k, v] of Object.entries(from as object)) {
      if (typeof v === "object" && v !== null) {
        const copy = Array.isArray(v) ? [] : {};
        Object.defineProperty(to, k, {
          value: copy,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        stack.push([v, copy as Record<string, unknown>]);
      } else {
        Object.defineProperty(to, k, {
          value: v,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
  }
  return rootCopy;
}

/** Applies `edits` to a deep copy of `seed` (the seed itself is never changed). */
export function applyEdits(seed: unknown, edits: readonly Edit[]): unknown {
  const root = { v: cloneJson(seed) };
  for (const e of edits) {
    const all = slots(root);
    if (all.length === 0) continue;
    const { parent, key } = all[e.at % all.length] as Slot;
    const p = parent as Record<string | number, unknown>;
    if (e.kind === "replace") p[key] = cloneJson(e.value);
    else if (e.kind === "bury")
      p[key] = nest(p[key], e.levels, e.levels % 2 === 0 ? "array" : "object");
    else if (e.kind === "delete") {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else if (parent !== root) delete p[key];
    } else {
      const target = p[key];
      if (typeof target === "object" && target !== null && !Array.isArray(target)) {
        Object.defineProperty(target, e.key, {
          value: cloneJson(e.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
  }
  return root.v;
}

/** A method call: wire method name and params. */
export interface Call {
  method: string;
  params: unknown;
}

/** Every vector of test-matrix/vectors with a method and params: valid and refused seeds. */
export function matrixSeeds(): Call[] {
  const dir = new URL("../../../../../test-matrix/vectors/", import.meta.url);
  const out: Call[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (!name.endsWith(".json")) continue;
    const doc: unknown = JSON.parse(readFileSync(new URL(name, dir), "utf8"));
    if (!Array.isArray(doc)) continue;
    for (const v of doc as Array<{ method?: unknown; params?: unknown }>) {
      if (typeof v.method === "string" && v.params !== undefined)
        out.push({ method: v.method, params: v.params });
    }
  }
  out.push({
    method: "initialize",
    params: { client: { name: "fuzz", version: "1", language: "ts" } },
  });
  out.push({ method: "initialize", params: {} });
  return out;
}

/**
 * A call built from `seeds`: a seed as is, a seed with 1–3 edits, a seed's params sent to
 * another method, or random params.
 */
export function callArbitrary(
  seeds: readonly Call[],
  methods: readonly string[],
): fc.Arbitrary<Call> {
  const seed = fc.constantFrom(...seeds);
  return fc.oneof(
    { weight: 2, arbitrary: seed },
    {
      weight: 6,
      arbitrary: fc
        .tuple(seed, fc.array(edit, { minLength: 1, maxLength: 3 }))
        .map(([s, edits]) => ({ method: s.method, params: applyEdits(s.params, edits) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(seed, fc.constantFrom(...methods))
        .map(([s, method]) => ({ method, params: s.params })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...methods),
          fc.oneof(fuzzValue, fc.dictionary(weirdString, fuzzValue)),
        )
        .map(([method, params]) => ({ method, params })),
    },
  );
}
