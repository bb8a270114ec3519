/**
 * Run settings of the fuzz suite (issue #11 §1, issue 36). Three modes:
 * - CI (default, `./scripts/dev test`): the fixed seed `FIXED_SEED` and every seed of
 *   `regression-seeds.json` (each seed a fuzz round ever failed with), each at a fixed
 *   number of runs per property, plus the exact counterexamples recorded there (fast-check
 *   `path`), so a run is reproducible and bounded;
 * - replay (`TURNGATE_FUZZ_SEED=S` alone): that seed at the CI run counts;
 * - fuzz (`./scripts/dev fuzz --seconds N`, env `TURNGATE_FUZZ_SECONDS=N`): each property
 *   runs until its share of the N seconds is spent, from the seed the script prints
 *   (`TURNGATE_FUZZ_SEED`), so a failure can be replayed with the same seed.
 * fast-check prints the seed and the shrunk counterexample (with its `path`) of any failure.
 */
import { readFileSync } from "node:fs";
import type { Parameters } from "fast-check";
import { expect } from "vitest";

/** The seed of CI runs. */
export const FIXED_SEED = 20261201;

function envNumber(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${raw}`);
  return n;
}

/** One seed a fuzz round failed with (`regression-seeds.json`). */
export interface RegressionSeed {
  seed: number;
  /** What it found, and where the fix is tested. */
  found: string;
  /** Full vitest test name → fast-check `path`s of the counterexamples it found there. */
  replays?: Record<string, string | string[]>;
}

/** The committed regression seeds, oldest first. Throws when the file is malformed. */
export const REGRESSION_SEEDS: readonly RegressionSeed[] = (() => {
  const doc = JSON.parse(
    readFileSync(new URL("../regression-seeds.json", import.meta.url), "utf8"),
  ) as { seeds?: unknown };
  if (!Array.isArray(doc.seeds)) throw new Error("regression-seeds.json: seeds must be a list");
  for (const s of doc.seeds as RegressionSeed[]) {
    if (!Number.isSafeInteger(s.seed) || typeof s.found !== "string")
      throw new Error(`regression-seeds.json: bad entry ${JSON.stringify(s)}`);
  }
  return doc.seeds as RegressionSeed[];
})();

const ENV_SEED = envNumber("TURNGATE_FUZZ_SEED");

/** Seed of this run: `TURNGATE_FUZZ_SEED`, else `FIXED_SEED`. */
export const SEED = ENV_SEED ?? FIXED_SEED;

/** Fuzz-mode budget in seconds (`TURNGATE_FUZZ_SECONDS`); 0 in CI mode. */
export const FUZZ_SECONDS = envNumber("TURNGATE_FUZZ_SECONDS") ?? 0;

/** True when the suite runs in long fuzz mode. */
export const LONG = FUZZ_SECONDS > 0;

/**
 * Every seed this run uses: `[SEED]` when a seed is given, else the fixed seed and then
 * each regression seed.
 */
export const RUN_SEEDS: readonly number[] =
  ENV_SEED !== undefined ? [ENV_SEED] : [FIXED_SEED, ...REGRESSION_SEEDS.map((s) => s.seed)];

/**
 * fast-check parameters of one property, one entry per run: in fuzz mode one time-boxed
 * run from `SEED`; otherwise one run of `ciRuns` per seed of `RUN_SEEDS`, then (CI mode)
 * the replay of each counterexample `regression-seeds.json` records for the calling test
 * (found by its vitest name). Call it inside the test.
 * @param ciRuns runs per seed outside fuzz mode.
 * @param share fraction (0–1] of the fuzz-mode budget this property may spend.
 */
export function fcRuns<T>(ciRuns: number, share: number): Parameters<T>[] {
  if (LONG) {
    return [
      {
        seed: SEED,
        numRuns: Number.MAX_SAFE_INTEGER,
        interruptAfterTimeLimit: Math.max(1000, FUZZ_SECONDS * 1000 * share),
        markInterruptAsFailure: false,
        endOnFailure: true,
      },
    ];
  }
  const runs: Parameters<T>[] = RUN_SEEDS.map((seed) => ({
    seed,
    numRuns: ciRuns,
    endOnFailure: true,
  }));
  if (ENV_SEED !== undefined) return runs;
  const name = expect.getState().currentTestName ?? "";
  for (const r of REGRESSION_SEEDS) {
    const paths = r.replays?.[name] ?? [];
    for (const path of typeof paths === "string" ? [paths] : paths)
      runs.push({ seed: r.seed, path, endOnFailure: true });
  }
  return runs;
}

/**
 * vitest timeout of a property: generous in CI (`ciMs` per seed of `RUN_SEEDS`), budget +
 * slack in fuzz mode (ms).
 */
export function fuzzTimeout(ciMs: number, share: number): number {
  return LONG ? FUZZ_SECONDS * 1000 * share + 60_000 : ciMs * RUN_SEEDS.length;
}
