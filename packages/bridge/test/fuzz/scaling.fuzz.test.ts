/**
 * No parser or pure function is superlinear (issue #11 §1): each workload of lib/scaling.ts
 * runs at a calibrated size n (tens of ms) and at 8n; the test fails when the time grows
 * by more than 30× (quadratic code gives ≈ 64×). The full curve is printed by
 * packages/bridge/bench/scaling.bench.ts.
 */
import { describe, expect, test } from "vitest";
import { scaling, WORKLOADS } from "./lib/scaling.js";

const LIMIT = 30;

describe("fuzz: no superlinear parser or pure function", () => {
  test.each(WORKLOADS.map((w) => w.name))(
    "%s: time(8n) / time(n) ≤ 30",
    (name) => {
      const w = WORKLOADS.find((x) => x.name === name);
      if (!w) throw new Error(name);
      const { n, small, large, ratio } = scaling(w);
      expect(
        ratio,
        `${name}: n=${n} ${small.toFixed(1)} ms, 8n ${large.toFixed(1)} ms, ${ratio.toFixed(1)}×`,
      ).toBeLessThanOrEqual(LIMIT);
    },
    60_000,
  );
});
