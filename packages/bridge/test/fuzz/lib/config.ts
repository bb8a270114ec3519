/**
 * Run settings of the fuzz suite (issue #11 §1). Two modes:
 * - CI (default, `./scripts/dev test`): the fixed seed `FIXED_SEED` and a fixed number of
 *   runs per property, so a run is reproducible and bounded (the whole suite stays well
 *   under 60 s on 2 cores);
 * - fuzz (`./scripts/dev fuzz --seconds N`, env `TURNGATE_FUZZ_SECONDS=N`): each property
 *   runs until its share of the N seconds is spent, from a random seed the script prints
 *   (`TURNGATE_FUZZ_SEED`), so a failure can be replayed with the same seed.
 * fast-check prints the seed and the shrunk counterexample of any failure.
 */
import type { Parameters } from "fast-check";

/** The seed of CI runs. */
export const FIXED_SEED = 20261201;

function envNumber(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${raw}`);
  return n;
}

/** Seed of this run: `TURNGATE_FUZZ_SEED`, else `FIXED_SEED`. */
export const SEED = envNumber("TURNGATE_FUZZ_SEED") ?? FIXED_SEED;

/** Fuzz-mode budget in seconds (`TURNGATE_FUZZ_SECONDS`); 0 in CI mode. */
export const FUZZ_SECONDS = envNumber("TURNGATE_FUZZ_SECONDS") ?? 0;

/** True when the suite runs in long fuzz mode. */
export const LONG = FUZZ_SECONDS > 0;

/**
 * fast-check parameters of one property.
 * @param ciRuns runs in CI mode.
 * @param share fraction (0–1] of the fuzz-mode budget this property may spend.
 */
export function fcParams<T>(ciRuns: number, share: number): Parameters<T> {
  if (!LONG) return { seed: SEED, numRuns: ciRuns, endOnFailure: true };
  return {
    seed: SEED,
    numRuns: Number.MAX_SAFE_INTEGER,
    interruptAfterTimeLimit: Math.max(1000, FUZZ_SECONDS * 1000 * share),
    markInterruptAsFailure: false,
    endOnFailure: true,
  };
}

/** Count of generated items for a loop-style fuzz (the stdio driver): CI count, or scaled up. */
export function fuzzCount(ciCount: number, share: number): number {
  return LONG ? Math.max(ciCount, Math.round(ciCount * FUZZ_SECONDS * share)) : ciCount;
}

/** vitest timeout of a property: generous in CI, budget + slack in fuzz mode (ms). */
export function fuzzTimeout(ciMs: number, share: number): number {
  return LONG ? FUZZ_SECONDS * 1000 * share + 60_000 : ciMs;
}
