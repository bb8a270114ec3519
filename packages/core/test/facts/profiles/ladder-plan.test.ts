import { describe, expect, test } from "vitest";
import { ladderPlan, TurngateValidationError } from "../../../src/index.js";

type Row = Record<string, unknown>;
const p95 = (warm?: number, cold?: number) => ({
  timings: {
    ...(warm === undefined ? {} : { warmMs: { p50: warm, p95: warm, p99: warm } }),
    ...(cold === undefined ? {} : { coldMs: { p50: cold, p95: cold, p99: cold } }),
  },
});
const row = (id: string, rung: unknown, extra: Row = {}): Row => ({
  id,
  check: { rung, command: `tx ${id}`, ...((extra.check as Row) ?? {}) },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== "check")),
});
const plan = (rows: Row[], options: Row = {}, query: unknown = {}) =>
  ladderPlan(query, { profiles: { schemaVersion: 1, rows }, ...options });
const order = (rows: Row[], options: Row = {}, query: unknown = {}) =>
  plan(rows, options, query).selected.map((e) => e.row_id);
const skips = (rows: Row[], options: Row = {}) =>
  plan(rows, options).skipped.map((s) => [s.row_id, s.reason]);

describe("ladder ranking (§3.4): each key alone decides", () => {
  test("rung: lower first", () => {
    expect(order([row("a", "R3"), row("b", "R1")])).toEqual(["b", "a"]);
  });
  test("resource class: cheap < moderate (default) < heavy < remote < other", () => {
    const rows = [
      row("gpu", 1, { check: { resourceClass: "gpu" } }),
      row("remote", 1, { check: { resource_class: "remote-ok" } }),
      row("heavy", 1, { resourceClass: "HEAVY" }),
      row("default", 1),
      row("cheap", 1, { resource_class: " cheap " }),
    ];
    expect(order(rows)).toEqual(["cheap", "default", "heavy", "remote", "gpu"]);
    expect(plan(rows).selected.map((e) => e.sort_key[1])).toEqual([0, 1, 2, 3, 4]);
  });
  test("a blank or missing resource class is moderate: ranked 1, named moderate, kept by resource_classes moderate", () => {
    const rows = [
      row("heavy", 1, { check: { resourceClass: "heavy" } }),
      row("blank-check", 1, { check: { resourceClass: "" } }),
      row("spaces-row", 1, { resource_class: "  \t " }),
      row("missing", 1),
      row("cheap", 1, { check: { resource_class: "cheap" } }),
    ];
    const selected = plan(rows).selected;
    expect(selected.map((e) => [e.row_id, e.resource_class, e.sort_key[1]])).toEqual([
      ["cheap", "cheap", 0],
      ["blank-check", "moderate", 1],
      ["spaces-row", "moderate", 1],
      ["missing", "moderate", 1],
      ["heavy", "heavy", 2],
    ]);
    expect(order(rows, { resource_classes: "moderate" })).toEqual([
      "blank-check",
      "spaces-row",
      "missing",
    ]);
    expect(skips(rows, { resource_classes: "moderate" })).toEqual([
      ["heavy", "resource_class_filtered"],
      ["cheap", "resource_class_filtered"],
    ]);
  });
  test("p95: faster first", () => {
    expect(order([row("slow", 1, p95(500)), row("fast", 1, p95(100))])).toEqual(["fast", "slow"]);
  });
  test("specificity: more specific first", () => {
    const rows = [row("broad", 1), row("narrow", 1, { scope: { language: "tx" } })];
    expect(order(rows, {}, { language: "tx" })).toEqual(["narrow", "broad"]);
    expect(plan(rows, {}, { language: "tx" }).selected[0]?.sort_key).toEqual([1, 1, 999999, -4, 1]);
  });
  test("index: earlier row first", () => {
    expect(order([row("a", 1), row("b", 1)])).toEqual(["a", "b"]);
    expect(order([row("b", 1), row("a", 1)])).toEqual(["b", "a"]);
  });
});

describe("ladderPlan entries and skips (§1.9)", () => {
  test("a full entry, Harn's field names", () => {
    const r = row("unit", "r2", {
      name: "unit tests",
      check: { granularity: "file", trust: "high", background: true },
      ...p95(1200, 4000),
    });
    expect(plan([r])).toEqual({
      schema: "harn.verification.ladder_plan.v1",
      query: {},
      matches: [{ row: r, specificity: 0, index: 0 }],
      selected: [
        {
          row_id: "unit",
          row: r,
          rung: "R2",
          rung_rank: 2,
          command: "tx unit",
          runnable: true,
          granularity: "file",
          trust: "high",
          resource_class: "moderate",
          p95_ms: 1200,
          timing_kind: "warm",
          warm_state: null,
          specificity: 0,
          index: 0,
          sort_key: [2, 1, 1200, 0, 0],
          background: true,
        },
      ],
      skipped: [],
      fallback: false,
      reason: "profile_rows_selected",
    });
  });

  test("skip reasons in check order; rows without an id are profile/<index>", () => {
    const rows: Row[] = [
      { check: { command: "x" } },
      { id: "bad-rung", rung: "R6" },
      { id: "no-cmd", rung: 1, command: "  " },
      { id: "nil-cmd", rung: 1 },
      { id: "dict-cmd", rung: 1, spec: {} },
      { name: "named", rung: 1, check: { command: ["tx", "run"] } },
    ];
    expect(skips(rows)).toEqual([
      ["profile/0", "missing_or_invalid_rung"],
      ["bad-rung", "missing_or_invalid_rung"],
      ["no-cmd", "missing_command"],
      ["nil-cmd", "missing_command"],
    ]);
    expect(order(rows)).toEqual(["dict-cmd", "named"]);
  });

  test("reasons: no_profile_rows, no_matching_runnable_rows, fallback", () => {
    const none = ladderPlan({}, {});
    expect([none.reason, none.fallback, none.matches]).toEqual(["no_profile_rows", true, []]);
    const skipped = plan([{ id: "x", rung: 1 }]);
    expect([skipped.reason, skipped.fallback]).toEqual(["no_matching_runnable_rows", true]);
  });
});

describe("ladderPlan options (§1.9), each on and off", () => {
  const ladder = [
    row("r0", "R0"),
    row("r1", 1),
    row("r2", "2"),
    row("r3", 3),
    row("r4", "R4"),
    row("r5", 5),
  ];

  test("min_rung / max_rung in all three forms, inclusive; invalid → defaults", () => {
    const all = ["r0", "r1", "r2", "r3", "r4", "r5"];
    expect(order(ladder)).toEqual(all);
    for (const min of ["R2", "2", 2, "r2", " R2 "]) {
      expect(order(ladder, { min_rung: min })).toEqual(["r2", "r3", "r4", "r5"]);
    }
    for (const max of ["R3", "3", 3]) {
      expect(order(ladder, { max_rung: max })).toEqual(["r0", "r1", "r2", "r3"]);
    }
    expect(order(ladder, { min_rung: "R9", max_rung: "R03" })).toEqual(all);
    expect(skips(ladder, { min_rung: 2, max_rung: "R3" })).toEqual([
      ["r0", "below_min_rung"],
      ["r1", "below_min_rung"],
      ["r4", "above_max_rung"],
      ["r5", "above_max_rung"],
    ]);
  });

  test("resource_classes / allowed_resource_classes (string or list, lowercased)", () => {
    const rows = [
      row("c", 1, { check: { resourceClass: "cheap" } }),
      row("m", 1),
      row("ro", 1, { check: { resourceClass: "remote_ok" } }),
    ];
    expect(order(rows)).toEqual(["c", "m", "ro"]);
    expect(order(rows, { resource_classes: ["CHEAP", "moderate"] })).toEqual(["c", "m"]);
    expect(order(rows, { allowed_resource_classes: "cheap" })).toEqual(["c"]);
    expect(order(rows, { resource_classes: ["remote-ok"] })).toEqual([]);
    expect(order(rows, { resource_classes: [] })).toEqual(["c", "m", "ro"]);
    expect(skips(rows, { resource_classes: "cheap" })).toEqual([
      ["m", "resource_class_filtered"],
      ["ro", "resource_class_filtered"],
    ]);
  });

  test("allow_stale_prone: only false filters", () => {
    const rows = [
      row("flaky", 1, { check: { staleProne: true } }),
      row("solid", 1, { stale_prone: false }),
    ];
    expect(order(rows)).toEqual(["flaky", "solid"]);
    expect(order(rows, { allow_stale_prone: true })).toEqual(["flaky", "solid"]);
    expect(order(rows, { allow_stale_prone: false })).toEqual(["solid"]);
    expect(skips(rows, { allow_stale_prone: false })).toEqual([["flaky", "stale_prone_filtered"]]);
  });

  test("limit: n keeps the first n, 0 empties, negative or absent keeps all", () => {
    expect(order(ladder, { limit: 2 })).toEqual(["r0", "r1"]);
    expect(order(ladder, { limit: 10 }).length).toBe(6);
    expect(order(ladder, { limit: -1 }).length).toBe(6);
    const empty = plan(ladder, { limit: 0 });
    expect([empty.selected, empty.fallback, empty.reason]).toEqual([
      [],
      true,
      "no_matching_runnable_rows",
    ]);
  });

  test("unknown_p95_ms: rows without timings rank with it (default 999999)", () => {
    const rows = [row("unknown", 1), row("timed", 1, p95(5000))];
    expect(plan(rows).selected.map((e) => [e.row_id, e.p95_ms])).toEqual([
      ["timed", 5000],
      ["unknown", 999999],
    ]);
    expect(plan(rows, { unknown_p95_ms: 10 }).selected.map((e) => [e.row_id, e.p95_ms])).toEqual([
      ["unknown", 10],
      ["timed", 5000],
    ]);
  });

  test("timing_kind warm, cold, any or another word: which p95 is read", () => {
    const rows = [row("both", 1, p95(100, 900)), row("cold-only", 1, p95(undefined, 300))];
    const read = (options: Row) =>
      plan(rows, options).selected.map((e) => [e.row_id, e.timing_kind, e.p95_ms]);
    expect(read({ timing_kind: "warm" })).toEqual([
      ["both", "warm", 100],
      ["cold-only", "warm", 300],
    ]);
    expect(read({ timing_kind: "COLD" })).toEqual([
      ["cold-only", "cold", 300],
      ["both", "cold", 900],
    ]);
    expect(read({ timing_kind: "any" })).toEqual([
      ["both", "any", 100],
      ["cold-only", "any", 300],
    ]);
    expect(read({ timing_kind: "turbo" })).toEqual([
      ["both", "turbo", 100],
      ["cold-only", "turbo", 300],
    ]);
  });

  test("timing_kind auto (or absent): warm-state facts as a list or a dict, then the row's warm mode", () => {
    const rows = [
      row("a", 1, p95(100, 900)),
      row("b", 1, { ...p95(200, 250), warmMode: { ready: false } }),
      row("c", 1, { ...p95(300, 50), warm_state: true }),
    ];
    const read = (options: Row) =>
      plan(rows, options).selected.map((e) => [e.row_id, e.timing_kind, e.p95_ms]);
    expect(read({})).toEqual([
      ["a", "warm", 100],
      ["b", "cold", 250],
      ["c", "warm", 300],
    ]);
    const list = [
      { row_id: "a", warm: false },
      { id: " c ", warm: false },
    ];
    expect(read({ timing_kind: "auto", warm_state_facts: list })).toEqual([
      ["c", "cold", 50],
      ["b", "cold", 250],
      ["a", "cold", 900],
    ]);
    expect(read({ warm_states: { b: { warm: true } } })).toEqual([
      ["a", "warm", 100],
      ["b", "warm", 200],
      ["c", "warm", 300],
    ]);
    expect(plan(rows, { warm_states: { b: { warm: true } } }).selected[1]?.warm_state).toEqual({
      warm: true,
    });
  });

  test("dir is accepted (it selects the store in @turngate/node) and changes nothing here", () => {
    expect(order(ladder, { dir: "pkg/a" })).toEqual(order(ladder));
  });
});

describe("ladderPlan rejects malformed options and rows", () => {
  const path = (options: unknown, query: unknown = {}) => {
    try {
      ladderPlan(query, options);
    } catch (error) {
      expect(error).toBeInstanceOf(TurngateValidationError);
      return (error as TurngateValidationError).path;
    }
    return "no error";
  };
  test.each([
    [{ min_rung: true }, "options.min_rung"],
    [{ max_rung: { r: 1 } }, "options.max_rung"],
    [{ resource_classes: [1] }, "options.resource_classes"],
    [{ timing_kind: 5 }, "options.timing_kind"],
    [{ warm_state_facts: "warm" }, "options.warm_state_facts"],
    [{ unknown_p95_ms: -1 }, "options.unknown_p95_ms"],
    [{ unknown_p95_ms: "fast" }, "options.unknown_p95_ms"],
    [{ allow_stale_prone: "no" }, "options.allow_stale_prone"],
    [{ limit: 1.5 }, "options.limit"],
    [{ dir: 3 }, "options.dir"],
    [[], "options"],
    [{ profiles: { rows: [{ id: "a", check: "fast" }] } }, "options.profiles.rows.0.check"],
    [
      { profiles: { rows: [{ id: "a", staleProne: "yes" }] } },
      "options.profiles.rows.0.staleProne",
    ],
    [
      { profiles: { rows: [{ id: "a", timings: { warmMs: { p95: "9s" } } }] } },
      "options.profiles.rows.0.timings.warmMs.p95",
    ],
    [{ profiles: { rows: [{ id: "a", rung: true }] } }, "options.profiles.rows.0.rung"],
    [{ profiles: { schemaVersion: 2, rows: [] } }, "options.profiles.schemaVersion"],
    [{ profiles: { rows: [{ id: "a", rung: 1, command: 7 }] } }, "options.profiles.rows.0.command"],
    [
      { profiles: { rows: [{ id: "a", warmMode: { ready: "yes" } }] } },
      "options.profiles.rows.0.warmMode.ready",
    ],
    [
      { profiles: { rows: [{ id: "a", scope: { language: ["tx"] } }] } },
      "options.profiles.rows.0.scope.language",
    ],
    [
      { profiles: { rows: [{ id: "a", timings: { coldMs: { p95: -1 } } }] } },
      "options.profiles.rows.0.timings.coldMs.p95",
    ],
    [{ profiles: { rows: ["a"] } }, "options.profiles.rows.0"],
    // Issue 36: a p95 past 2^53−1 became a p95_ms outside the plan's schema.
    [
      { profiles: { rows: [{ id: "a", timings: { warmMs: { p95: 2 ** 53 } } }] } },
      "options.profiles.rows.0.timings.warmMs.p95",
    ],
    [
      { profiles: { rows: [{ id: "a", timings: { coldMs: { p95: 1e20 } } }] } },
      "options.profiles.rows.0.timings.coldMs.p95",
    ],
  ])("%j → %s", (options, expected) => {
    expect(path(options)).toBe(expected);
  });
  test("a malformed query names the query field", () => {
    expect(path({}, { language: {} })).toBe("query.language");
  });
});
