/**
 * Timing windows and nearest-rank percentiles of the profile store
 * (harn-verification.md §3.3, §3.8).
 */
import { expectFiniteNumber, expectNumberList, invalid } from "../../validate.js";

/** Durations kept per kind (warm, cold): the newest 64. */
export const TIMING_WINDOW_CAP = 64;

/** `{p50, p95, p99}` in ms. */
export interface TimingPercentiles {
  p50: number;
  p95: number;
  p99: number;
}

/**
 * Nearest-rank percentile of an ascending-sorted list: `rank = max(1, ceil(p * n / 100))`,
 * value `sorted[rank - 1]`; an empty list → 0. `p` in 0..100. Throws
 * `TurngateValidationError` when `sorted` is not a list of finite numbers (path `sorted`,
 * `sorted.N`) or `p` is not a number from 0 to 100 (path `p`).
 */
export function nearestRank(sorted: readonly number[], p: number): number {
  expectNumberList(sorted, "nearest-rank percentile", "sorted");
  if (expectFiniteNumber(p, "nearest-rank percentile", "p") < 0 || p > 100) {
    invalid("nearest-rank percentile", "p", "expected a percentile from 0 to 100");
  }
  return rankOf(sorted, p);
}

function rankOf(sorted: readonly number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const rank = Math.max(1, Math.ceil((p * n) / 100));
  return sorted[Math.min(rank, n) - 1] as number;
}

/**
 * p50, p95, p99 (nearest rank) of a window of durations in ms (any order). Throws
 * `TurngateValidationError` (path `window`, `window.N`) when `window` is not a list of
 * finite numbers.
 */
export function windowPercentiles(window: readonly number[]): TimingPercentiles {
  const sorted = [...expectNumberList(window, "timing window", "window")].sort((a, b) => a - b);
  return {
    p50: rankOf(sorted, 50),
    p95: rankOf(sorted, 95),
    p99: rankOf(sorted, 99),
  };
}

/**
 * Appends `durationMs` to `window` (oldest first) and drops the oldest entries beyond
 * `TIMING_WINDOW_CAP`. Returns a new array; `window` is not changed. Throws
 * `TurngateValidationError` when `window` is not a list of finite numbers (path `window`,
 * `window.N`) or `durationMs` is not a finite number (path `duration_ms`).
 */
export function pushToWindow(window: readonly number[], durationMs: number): number[] {
  expectNumberList(window, "timing window", "window");
  expectFiniteNumber(durationMs, "timing window", "duration_ms");
  const next = [...window, durationMs];
  return next.length > TIMING_WINDOW_CAP ? next.slice(next.length - TIMING_WINDOW_CAP) : next;
}
