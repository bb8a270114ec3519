/**
 * Applying one check observation to a profile row (harn-verification.md §3.2, §3.3).
 */
import { ProfileRowRecorder } from "./row-recorder.js";
import type { ProfileRow } from "./schemas.js";

export { isoSeconds } from "./iso-seconds.js";

/**
 * Returns a copy of `row` with `observation` applied (§3.2):
 * 1. an integer `durationMs` (ms) is appended to the warm window (`recentWarmMs`, stats
 *    `warmMs`) when `warm` is not `false`, else to the cold one (`recentColdMs`, `coldMs`);
 *    the window keeps the newest 64; `p50`/`p95`/`p99` are recomputed by nearest rank over
 *    the whole window (other stats keys kept); `timings.samples` (shared by both kinds) + 1;
 * 2. an outcome-bearing observation (non-null `exit`, `failureSignature` or `snapshot`)
 *    REPLACES `lastRun` with `{at, exit?, failureSignature?, snapshot?}` (`at` =
 *    `observation.at`, else `nowMs` as `YYYY-MM-DDTHH:MM:SSZ`), so a later green drops an
 *    earlier failure signature;
 * 3. a timing-only observation leaves `lastRun` untouched.
 * Every other field round-trips. Throws `TurngateValidationError` naming the field under
 * `rowPath` / `observationPath` for a malformed row or observation. To apply many
 * observations to one row, use `ProfileRowRecorder` (validates the row once, no per-call
 * copy or sort).
 */
export function applyObservation(
  row: unknown,
  observation: unknown,
  nowMs: number,
  rowPath = "row",
  observationPath = "observation",
): ProfileRow {
  const recorder = new ProfileRowRecorder(row, rowPath);
  recorder.record(observation, nowMs, observationPath);
  return recorder.row();
}
