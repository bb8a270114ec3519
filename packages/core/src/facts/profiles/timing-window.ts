/**
 * Timing windows and nearest-rank percentiles of the profile store
 * (harn-verification.md §3.3, §3.8).
 */

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
 * value `sorted[rank - 1]`; an empty list → 0. `p` in 0..100.
 */
export function nearestRank(sorted: readonly number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const rank = Math.max(1, Math.ceil((p * n) / 100));
  return sorted[Math.min(rank, n) - 1] as number;
}

/** p50, p95, p99 (nearest rank) of a window of durations in ms (any order). */
export function windowPercentiles(window: readonly number[]): TimingPercentiles {
  const sorted = [...window].sort((a, b) => a - b);
  return {
    p50: nearestRank(sorted, 50),
    p95: nearestRank(sorted, 95),
    p99: nearestRank(sorted, 99),
  };
}

/**
 * Appends `durationMs` to `window` (oldest first) and drops the oldest entries beyond
 * `TIMING_WINDOW_CAP`. Returns a new array; `window` is not changed.
 */
export function pushToWindow(window: readonly number[], durationMs: number): number[] {
  const next = [...window, durationMs];
  return next.length > TIMING_WINDOW_CAP ? next.slice(next.length - TIMING_WINDOW_CAP) : next;
}
