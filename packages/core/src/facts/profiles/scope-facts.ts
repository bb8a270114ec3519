/**
 * A row's scope selectors read once (harn-verification.md §1.5 `row_specificity`, §3.5),
 * and the specificity of a parsed query against them.
 */
import { isDict, rustTrim } from "../harn-values.js";
import type { ProfileRow } from "./schemas.js";
import { compileMatcher } from "./scope-glob.js";

/** A parsed profile query: each value's display string; nil or blank values are absent. */
export interface ParsedQuery {
  repo?: string;
  path?: string;
  language?: string;
  task?: string;
  /** `language` with ASCII letters lowercased (computed once per query). */
  languageLower?: string;
}

/** The selectors a row declares (non-blank strings, trimmed as Harn's `scope_selector` does). */
export interface ScopeFacts {
  repo?: string;
  /** The `scope.dir` glob as a predicate on the query path. */
  dir?: (path: string) => boolean;
  /** `scope.language`, ASCII-lowercased. */
  languageLower?: string;
  task?: string;
}

const ASCII_UPPER = /[A-Z]/;

/** `text` with ASCII letters lowercased (Rust `eq_ignore_ascii_case` compares these). */
export function asciiLower(text: string): string {
  return ASCII_UPPER.test(text) ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text;
}

/** A declared selector: a string, non-blank after trimming → the trimmed text. */
function selector(v: unknown): string | undefined {
  if (typeof v !== "string" || v === "") return undefined;
  const t = rustTrim(v);
  return t === "" ? undefined : t;
}

/** The selectors of `row.scope` (no scope, or a non-dict scope → none: matches everything). */
export function scopeFacts(row: ProfileRow): ScopeFacts {
  const scope = row.scope;
  const out: ScopeFacts = {};
  if (!isDict(scope)) return out;
  const repo = selector(scope.repo);
  if (repo !== undefined) out.repo = repo;
  const dir = selector(scope.dir);
  if (dir !== undefined) out.dir = compileMatcher(dir);
  const language = selector(scope.language);
  if (language !== undefined) out.languageLower = asciiLower(language);
  const task = selector(scope.task);
  if (task !== undefined) out.task = task;
  return out;
}

/**
 * Specificity of a row with selectors `facts` for `query`, or `null` when the row does not
 * apply: `repo` equal (bit 1), `dir` glob matching `query.path` (2), `language` equal
 * ignoring ASCII case (4), `task` equal (8); a declared selector whose query value is
 * absent or unequal excludes the row.
 */
export function specificityOf(facts: ScopeFacts, query: ParsedQuery): number | null {
  let spec = 0;
  if (facts.repo !== undefined) {
    if (query.repo !== facts.repo) return null;
    spec |= 1;
  }
  if (facts.dir !== undefined) {
    if (query.path === undefined || !facts.dir(query.path)) return null;
    spec |= 2;
  }
  if (facts.languageLower !== undefined) {
    const lower =
      query.languageLower ??
      (query.language === undefined ? undefined : asciiLower(query.language));
    if (lower !== facts.languageLower) return null;
    spec |= 4;
  }
  if (facts.task !== undefined) {
    if (query.task !== facts.task) return null;
    spec |= 8;
  }
  return spec;
}
