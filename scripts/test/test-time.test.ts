/**
 * test-time.ts, the one place test timeouts come from (issue 35 item 5): the quiet-machine
 * budget times TURNGATE_TEST_TIME_SCALE; a malformed scale fails loudly, naming the variable.
 */
import { describe, expect, test } from "vitest";
import { testTimeout, testTimeScale } from "../../test-time.js";

describe("testTimeout / TURNGATE_TEST_TIME_SCALE", () => {
  test("unset or blank → 1; a number from 1 to 100 multiplies, rounded up to a whole ms", () => {
    expect(testTimeScale({})).toBe(1);
    expect(testTimeScale({ TURNGATE_TEST_TIME_SCALE: " " })).toBe(1);
    expect(testTimeScale({ TURNGATE_TEST_TIME_SCALE: "4" })).toBe(4);
    expect(testTimeScale({ TURNGATE_TEST_TIME_SCALE: "2.5" })).toBe(2.5);
    expect(testTimeout(20_000)).toBe(20_000 * testTimeScale());
    expect(testTimeout(1.2)).toBe(Math.ceil(1.2 * testTimeScale()));
  });

  test("a malformed scale or budget is an error naming it", () => {
    for (const bad of ["0.5", "0", "-1", "abc", "101", "Infinity"]) {
      expect(() => testTimeScale({ TURNGATE_TEST_TIME_SCALE: bad })).toThrow(
        `TURNGATE_TEST_TIME_SCALE=${JSON.stringify(bad)}: expected a number from 1 to 100`,
      );
    }
    expect(() => testTimeout(0)).toThrow(
      "testTimeout(0): expected a positive number of milliseconds",
    );
    expect(() => testTimeout(Number.NaN)).toThrow("testTimeout(NaN)");
  });

  test("vitest's own default timeouts come from it", async () => {
    const config = (await import("../../vitest.config.js")).default as {
      test: { testTimeout: number; hookTimeout: number };
    };
    expect([config.test.testTimeout, config.test.hookTimeout]).toEqual([
      testTimeout(40_000),
      testTimeout(120_000),
    ]);
  });
});
