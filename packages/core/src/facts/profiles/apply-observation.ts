/**
 * Applying one check observation to a profile row (harn-verification.md §3.2, §3.3).
 */

import { expectFiniteNumber, invalid, validated } from "../../validate.js";
import { isDict, isNil } from "../harn-values.js";
import {
  type CheckObservation,
  CheckObservationSchema,
  type ProfileRow,
  ProfileRowSchema,
} from "./schemas.js";
import { pushToWindow, windowPercentiles } from "./timing-window.js";

/** The first and last ms since the epoch that print as a four-digit year (0000–9999). */
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;

/**
 * UTC time in Harn's `YYYY-MM-DDTHH:MM:SSZ` form (second precision). `nowMs`: ms since the
 * epoch. Throws `TurngateValidationError` (path `now_ms`) when `nowMs` is not a finite
 * number from -62167219200000 (year 0) to 253402300799999 (year 9999): other years have no
 * four-digit form.
 */
export function isoSeconds(nowMs: number): string {
  if (expectFiniteNumber(nowMs, "timestamp", "now_ms") < FIRST_MS || nowMs > LAST_MS) {
    invalid(
      "timestamp",
      "now_ms",
      `expected ms since the epoch from ${FIRST_MS} (year 0) to ${LAST_MS} (year 9999)`,
    );
  }
  return `${new Date(nowMs).toISOString().slice(0, 19)}Z`;
}

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
 * `rowPath` / `observationPath` for a malformed row or observation.
 */
export function applyObservation(
  row: unknown,
  observation: unknown,
  nowMs: number,
  rowPath = "row",
  observationPath = "observation",
): ProfileRow {
  const r = validated(ProfileRowSchema, row, "profile row", rowPath);
  const obs: CheckObservation = validated(
    CheckObservationSchema,
    observation,
    "check observation",
    observationPath,
  );
  const out: ProfileRow = { ...r };
  if (typeof obs.durationMs === "number") {
    const warm = obs.warm !== false;
    const statsKey = warm ? "warmMs" : "coldMs";
    const windowKey = warm ? "recentWarmMs" : "recentColdMs";
    const timings: Record<string, unknown> = isDict(r.timings) ? { ...r.timings } : {};
    const window = pushToWindow((timings[windowKey] as number[] | undefined) ?? [], obs.durationMs);
    const stats = isDict(timings[statsKey]) ? (timings[statsKey] as Record<string, unknown>) : {};
    timings[windowKey] = window;
    timings[statsKey] = { ...stats, ...windowPercentiles(window) };
    timings.samples = ((timings.samples as number | undefined) ?? 0) + 1;
    out.timings = timings;
  }
  if (!isNil(obs.exit) || !isNil(obs.failureSignature) || !isNil(obs.snapshot)) {
    const lastRun: Record<string, unknown> = {
      at: typeof obs.at === "string" ? obs.at : isoSeconds(nowMs),
    };
    if (!isNil(obs.exit)) lastRun.exit = obs.exit;
    if (!isNil(obs.failureSignature)) lastRun.failureSignature = obs.failureSignature;
    if (!isNil(obs.snapshot)) lastRun.snapshot = obs.snapshot;
    out.lastRun = lastRun;
  }
  return out;
}
