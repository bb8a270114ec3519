/** UTC timestamps in Harn's form (harn-verification.md §1.5). */
import { expectFiniteNumber, invalid } from "../../validate.js";

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
