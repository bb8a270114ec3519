/**
 * Fast type checks of the profile fields the matcher and the ladder READ
 * (harn-verification.md §1.5, §1.9, §2.6). `profileMatches` and `ladderPlan` run over whole
 * stores on every call, so instead of validating every row with zod they check, by hand,
 * exactly the fields they use: the record set's shape, every row's `scope`, and — for
 * matched rows only — `id`/`name`/`label`, the `check` fields and their row-level
 * fallbacks, `timings.warmMs`/`coldMs` and the warm modes. A field of the wrong type is a
 * `TurngateValidationError` whose path is the one zod would name
 * (`options.profiles.rows.3.timings.warmMs.p95`); paths are built only on failure. Fields
 * they do not read are validated where they are used (the store, `recordRun`,
 * `applyObservation`).
 */
import { isDict, isNil } from "../harn-values.js";
import type { ProfileRecordSet, ProfileRow } from "./schemas.js";
import { invalid } from "./validate.js";

const LABEL = "profile record set";

function kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function fail(path: string, expected: string, v: unknown): never {
  invalid(LABEL, path, `Invalid input: expected ${expected}, received ${kind(v)}`);
}

const badString = (v: unknown) => !isNil(v) && typeof v !== "string";
const badBool = (v: unknown) => !isNil(v) && typeof v !== "boolean";
const badNonNegInt = (v: unknown) =>
  v !== undefined && (typeof v !== "number" || !Number.isInteger(v) || v < 0);
const badRung = (v: unknown) =>
  !isNil(v) && typeof v !== "string" && !(typeof v === "number" && Number.isInteger(v));
const badCommand = (v: unknown) =>
  !isNil(v) && typeof v !== "string" && !Array.isArray(v) && !isDict(v);

const SCOPE_KEYS = ["repo", "dir", "language", "task"] as const;

/** The record set (a dict; `schemaVersion` absent or 1; `rows` absent or a list of dicts) and every row's scope. */
export function checkRecordSetForMatching(value: unknown, path: string): ProfileRecordSet {
  if (!isDict(value)) fail(path, "object", value);
  if (value.schemaVersion !== undefined && value.schemaVersion !== 1) {
    invalid(LABEL, `${path}.schemaVersion`, "Invalid input: expected 1");
  }
  if (badString(value.updatedAt) && value.updatedAt !== undefined) {
    fail(`${path}.updatedAt`, "string", value.updatedAt);
  }
  const rows = value.rows;
  if (rows === undefined) return value as ProfileRecordSet;
  if (!Array.isArray(rows)) fail(`${path}.rows`, "array", rows);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!isDict(row)) fail(`${path}.rows.${i}`, "object", row);
    const scope = row.scope;
    if (isNil(scope)) continue;
    if (!isDict(scope)) fail(`${path}.rows.${i}.scope`, "object", scope);
    for (const key of SCOPE_KEYS) {
      if (badString(scope[key])) fail(`${path}.rows.${i}.scope.${key}`, "string", scope[key]);
    }
  }
  return value as ProfileRecordSet;
}

/** The first check field of `d` with a wrong type, with what it should be. */
function badCheckField(d: Record<string, unknown>): [string, string] | undefined {
  if (badRung(d.rung)) return ["rung", "string | int"];
  if (badCommand(d.command)) return ["command", "string | array | object"];
  if (badCommand(d.spec)) return ["spec", "string | array | object"];
  if (badString(d.resourceClass)) return ["resourceClass", "string"];
  if (badString(d.resource_class)) return ["resource_class", "string"];
  if (badBool(d.staleProne)) return ["staleProne", "boolean"];
  if (badBool(d.stale_prone)) return ["stale_prone", "boolean"];
  if (badString(d.granularity)) return ["granularity", "string"];
  if (badBool(d.background)) return ["background", "boolean"];
  return undefined;
}

function checkStats(v: unknown, at: () => string): void {
  if (v === undefined) return;
  if (!isDict(v)) fail(at(), "object", v);
  for (const key of ["p50", "p95", "p99"] as const) {
    if (badNonNegInt(v[key])) fail(`${at()}.${key}`, "nonnegative int", v[key]);
    // A p95 lands in the plan's p95_ms: past 2^53−1 it would leave the schema (issue 36).
    if ((v[key] as number) > Number.MAX_SAFE_INTEGER)
      invalid(LABEL, `${at()}.${key}`, `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`);
  }
}

const WARM_KEYS = ["warmMode", "warm_mode", "warmState", "warm_state"] as const;

/** The fields `ladderPlan` reads from one matched row (the row is `<base>.<index>`). */
export function checkRowForLadder(row: ProfileRow, base: string, index: number): void {
  const at = (suffix: string) => `${base}.${index}${suffix}`;
  if (row.id !== undefined && typeof row.id !== "string") fail(at(".id"), "string", row.id);
  if (badString(row.name)) fail(at(".name"), "string", row.name);
  if (badString(row.label)) fail(at(".label"), "string", row.label);
  const own = badCheckField(row);
  if (own !== undefined) fail(at(`.${own[0]}`), own[1], row[own[0]]);
  const check = row.check;
  if (!isNil(check)) {
    if (!isDict(check)) fail(at(".check"), "object", check);
    const bad = badCheckField(check);
    if (bad !== undefined) fail(at(`.check.${bad[0]}`), bad[1], check[bad[0]]);
  }
  const timings = row.timings;
  if (!isNil(timings)) {
    if (!isDict(timings)) fail(at(".timings"), "object", timings);
    if (timings.warmMs !== undefined) checkStats(timings.warmMs, () => at(".timings.warmMs"));
    if (timings.coldMs !== undefined) checkStats(timings.coldMs, () => at(".timings.coldMs"));
  }
  for (const key of WARM_KEYS) {
    const v = row[key];
    if (isNil(v) || typeof v === "boolean") continue;
    if (!isDict(v)) fail(at(`.${key}`), "boolean | object", v);
    if (badBool(v.warm)) fail(at(`.${key}.warm`), "boolean", v.warm);
    if (badBool(v.ready)) fail(at(`.${key}.ready`), "boolean", v.ready);
  }
}
