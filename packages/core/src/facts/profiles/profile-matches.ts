/**
 * `profileMatches`: the profile rows that apply to a query, most specific first
 * (harn-verification.md §1.5 `verification_profile_matches`, §3.5).
 */

import * as z from "zod";
import { invalid, validated } from "../../validate.js";
import { display, isDict, isNil, rustTrim } from "../harn-values.js";
import { CompiledProfiles, type CompiledRow } from "./compiled-profiles.js";
import { checkRecordSetForMatching } from "./read-checks.js";
import { ProfileQuerySchema, type ProfileRecordSet, type ProfileRow } from "./schemas.js";
import { asciiLower, type ParsedQuery, scopeFacts, specificityOf } from "./scope-facts.js";

export type { ParsedQuery } from "./scope-facts.js";

/** One applicable row (`VerificationProfileMatch`). */
export interface ProfileMatch {
  row: ProfileRow;
  /** Bit set: repo 1, dir 2, language 4, task 8 — the selectors the row declares. */
  specificity: number;
  /** The row's 0-based position in `rows`. */
  index: number;
}

/** Options of `profileMatches`. */
export interface ProfileMatchesOptions {
  /**
   * The record set to read (turngate: the node store passes its own), or a
   * `CompiledProfiles` (`compileProfiles`) to plan many queries over one store; nil = no store.
   */
  profiles?: unknown;
  /** Store directory (Harn's `dir`): read by the node store; ignored by this pure function. */
  dir?: string | null;
}

/** Query parsing: each value's display string; nil or blank → absent. Non-dict → all absent. */
export function parseProfileQuery(query: unknown, path = "query"): ParsedQuery {
  if (!isDict(query)) {
    if (!isNil(query)) validated(ProfileQuerySchema, query, "profile query", path);
    return {};
  }
  validated(ProfileQuerySchema, query, "profile query", path);
  const out: ParsedQuery = {};
  for (const key of ["repo", "path", "language", "task"] as const) {
    const v = query[key];
    if (isNil(v)) continue;
    const text = display(v);
    if (rustTrim(text) !== "") out[key] = text;
  }
  if (out.language !== undefined) out.languageLower = asciiLower(out.language);
  return out;
}

/**
 * Specificity of `row` for `query`, or `null` when the row does not apply: for every
 * selector the row declares as a non-blank string in `scope` (trimmed) — `repo` equal (1),
 * `dir` a glob matching `query.path` (2), `language` equal ignoring ASCII case (4), `task`
 * equal (8) — an absent or unequal query value excludes the row. No scope → 0. Throws
 * `TurngateValidationError` when `row` is not an object (path `row`) or `query` is not a
 * parsed query, an object whose `repo`, `path`, `language`, `task` are strings when
 * present (path `query`, `query.repo`, …).
 */
export function rowSpecificity(row: ProfileRow, query: ParsedQuery): number | null {
  if (!isDict(row)) invalid("profile row", "row", "expected an object");
  return specificityOf(
    scopeFacts(row),
    validated(ParsedQuerySchema, query, "profile query", "query"),
  );
}

/** What `rowSpecificity` reads of a query (`parseProfileQuery` output). */
const ParsedQuerySchema = z.looseObject({
  repo: z.string().optional(),
  path: z.string().optional(),
  language: z.string().optional(),
  task: z.string().optional(),
  languageLower: z.string().optional(),
});

/**
 * Every row of `options.profiles` that applies to `query` (`{repo?, path?, language?,
 * task?}`), as `{row, specificity, index}` sorted by specificity descending, then index
 * ascending (most specific wins). No record set or no rows → `[]`.
 * Throws `TurngateValidationError` for a malformed query (path `query.*`), options that
 * are not an object (path `options`) or a malformed record set (path `options.profiles.*`).
 */
export function profileMatches(
  query: unknown,
  options: ProfileMatchesOptions = {},
): ProfileMatch[] {
  const q = parseProfileQuery(query);
  if (isNil(options)) return [];
  if (!isDict(options)) invalid("profile match options", "options", "expected an object");
  return matchesIn(readProfiles(options.profiles), q);
}

/**
 * Checks `options.profiles` (nil → null): a `CompiledProfiles` as it is; else the record
 * set's shape and every row's scope (the fields matching reads; see read-checks.ts).
 */
export function readProfiles(
  profiles: unknown,
  path = "options.profiles",
): ProfileRecordSet | CompiledProfiles | null {
  if (isNil(profiles)) return null;
  if (profiles instanceof CompiledProfiles) return profiles;
  return checkRecordSetForMatching(profiles, path);
}

/** Matches and, for a compiled record set, the compiled rows in the same order. */
export interface MatchedRows {
  matches: ProfileMatch[];
  compiled: CompiledRow[] | null;
}

/** Matching over an already checked record set (see `matchRows`). */
export function matchesIn(
  set: ProfileRecordSet | CompiledProfiles | null,
  query: ParsedQuery,
): ProfileMatch[] {
  return matchRows(set, query).matches;
}

/**
 * The rows of `set` that apply to `query`, most specific first, then by index. A
 * compiled set visits only the rows of the query's language and the rows declaring no
 * language, and orders them by bucketing on specificity (0–15) instead of sorting: the
 * language bit (4) separates the two lists, so each bucket stays in row order.
 */
export function matchRows(
  set: ProfileRecordSet | CompiledProfiles | null,
  query: ParsedQuery,
): MatchedRows {
  if (set instanceof CompiledProfiles) return matchCompiled(set, query);
  const rows = set?.rows ?? [];
  const matches: ProfileMatch[] = [];
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as ProfileRow;
    const specificity = rowSpecificity(row, query);
    if (specificity !== null) matches.push({ row, specificity, index });
  }
  matches.sort((a, b) => b.specificity - a.specificity || a.index - b.index);
  return { matches, compiled: null };
}

function matchCompiled(set: CompiledProfiles, query: ParsedQuery): MatchedRows {
  const buckets: CompiledRow[][] = Array.from({ length: 16 }, () => []);
  const visit = (rows: readonly CompiledRow[]) => {
    for (const r of rows) {
      const spec = specificityOf(r.scope, query);
      if (spec !== null) (buckets[spec] as CompiledRow[]).push(r);
    }
  };
  const language =
    query.languageLower ?? (query.language === undefined ? undefined : asciiLower(query.language));
  if (language !== undefined) visit(set.byLanguage.get(language) ?? []);
  visit(set.anyLanguage);
  const matches: ProfileMatch[] = [];
  const compiled: CompiledRow[] = [];
  for (let spec = 15; spec >= 0; spec--) {
    for (const r of buckets[spec] as CompiledRow[]) {
      matches.push({ row: r.row, specificity: spec, index: r.index });
      compiled.push(r);
    }
  }
  return { matches, compiled };
}
