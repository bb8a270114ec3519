/**
 * `recordCheckResult` as a pure reducer over a given record set
 * (harn-verification.md §1.4 `verification_record_check_result`).
 */
import { isDict, toInt } from "../harn-values.js";
import { observationFromCommandResult } from "./command-result.js";
import { recordRun } from "./record-set.js";
import type { CheckObservation, ProfileRecordSet, ProfileRow } from "./schemas.js";

/** `VerificationRecordedCheck` plus turngate's `profiles` (the record set after recording). */
export interface RecordCheckResultOutput {
  result: unknown;
  observation: CheckObservation;
  row: ProfileRow | null;
  snapshot: null;
  profiles: ProfileRecordSet | null;
}

/**
 * Builds the observation of `result` (`observationFromCommandResult(result, options)`) and
 * records it into row `rowId` of `options.profiles` (§3.2), stamping times with
 * `options.now_ms` (ms since the epoch; default `Date.now()`). Unknown row or no record set
 * → `row: null` and `profiles` unchanged (not an error). Returns
 * `{result, observation, row, snapshot: null, profiles}`.
 * Throws `TurngateValidationError`: blank `row_id`, malformed `result.*`, `options.*` or
 * `options.profiles.*`.
 */
export function recordCheckResult(
  rowId: unknown,
  result: unknown,
  options: unknown = {},
): RecordCheckResultOutput {
  const observation = observationFromCommandResult(result, options);
  const o = isDict(options) ? options : {};
  const nowMs = toInt(o.now_ms) ?? Date.now();
  const recorded = recordRun(o.profiles, rowId, observation, nowMs, "options.profiles");
  return { result, observation, row: recorded.row, snapshot: null, profiles: recorded.profiles };
}
