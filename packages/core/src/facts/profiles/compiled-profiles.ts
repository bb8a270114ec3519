/**
 * A profile record set validated and indexed once, for planning many queries over a large
 * store (harn-verification.md §1.5, §1.9). `compileProfiles` validates the whole record
 * set with zod (the store's own rules), reads every row's scope selectors and ladder fields
 * once, and indexes the rows by their `scope.language` selector, so `profileMatches` and
 * `ladderPlan` given a `CompiledProfiles` as `profiles` visit only the rows that can match
 * and never re-check a row. The answers are those of the plain record set.
 */
import { isDict } from "../harn-values.js";
import { type LadderRowFacts, ladderRowFacts } from "./ladder-row.js";
import { parseProfileRecordSet } from "./record-set.js";
import type { ProfileRecordSet, ProfileRow } from "./schemas.js";
import { type ScopeFacts, scopeFacts } from "./scope-facts.js";

/**
 * A deep copy of lists and dicts (other values as they are), iterative so a deeply nested
 * value cannot overflow the stack. An own `__proto__` key (JSON.parse makes one) stays a
 * key, never the prototype.
 */
function deepCopy(value: unknown): unknown {
  const copyOf = (v: unknown): unknown =>
    Array.isArray(v) ? new Array(v.length) : isDict(v) ? {} : v;
  const root = copyOf(value);
  const stack: [unknown, unknown][] = [[value, root]];
  while (stack.length > 0) {
    const [from, to] = stack.pop() as [unknown, unknown];
    if (Array.isArray(from)) {
      const out = to as unknown[];
      for (let i = 0; i < from.length; i++) {
        const c = copyOf(from[i]);
        out[i] = c;
        if (c !== from[i]) stack.push([from[i], c]);
      }
    } else if (isDict(from)) {
      const out = to as Record<string, unknown>;
      for (const key of Object.keys(from)) {
        const c = copyOf(from[key]);
        if (key === "__proto__") {
          Object.defineProperty(out, key, {
            value: c,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else out[key] = c;
        if (c !== from[key]) stack.push([from[key], c]);
      }
    }
  }
  return root;
}

/** One row of a compiled record set. */
export interface CompiledRow {
  row: ProfileRow;
  /** Position in `rows`. */
  index: number;
  scope: ScopeFacts;
  ladder: LadderRowFacts;
}

/** Options of `compileProfiles`. */
export interface CompileProfilesOptions {
  /** Path prefix of validation errors; default `profiles`. */
  path?: string;
  /**
   * `true` (default): compile a deep copy, so later changes to the value given cannot make
   * the index disagree with its rows. `false`: the caller hands the value over and does
   * not change it afterwards (the profile store does this with the JSON it just parsed).
   */
  copy?: boolean;
}

/** A validated, indexed record set; build with `compileProfiles`. */
export class CompiledProfiles {
  /** @internal Use `compileProfiles`. */
  constructor(
    /** The record set (validated). */
    readonly recordSet: ProfileRecordSet,
    /** Every row, in order. */
    readonly rows: readonly CompiledRow[],
    /** Rows declaring `scope.language`, by the lowercased language, in row order. */
    readonly byLanguage: ReadonlyMap<string, readonly CompiledRow[]>,
    /** Rows declaring no language, in row order. */
    readonly anyLanguage: readonly CompiledRow[],
  ) {}
}

/**
 * Validates `value` as a profile record set (§2.6; the same rules as
 * `parseProfileRecordSet`) and compiles it for `profileMatches` / `ladderPlan` /
 * `hudModel` (pass the result as `options.profiles`). Cost: one zod pass over the record
 * set plus one read of every row. Throws `TurngateValidationError` naming the first bad
 * field under `options.path` (e.g. `profiles.rows.3.timings.warmMs.p95`).
 */
export function compileProfiles(
  value: unknown,
  options: CompileProfilesOptions = {},
): CompiledProfiles {
  const o: CompileProfilesOptions = isDict(options) ? options : {};
  const path = typeof o.path === "string" ? o.path : "profiles";
  const set = parseProfileRecordSet(value, path);
  const owned = o.copy === false ? set : (deepCopy(set) as ProfileRecordSet);
  const rows: CompiledRow[] = [];
  const byLanguage = new Map<string, CompiledRow[]>();
  const anyLanguage: CompiledRow[] = [];
  const list = owned.rows ?? [];
  for (let index = 0; index < list.length; index++) {
    const row = list[index] as ProfileRow;
    const compiled: CompiledRow = {
      row,
      index,
      scope: scopeFacts(row),
      ladder: ladderRowFacts(row, index),
    };
    rows.push(compiled);
    const language = compiled.scope.languageLower;
    if (language === undefined) anyLanguage.push(compiled);
    else {
      const bucket = byLanguage.get(language);
      if (bucket === undefined) byLanguage.set(language, [compiled]);
      else bucket.push(compiled);
    }
  }
  return new CompiledProfiles(owned, rows, byLanguage, anyLanguage);
}
