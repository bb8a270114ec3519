/**
 * `profileMatches`: the profile rows that apply to a query, most specific first
 * (harn-verification.md §1.5 `verification_profile_matches`, §3.5).
 */

import { z } from "zod";
import { invalid, validated } from "../../validate.js";
import { display, isDict, isNil, rustTrim } from "../harn-values.js";
import { checkRecordSetForMatching } from "./read-checks.js";
import { ProfileQuerySchema, type ProfileRecordSet, type ProfileRow } from "./schemas.js";
import { matchName } from "./scope-glob.js";

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
  /** The record set to read (turngate: the node store passes its own); nil = no store. */
  profiles?: unknown;
  /** Store directory (Harn's `dir`): read by the node store; ignored by this pure function. */
  dir?: string | null;
}

interface ParsedQuery {
  repo?: string;
  path?: string;
  language?: string;
  task?: string;
  /** `language` with ASCII letters lowercased (computed once per query). */
  languageLower?: string;
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
 * selector the row declares as a non-blank string in `scope` — `repo` equal (1), `dir` a
 * glob matching `query.path` (2), `language` equal ignoring ASCII case (4), `task` equal
 * (8) — an absent or unequal query value excludes the row. No scope → 0. Throws
 * `TurngateValidationError` when `row` is not an object (path `row`) or `query` is not a
 * parsed query, an object whose `repo`, `path`, `language`, `task` are strings when
 * present (path `query`, `query.repo`, …).
 */
export function rowSpecificity(row: ProfileRow, query: ParsedQuery): number | null {
  if (!isDict(row)) invalid("profile row", "row", "expected an object");
  return specificityOf(row, validated(ParsedQuerySchema, query, "profile query", "query"));
}

/** What `rowSpecificity` reads of a query (`parseProfileQuery` output). */
const ParsedQuerySchema = z.looseObject({
  repo: z.string().optional(),
  path: z.string().optional(),
  language: z.string().optional(),
  task: z.string().optional(),
  languageLower: z.string().optional(),
});

function specificityOf(row: ProfileRow, query: ParsedQuery): number | null {
  const scope = row.scope;
  if (!isDict(scope)) return 0;
  let spec = 0;
  if (declared(scope.repo)) {
    if (query.repo !== scope.repo) return null;
    spec |= 1;
  }
  if (declared(scope.dir)) {
    if (query.path === undefined || !matchName(scope.dir, query.path)) return null;
    spec |= 2;
  }
  if (declared(scope.language)) {
    const lower =
      query.languageLower ??
      (query.language === undefined ? undefined : asciiLower(query.language));
    if (lower === undefined || lower !== asciiLower(scope.language)) {
      return null;
    }
    spec |= 4;
  }
  if (declared(scope.task)) {
    if (query.task !== scope.task) return null;
    spec |= 8;
  }
  return spec;
}

const ASCII_UPPER = /[A-Z]/;
/** A selector the row declares: a non-blank string. */
function declared(v: unknown): v is string {
  return typeof v === "string" && v !== "" && rustTrim(v) !== "";
}

function asciiLower(text: string): string {
  return ASCII_UPPER.test(text) ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text;
}

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
 * Checks `options.profiles` (nil → null): the record set's shape and every row's scope
 * (the fields matching reads; see read-checks.ts).
 */
export function readProfiles(
  profiles: unknown,
  path = "options.profiles",
): ProfileRecordSet | null {
  if (isNil(profiles)) return null;
  return checkRecordSetForMatching(profiles, path);
}

/** Matching over an already validated record set. */
export function matchesIn(set: ProfileRecordSet | null, query: ParsedQuery): ProfileMatch[] {
  const rows = set?.rows ?? [];
  const out: ProfileMatch[] = [];
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as ProfileRow;
    const specificity = specificityOf(row, query);
    if (specificity !== null) out.push({ row, specificity, index });
  }
  return out.sort((a, b) => b.specificity - a.specificity || a.index - b.index);
}
