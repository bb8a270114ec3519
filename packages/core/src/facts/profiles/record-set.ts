/**
 * The profile record set as a value (harn-verification.md §1.5 `verification_profiles_set`
 * and `verification_profile_record_run`, as pure reducers; the node store persists them).
 */
import { display, isNil, rustTrim } from "../harn-values.js";
import { applyObservation, isoSeconds } from "./apply-observation.js";
import { type ProfileRecordSet, ProfileRecordSetSchema, type ProfileRow } from "./schemas.js";
import { invalid, validated } from "./validate.js";

/** The record set's schema version this runtime reads and writes. */
export const PROFILE_SCHEMA_VERSION = 1;

/** A record set whose `schemaVersion` and `rows` are present. */
export type NormalizedRecordSet = ProfileRecordSet & { schemaVersion: 1; rows: ProfileRow[] };

/**
 * Validates a record set (a dict; `schemaVersion` absent or the integer 1; `rows` absent or
 * a list of row dicts whose fields have their §2.6 types) and returns it unchanged.
 * Throws `TurngateValidationError` with `path` under `path` (e.g. `profiles.rows.0.scope`).
 */
export function parseProfileRecordSet(value: unknown, path = "profiles"): ProfileRecordSet {
  return validated(ProfileRecordSetSchema, value, "profile record set", path);
}

/**
 * `verification_profiles_set` as a value: validates, defaults `schemaVersion` to 1 and
 * `rows` to `[]`, stamps `updatedAt` with `nowMs` (ms since the epoch) as
 * `YYYY-MM-DDTHH:MM:SSZ`. Other keys are kept. Throws `TurngateValidationError`.
 */
export function normalizeRecordSet(
  value: unknown,
  nowMs: number,
  path = "profiles",
): NormalizedRecordSet {
  const set = parseProfileRecordSet(value, path);
  return {
    ...set,
    schemaVersion: PROFILE_SCHEMA_VERSION,
    rows: set.rows ?? [],
    updatedAt: isoSeconds(nowMs),
  };
}

/** Result of `recordRun`: the new record set (or the old one when no row matched) and the updated row. */
export interface RecordRunResult {
  profiles: ProfileRecordSet | null;
  row: ProfileRow | null;
}

/**
 * `verification_profile_record_run` as a pure reducer: the first row whose `id` is a
 * string equal to `rowId` (display string of the value) gets `observation` applied
 * (§3.2); the record set's `updatedAt` is stamped. No store (`profiles` nil) or no such
 * row → `{profiles (unchanged), row: null}` — not an error.
 * Throws `TurngateValidationError`: `row_id` blank (`row_id must not be empty`), a
 * malformed record set (path under `profilesPath`) or observation (path `observation`).
 */
export function recordRun(
  profiles: unknown,
  rowId: unknown,
  observation: unknown,
  nowMs: number,
  profilesPath = "profiles",
): RecordRunResult {
  const id = isNil(rowId) ? "" : display(rowId);
  if (rustTrim(id) === "") invalid("profile record run", "row_id", "row_id must not be empty");
  if (isNil(profiles)) {
    applyObservation({}, observation, nowMs, "row", "observation");
    return { profiles: null, row: null };
  }
  const set = parseProfileRecordSet(profiles, profilesPath);
  const rows = set.rows ?? [];
  const index = rows.findIndex((row) => typeof row.id === "string" && row.id === id);
  if (index < 0) {
    applyObservation({}, observation, nowMs, "row", "observation");
    return { profiles: set, row: null };
  }
  const row = applyObservation(
    rows[index],
    observation,
    nowMs,
    `${profilesPath}.rows.${index}`,
    "observation",
  );
  const nextRows = [...rows];
  nextRows[index] = row;
  return {
    profiles: {
      ...set,
      schemaVersion: PROFILE_SCHEMA_VERSION,
      rows: nextRows,
      updatedAt: isoSeconds(nowMs),
    },
    row,
  };
}
