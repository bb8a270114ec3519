import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, test } from "vitest";
import { CheckObservationSchema } from "../../../src/facts/profiles/schemas.js";
import {
  applyObservation,
  compileProfiles,
  ladderPlan,
  ProfileRowRecorder,
  profileMatches,
  TurngateValidationError,
} from "../../../src/index.js";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
type Row = Record<string, unknown>;

/** Applying the observations one call at a time (the row copied and re-read each time). */
function oneByOne(row: unknown, observations: unknown[]): unknown {
  let r = row;
  for (const o of observations) r = applyObservation(r, o, NOW);
  return r;
}

describe("ProfileRowRecorder: many observations, the row read once", () => {
  test("equals applyObservation once per observation, byte for byte (values and key order)", () => {
    const base = {
      id: "r",
      note: "kept",
      timings: {
        custom: 1,
        recentWarmMs: Array.from({ length: 70 }, (_, i) => i),
        warmMs: { p50: 1, p95: 2, p99: 3, extra: "kept" },
        samples: 70,
      },
    };
    const observations = [
      { durationMs: 500, warm: false },
      { durationMs: 100 },
      { exit: 1, failureSignature: "boom", at: "2026-01-01T00:00:00Z" },
      { durationMs: 7, warm: true, exit: 0, snapshot: { "a.tx": "h1" } },
      { durationMs: 600, warm: false },
    ];
    const recorder = new ProfileRowRecorder(base);
    for (const o of observations) recorder.record(o, NOW);
    const row = recorder.row();
    expect(JSON.stringify(row)).toBe(JSON.stringify(oneByOne(base, observations)));
    expect(row.timings).toEqual({
      custom: 1,
      recentWarmMs: [...Array.from({ length: 62 }, (_, i) => i + 8), 100, 7],
      warmMs: { p50: 38, p95: 67, p99: 100, extra: "kept" },
      samples: 74,
      recentColdMs: [500, 600],
      coldMs: { p50: 500, p95: 600, p99: 600 },
    });
    expect(row.lastRun).toEqual({
      at: "2026-01-02T03:04:05Z",
      exit: 0,
      snapshot: { "a.tx": "h1" },
    });
    expect(recorder.recorded).toBe(4);
    expect(base.timings.recentWarmMs).toHaveLength(70); // the row given is not changed
  });

  test("new keys follow in the order they were first set (lastRun before timings here)", () => {
    const recorder = new ProfileRowRecorder({ id: "r" });
    recorder.record({ exit: 2 }, NOW);
    recorder.record({ durationMs: 5 }, NOW);
    expect(Object.keys(recorder.row())).toEqual(["id", "lastRun", "timings"]);
    expect(JSON.stringify(recorder.row())).toBe(
      JSON.stringify(oneByOne({ id: "r" }, [{ exit: 2 }, { durationMs: 5 }])),
    );
  });

  test("no observation: the row as given (a copy); a timing-only one leaves lastRun", () => {
    const recorder = new ProfileRowRecorder({ id: "r", lastRun: { at: "x", exit: 1 } });
    expect(recorder.row()).toEqual({ id: "r", lastRun: { at: "x", exit: 1 } });
    recorder.record({ durationMs: 3 }, NOW);
    expect(recorder.row().lastRun).toEqual({ at: "x", exit: 1 });
  });

  test("a malformed row or observation is a typed error naming the field; the recorder is unchanged", () => {
    expect(() => new ProfileRowRecorder({ id: "r", timings: { samples: -1 } }, "rows.3")).toThrow(
      expect.objectContaining({ path: "rows.3.timings.samples" }),
    );
    const recorder = new ProfileRowRecorder({ id: "r" });
    recorder.record({ durationMs: 1 }, NOW);
    for (const [bad, path] of [
      [{ durationMs: 1.5 }, "observation.durationMs"],
      [{ durationMs: -1 }, "observation.durationMs"],
      [{ durationMs: 2 ** 53 }, "observation.durationMs"],
      [{ warm: "yes" }, "observation.warm"],
      [{ exit: null }, "observation.exit"],
      [{ snapshot: [] }, "observation.snapshot"],
      [[], "observation"],
      [null, "observation"],
    ] as const) {
      let error: unknown;
      try {
        recorder.record(bad, NOW);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TurngateValidationError);
      expect((error as TurngateValidationError).path).toBe(path);
    }
    expect(recorder.row().timings).toEqual({
      recentWarmMs: [1],
      warmMs: { p50: 1, p95: 1, p99: 1 },
      samples: 1,
    });
  });

  const observation = fc.record(
    {
      durationMs: fc.oneof(fc.nat(100_000), fc.double(), fc.integer({ min: -5, max: 5 })),
      warm: fc.oneof(fc.boolean(), fc.constant("no")),
      at: fc.oneof(fc.string(), fc.constant(1)),
      exit: fc.oneof(fc.integer(), fc.constant(null)),
      failureSignature: fc.oneof(fc.string(), fc.constant(3)),
      snapshot: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.constant([])),
    },
    { requiredKeys: [] },
  );

  fcTest.prop([observation])(
    "the hand-checked fast path accepts exactly what the zod schema accepts",
    (o) => {
      const recorder = new ProfileRowRecorder({ id: "r" });
      let threw = false;
      try {
        recorder.record(o, NOW);
      } catch (e) {
        expect(e).toBeInstanceOf(TurngateValidationError);
        threw = true;
      }
      expect(threw).toBe(!CheckObservationSchema.safeParse(o).success);
    },
  );

  fcTest.prop([fc.array(observation, { maxLength: 150 })])(
    "any sequence of valid observations: recorder row = one applyObservation per observation",
    (all) => {
      const valid = all.filter((o) => CheckObservationSchema.safeParse(o).success);
      const recorder = new ProfileRowRecorder({ id: "r", x: 1 });
      for (const o of valid) recorder.record(o, NOW);
      expect(JSON.stringify(recorder.row())).toBe(
        JSON.stringify(oneByOne({ id: "r", x: 1 }, valid)),
      );
    },
  );
});

describe("compileProfiles: a store validated and indexed once", () => {
  const rows: Row[] = [
    { id: "any", check: { rung: "R3", command: "a" } },
    { id: "dir", scope: { dir: "src/**" }, check: { rung: 1, command: "d" } },
    {
      id: "lang",
      scope: { language: "TX" },
      check: { rung: "2", command: "l" },
      timings: { warmMs: { p95: 9 } },
    },
    {
      id: "dir-lang",
      scope: { dir: "src/*.tx", language: "tx" },
      check: { rung: "R2", command: "dl" },
    },
    { id: "task", scope: { language: "tx", task: "lint" }, check: { rung: "R0", command: "t" } },
    { id: "repo", scope: { repo: "me/x" }, check: { rung: "R1", command: "r" } },
    { id: "other", scope: { language: "py" }, check: { rung: "R0", command: "p" } },
    { id: "nocmd", scope: { language: "tx" }, check: { rung: "R0" } },
    {
      id: "stale",
      scope: { language: "tx" },
      check: { rung: "R1", command: "s", staleProne: true },
    },
    {
      id: "cold",
      warmMode: { ready: false },
      check: { rung: "R1", command: "c" },
      timings: { coldMs: { p95: 4 }, warmMs: { p95: 1 } },
    },
  ];
  const profiles = { schemaVersion: 1, rows };
  const queries: unknown[] = [
    {},
    { language: "tx" },
    { language: "Tx", path: "src/a.tx" },
    { language: "tx", path: "src/deep/a.tx", task: "lint", repo: "me/x" },
    { path: "src/a.tx" },
    { language: "py", repo: "me/x" },
    null,
  ];
  const optionSets: Row[] = [
    {},
    { min_rung: "R1", max_rung: 2 },
    { resource_classes: ["moderate"], allow_stale_prone: false },
    { timing_kind: "cold", unknown_p95_ms: 5 },
    { warm_state_facts: [{ row_id: "cold", warm: true }], limit: 2 },
    { warm_states: { any: { warm: false } } },
  ];

  test("every query and option set: the same plan and matches as the plain record set", () => {
    const compiled = compileProfiles(profiles);
    for (const query of queries) {
      expect(profileMatches(query, { profiles: compiled })).toEqual(
        profileMatches(query, { profiles }),
      );
      for (const options of optionSets) {
        expect(JSON.stringify(ladderPlan(query, { ...options, profiles: compiled }))).toBe(
          JSON.stringify(ladderPlan(query, { ...options, profiles })),
        );
      }
    }
    const q = { language: "tx", path: "src/a.tx" };
    expect(ladderPlan(q, { profiles: compiled }).selected.map((e) => e.row_id)).toEqual([
      "cold",
      "stale",
      "dir",
      "lang",
      "dir-lang",
      "any",
    ]);
    expect(ladderPlan(q, { profiles: compiled }).skipped).toEqual([
      { row_id: "nocmd", reason: "missing_command", specificity: 4, index: 7 },
    ]);
  });

  test("the compiled set is a copy: later changes to the value given are not seen", () => {
    const value = structuredClone(profiles);
    const compiled = compileProfiles(value);
    (value.rows[0] as Row).check = { rung: "R5", command: "changed" };
    value.rows.length = 1;
    expect(ladderPlan({}, { profiles: compiled }).selected.map((e) => e.row_id)).toEqual([
      "cold",
      "any",
    ]);
    expect(ladderPlan({}, { profiles: compiled }).selected[1]?.command).toBe("a");
  });

  test("the copy keeps an own __proto__ key as a key (never the prototype)", () => {
    const value = JSON.parse('{"rows":[{"id":"a","__proto__":{"polluted":true}}]}');
    const row = compileProfiles(value).recordSet.rows?.[0] as Record<string, unknown>;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.keys(row)).toEqual(["id", "__proto__"]);
    expect((row as { polluted?: boolean }).polluted).toBeUndefined();
  });

  test("copy: false shares the value given (the store hands over the JSON it parsed)", () => {
    const value = structuredClone(profiles);
    expect(compileProfiles(value, { copy: false }).recordSet).toBe(value);
    expect(compileProfiles(value).recordSet).not.toBe(value);
  });

  test("a malformed record set is a typed error naming the field, even in a row no query matches", () => {
    const bad = {
      rows: [...rows, { id: "x", scope: { language: "zz" }, timings: { warmMs: { p95: -1 } } }],
    };
    expect(() => compileProfiles(bad)).toThrow(
      expect.objectContaining({ path: "profiles.rows.10.timings.warmMs.p95" }),
    );
    expect(() => compileProfiles({ schemaVersion: 2 }, { path: "store" })).toThrow(
      expect.objectContaining({ path: "store.schemaVersion" }),
    );
  });
});

describe("scope selectors are trimmed, as Harn's scope_selector trims them (§1.5)", () => {
  test("' tx ' matches the language tx; ' src/** ' the path src/a", () => {
    const profiles = { rows: [{ id: "a", scope: { language: " tx ", dir: " src/** " } }] };
    expect(profileMatches({ language: "tx", path: "src/a" }, { profiles })).toEqual([
      { row: profiles.rows[0], specificity: 6, index: 0 },
    ]);
    expect(
      profileMatches({ language: "tx", path: "src/a" }, { profiles: compileProfiles(profiles) }),
    ).toHaveLength(1);
  });
});
