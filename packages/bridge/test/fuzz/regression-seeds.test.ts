/**
 * The fuzz suite's regression seeds (issue 36): every seed a fuzz round ever failed with is
 * committed in regression-seeds.json and runs in `./scripts/dev test` next to the fixed
 * seed, with the exact counterexamples it found replayed (lib/config.ts `fcRuns`).
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { FIXED_SEED, fcRuns, REGRESSION_SEEDS, RUN_SEEDS } from "./lib/config.js";

const ci = process.env.TURNGATE_FUZZ_SEED === undefined;

describe("fuzz regression seeds", () => {
  test("issue 36's seed is listed with the counterexamples it found; seeds are unique", () => {
    const seeds = REGRESSION_SEEDS.map((s) => s.seed);
    expect(new Set(seeds).size).toBe(seeds.length);
    const first = REGRESSION_SEEDS.find((s) => s.seed === 1563118123);
    expect(first?.replays).toEqual({
      "fuzz: @turngate/core functions > compileGlob returns or throws a TurngateError": "333",
      "fuzz: stateless methods in process > mutated and random params: a success validates against protocol.json, a refusal is typed at a real field":
        ["6645", "17870", "20254"],
    });
  });

  test("each replay names a test of the suite by its describe and test titles", () => {
    const sources = ["core.fuzz.test.ts", "methods.fuzz.test.ts", "parsers.fuzz.test.ts"].map((f) =>
      readFileSync(new URL(f, import.meta.url), "utf8"),
    );
    for (const s of REGRESSION_SEEDS)
      for (const [name, paths] of Object.entries(s.replays ?? {})) {
        for (const path of typeof paths === "string" ? [paths] : paths)
          expect(path).toMatch(/^\d+(:\d+)*$/);
        const [describeTitle, testTitle] = name.split(" > ") as [string, string];
        const source = sources.find((src) => src.includes(JSON.stringify(describeTitle)));
        expect([name, source !== undefined]).toEqual([name, true]);
        // A test.each title ("%s returns …") matches with its placeholder filled.
        const literal = source?.includes(JSON.stringify(testTitle));
        const each = /"%s (.*)"/.exec(source ?? "")?.[1];
        expect([name, literal || (each !== undefined && testTitle.endsWith(` ${each}`))]).toEqual([
          name,
          true,
        ]);
      }
  });

  test.runIf(ci && process.env.TURNGATE_FUZZ_SECONDS === undefined)(
    "CI runs the fixed seed, then every regression seed, then the recorded counterexamples",
    () => {
      expect(RUN_SEEDS).toEqual([FIXED_SEED, ...REGRESSION_SEEDS.map((s) => s.seed)]);
      // This test has no recorded replay: one run per seed.
      expect(fcRuns(7, 0.1)).toEqual(
        RUN_SEEDS.map((seed) => ({ seed, numRuns: 7, endOnFailure: true })),
      );
    },
  );
});
