import { describe, expect, test } from "vitest";
import {
  applyObservation,
  nearestRank,
  recordRun,
  TIMING_WINDOW_CAP,
  TurngateValidationError,
  windowPercentiles,
} from "../../../src/index.js";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

function record(durations: number[], warm = true, row: Record<string, unknown> = { id: "r" }) {
  let r: Record<string, unknown> = row;
  for (const d of durations) r = applyObservation(r, { durationMs: d, warm }, NOW);
  return r;
}

describe("timing windows (§3.3)", () => {
  test("nearest rank: rank = max(1, ceil(p*n/100)); empty → 0", () => {
    expect(nearestRank([], 50)).toBe(0);
    expect(nearestRank([7], 0)).toBe(7);
    expect(nearestRank([1, 2, 3], 1)).toBe(1);
  });

  test("a window of 1: every percentile is the one sample", () => {
    expect(windowPercentiles([42])).toEqual({ p50: 42, p95: 42, p99: 42 });
    expect(record([42]).timings).toEqual({
      recentWarmMs: [42],
      warmMs: { p50: 42, p95: 42, p99: 42 },
      samples: 1,
    });
  });

  test("a window of 2: p50 is the lower (rank 1), p95 and p99 the upper (rank 2)", () => {
    expect(record([20, 10]).timings).toEqual({
      recentWarmMs: [20, 10],
      warmMs: { p50: 10, p95: 20, p99: 20 },
      samples: 2,
    });
  });

  test("a window of 20 (1..20 shuffled): ranks 10, 19, 20", () => {
    const shuffled = [13, 2, 20, 7, 1, 19, 4, 16, 10, 5, 18, 3, 12, 9, 15, 6, 17, 8, 14, 11];
    const t = record(shuffled).timings as Record<string, unknown>;
    expect(t.warmMs).toEqual({ p50: 10, p95: 19, p99: 20 });
    expect(t.recentWarmMs).toEqual(shuffled);
  });

  test("a full window of 64 (1..64): ranks 32, 61, 64", () => {
    expect(TIMING_WINDOW_CAP).toBe(64);
    const t = record(range(1, 64)).timings as Record<string, unknown>;
    expect(t.warmMs).toEqual({ p50: 32, p95: 61, p99: 64 });
    expect((t.recentWarmMs as number[]).length).toBe(64);
  });

  test("eviction: 1..100 keeps 37..100 (Harn's vector), then a cold run has its own window", () => {
    const warm = record(range(1, 100), true, { id: "r", timings: { customNote: "keep me" } });
    expect(warm.timings).toEqual({
      customNote: "keep me",
      recentWarmMs: range(37, 100),
      warmMs: { p50: 68, p95: 97, p99: 100 },
      samples: 100,
    });
    const cold = applyObservation(warm, { durationMs: 5000, warm: false }, NOW);
    expect(cold.timings).toEqual({
      customNote: "keep me",
      recentWarmMs: range(37, 100),
      warmMs: { p50: 68, p95: 97, p99: 100 },
      recentColdMs: [5000],
      coldMs: { p50: 5000, p95: 5000, p99: 5000 },
      samples: 101,
    });
  });

  test("a 65th sample evicts exactly the oldest one", () => {
    const t = record(range(1, 65)).timings as Record<string, unknown>;
    expect(t.recentWarmMs).toEqual(range(2, 65));
    expect(t.warmMs).toEqual({ p50: 33, p95: 62, p99: 65 });
  });

  test("other keys of a stats dict survive the recomputation", () => {
    const r = applyObservation(
      { id: "r", timings: { warmMs: { p50: 1, note: "x" }, recentWarmMs: [3] } },
      { durationMs: 5 },
      NOW,
    );
    expect(r.timings).toEqual({
      warmMs: { p50: 3, p95: 5, p99: 5, note: "x" },
      recentWarmMs: [3, 5],
      samples: 1,
    });
  });
});

describe("applying an observation (§3.2)", () => {
  test("an outcome-bearing observation replaces lastRun wholesale; at defaults to now", () => {
    const failed = applyObservation(
      { id: "r", lastRun: { at: "old", exit: 0, note: "gone" } },
      { exit: 2, failureSignature: "boom", snapshot: { "a.ts": "1" } },
      NOW,
    );
    expect(failed.lastRun).toEqual({
      at: "2026-01-02T03:04:05Z",
      exit: 2,
      failureSignature: "boom",
      snapshot: { "a.ts": "1" },
    });
    expect(failed.timings).toBeUndefined();
    const green = applyObservation(failed, { exit: 0, at: "2026-02-01T00:00:00Z" }, NOW);
    expect(green.lastRun).toEqual({ at: "2026-02-01T00:00:00Z", exit: 0 });
  });

  test("a timing-only observation leaves lastRun untouched", () => {
    const row = { id: "r", lastRun: { at: "x", exit: 1, failureSignature: "s" }, extra: [1] };
    const out = applyObservation(row, { durationMs: 9, warm: true }, NOW);
    expect(out.lastRun).toEqual({ at: "x", exit: 1, failureSignature: "s" });
    expect(out.extra).toEqual([1]);
    expect(row).toEqual({
      id: "r",
      lastRun: { at: "x", exit: 1, failureSignature: "s" },
      extra: [1],
    });
  });

  test("malformed rows and observations are typed errors naming the field", () => {
    const bad = (row: unknown, obs: unknown) => {
      try {
        applyObservation(row, obs, NOW);
      } catch (error) {
        expect(error).toBeInstanceOf(TurngateValidationError);
        return (error as TurngateValidationError).path;
      }
      return "no error";
    };
    expect(bad({ id: "r", timings: { recentWarmMs: [1, "2"] } }, { durationMs: 1 })).toBe(
      "row.timings.recentWarmMs.1",
    );
    expect(bad({ id: "r", timings: "fast" }, { durationMs: 1 })).toBe("row.timings");
    expect(bad({ id: 7 }, { durationMs: 1 })).toBe("row.id");
    expect(bad({ id: "r" }, { durationMs: -1 })).toBe("observation.durationMs");
    expect(bad({ id: "r" }, { durationMs: 1.5 })).toBe("observation.durationMs");
    expect(bad({ id: "r" }, { warm: "yes" })).toBe("observation.warm");
    expect(bad({ id: "r" }, "obs")).toBe("observation");
  });
});

describe("recordRun (the record_run reducer)", () => {
  const set = {
    schemaVersion: 1,
    rows: [{ id: "a" }, { id: "b" }, { id: "b", note: 2 }],
    top: "kept",
  };

  test("records into the first row with that id and stamps updatedAt", () => {
    const out = recordRun(set, "b", { durationMs: 10 }, NOW);
    expect(out.row).toEqual({
      id: "b",
      timings: { recentWarmMs: [10], warmMs: { p50: 10, p95: 10, p99: 10 }, samples: 1 },
    });
    expect(out.profiles).toEqual({
      schemaVersion: 1,
      top: "kept",
      updatedAt: "2026-01-02T03:04:05Z",
      rows: [{ id: "a" }, out.row, { id: "b", note: 2 }],
    });
  });

  test("unknown row or no store → row null, nothing changed", () => {
    expect(recordRun(set, "zzz", { durationMs: 1 }, NOW)).toEqual({ profiles: set, row: null });
    expect(recordRun(null, "a", { durationMs: 1 }, NOW)).toEqual({ profiles: null, row: null });
  });

  test("a blank row id, a foreign schemaVersion or a non-list rows is refused", () => {
    expect(() => recordRun(set, "  ", { durationMs: 1 }, NOW)).toThrow(
      "invalid profile record run at row_id: row_id must not be empty",
    );
    expect(() => recordRun({ schemaVersion: 2, rows: [] }, "a", {}, NOW)).toThrow(
      /at profiles\.schemaVersion/,
    );
    expect(() => recordRun({ rows: {} }, "a", {}, NOW)).toThrow(/at profiles\.rows/);
    expect(() => recordRun({ rows: [5] }, "a", {}, NOW)).toThrow(/at profiles\.rows\.0/);
    expect(() => recordRun(set, "zzz", { exit: "x" }, NOW)).toThrow(/at observation\.exit/);
  });
});
