import { describe, expect, test } from "vitest";
import {
  commandLabel,
  durationLabel,
  hudModel,
  hudText,
  TurngateValidationError,
} from "../../../src/index.js";

const START = 1_700_000_000_000;
const NOW = START + 120_000;
const timed = (ms: number) => ({ timings: { warmMs: { p50: ms, p95: ms, p99: ms } } });
const profiles = {
  schemaVersion: 1,
  rows: [
    {
      id: "parse",
      check: { rung: "R0", command: "toolchainx parse {file}", resourceClass: "cheap" },
      ...timed(80),
    },
    { id: "check", check: { rung: "R2", command: "toolchainx check" }, ...timed(3000) },
    {
      id: "full",
      label: "everything",
      check: { rung: "R4", command: { argv: ["toolchainx", "test", "--all"] } },
      ...timed(9000),
    },
  ],
};
const lastCheck = {
  rung: "R2",
  verdict: "failed",
  at_ms: NOW - 11_000,
  bound_snapshot: { "src/a.tx": "1", "src/b.tx": "2" },
};
const state = (extra: Record<string, unknown> = {}) => ({
  started_ms: START,
  last_edit_ms: NOW - 60_000,
  last_check: lastCheck,
  ...extra,
});

describe("durationLabel (§3.6)", () => {
  test.each([
    [null, "0s"],
    [80, "0s"],
    [999, "0s"],
    [1000, "1s"],
    [9000, "9s"],
    [11000, "11s"],
    [59999, "59s"],
    [60000, "1m0s"],
    [61000, "1m1s"],
    [120000, "2m0s"],
    [3600000, "60m0s"],
    [-5, "0s"],
    ["1500", "1s"],
  ])("%j → %s", (ms, label) => {
    expect(durationLabel(ms)).toBe(label);
  });
});

describe("commandLabel (§4.2)", () => {
  test("string, command, argv / args, JSON fallback", () => {
    expect(commandLabel(null)).toBe("");
    expect(commandLabel("  tx run  ")).toBe("tx run");
    expect(commandLabel({ mode: "shell", command: " tx a " })).toBe("tx a");
    expect(commandLabel({ argv: ["tx", 1, true] })).toBe("tx 1 true");
    expect(commandLabel({ args: ["tx", "b"], command: "  " })).toBe("tx b");
    expect(commandLabel(["tx", "c"])).toBe('["tx","c"]');
  });
});

describe("hudText (§4.1), byte for byte", () => {
  test("stale: the reference scenario", () => {
    const text = hudText(state({ current_hashes: { "src/a.tx": "1", "src/b.tx": "changed" } }), {
      profiles,
      now_ms: NOW,
    });
    expect(text).toBe(
      [
        "[verification]",
        "elapsed: 2m0s - since last edit: 1m0s",
        "last check: R2 -> failed @11s ago - STALE (1 file(s) changed since)",
        "next check: R0 toolchainx parse {file} - est 0s (p95 warm)",
        "full verify: R4 toolchainx test --all - est 9s (p95 warm)",
      ].join("\n"),
    );
  });

  test("fresh: current snapshot", () => {
    const text = hudText(
      state({ current_hashes: { snapshot: { "src/a.tx": "1", "src/b.tx": "2" } } }),
      { profiles, now_ms: NOW },
    );
    expect(text).toBe(
      "[verification]\nelapsed: 2m0s - since last edit: 1m0s\nlast check: R2 -> failed @11s ago (current snapshot)\nnext check: R0 toolchainx parse {file} - est 0s (p95 warm)\nfull verify: R4 toolchainx test --all - est 9s (p95 warm)",
    );
  });

  test("freshness unknown: bound but no current hashes, or no binding", () => {
    expect(hudText(state(), { now_ms: NOW })).toBe(
      "[verification]\nelapsed: 2m0s - since last edit: 1m0s\nlast check: R2 -> failed @11s ago (freshness unknown)",
    );
    const unbound = { started_ms: START, last_check: { status: "passed", ended_ms: NOW - 61_000 } };
    expect(hudText(unbound, { now_ms: NOW })).toBe(
      "[verification]\nelapsed: 2m0s\nlast check: R? -> passed @1m1s ago (freshness unknown)",
    );
  });

  test("never checked: only the plan lines; a cold row says so", () => {
    const cold = {
      schemaVersion: 1,
      rows: [
        {
          id: "lint",
          rung: 1,
          command: "tx lint",
          warmMode: { warm: false },
          timings: { coldMs: { p95: 61_000 } },
        },
      ],
    };
    expect(hudText({ started_ms: START }, { profiles: cold, now_ms: NOW })).toBe(
      "[verification]\nelapsed: 2m0s\nnext check: R1 tx lint - est 1m1s (p95 cold)",
    );
  });

  test("no profile and no check: invisible, empty text", () => {
    const model = hudModel({ started_ms: START }, { now_ms: NOW });
    expect([model.visible, model.reason]).toEqual([false, "no_verification_facts"]);
    expect(hudText(model)).toBe("");
    expect(hudText({ started_ms: START }, { now_ms: NOW })).toBe("");
  });

  test("missing state", () => {
    expect(hudModel(null)).toEqual({
      schema: "harn.verification.hud_model.v1",
      visible: false,
      reason: "missing_state",
      lines: [],
    });
    expect(hudText("state")).toBe("");
  });
});

describe("hudModel (§1.10)", () => {
  test("the model of the stale scenario", () => {
    const model = hudModel(
      state({
        path: " src/a.tx ",
        language: "tx",
        task_kind: "edit",
        current_hashes: { "src/a.tx": "1" },
      }),
      { profiles, now_ms: NOW, query: { repo: "r" } },
    );
    if (!("plans" in model)) throw new Error("expected a full model");
    expect(model.query).toEqual({ path: "src/a.tx", language: "tx", task: "edit", repo: "r" });
    expect([
      model.dir,
      model.elapsed_ms,
      model.elapsed,
      model.since_last_edit_ms,
      model.since_last_edit,
    ]).toEqual([".", 120000, "2m0s", 60000, "1m0s"]);
    expect(model.last_check).toEqual({
      rung: "R2",
      verdict: "failed",
      at_ms: NOW - 11_000,
      age_ms: 11000,
      age: "11s",
      freshness: {
        schema: "harn.verification.snapshot_staleness.v1",
        status: "bound_stale",
        stale: true,
        fresh: false,
        staleFiles: ["src/b.tx"],
        stale_files: ["src/b.tx"],
        changed_files: ["src/b.tx"],
        advisory: true,
        reason: "snapshot superseded or unverifiable for 1 file(s); re-check before trusting",
      },
    });
    expect(model.next_check).toEqual({
      row_id: "parse",
      rung: "R0",
      command: "toolchainx parse {file}",
      label: "parse",
      p95_ms: 80,
      p95: "0s",
      timing_kind: "warm",
      resource_class: "cheap",
      granularity: null,
      trust: null,
      row: profiles.rows[0],
    });
    expect(model.full_check?.label).toBe("everything");
    expect(model.plans.next.selected.length).toBe(1);
    expect(model.plans.full.selected.map((e) => e.row_id)).toEqual(["full"]);
  });

  test("next_limit, full bounds and plan options are honoured", () => {
    const model = hudModel(
      { started_ms: START },
      {
        profiles,
        now_ms: NOW,
        next_limit: 2,
        full_min_rung: "R2",
        resource_classes: ["moderate"],
      },
    );
    if (!("plans" in model)) throw new Error("expected a full model");
    expect(model.plans.next.selected.map((e) => e.row_id)).toEqual(["check", "full"]);
    expect(model.full_check?.row_id).toBe("check");
    expect(model.next_check?.row_id).toBe("check");
  });

  test("malformed state and options are typed errors naming the field", () => {
    const path = (s: unknown, o: unknown) => {
      try {
        hudModel(s, o);
      } catch (error) {
        expect(error).toBeInstanceOf(TurngateValidationError);
        return (error as TurngateValidationError).path;
      }
      return "no error";
    };
    expect(path({ last_check: "yesterday" }, {})).toBe("state.last_check");
    expect(path({ started_ms: true }, {})).toBe("state.started_ms");
    expect(path({}, { now_ms: [] })).toBe("options.now_ms");
    expect(path({}, { profiles: { rows: [{ id: 1 }] } })).toBe("options.profiles.rows.0.id");
    expect(path({}, { plan_options: { min_rung: true } })).toBe("options.plan_options.min_rung");
    expect(path({}, { full_plan_options: { limit: "one" } })).toBe(
      "options.full_plan_options.limit",
    );
    expect(path({}, { resource_classes: 5 })).toBe("options.resource_classes");
  });

  // Issue 36: a time past ±(2^53−1) gave a model outside its own schema.
  test("times past ±(2^53−1) are refused at their field; differences are clamped", () => {
    const path = (state: unknown, options?: unknown) => {
      try {
        hudModel(state, options);
      } catch (error) {
        expect(error).toBeInstanceOf(TurngateValidationError);
        return (error as TurngateValidationError).path;
      }
      return "no error";
    };
    expect(path({}, { now_ms: 1e20 })).toBe("options.now_ms");
    expect(path({ started_ms: "9007199254740993" }, { now_ms: NOW })).toBe("state.started_ms");
    expect(path({ lastEditMs: -(2 ** 53) }, { now_ms: NOW })).toBe("state.lastEditMs");
    expect(path({ last_check: { at_ms: 1e300 } }, { now_ms: NOW })).toBe("state.last_check.at_ms");
    expect(path({ lastCheck: { ended_ms: -1e20 } }, { now_ms: NOW })).toBe(
      "state.lastCheck.ended_ms",
    );
    expect(path({}, { now_ms: NOW, next_limit: 1e20, profiles })).toBe("options.next_limit");
    const max = Number.MAX_SAFE_INTEGER;
    const model = hudModel(
      { started_ms: -max, last_edit_ms: -max, last_check: { at_ms: -max, rung: "R1" } },
      { now_ms: max },
    );
    if (!("plans" in model)) throw new Error("expected a full model");
    expect([model.elapsed_ms, model.since_last_edit_ms, model.last_check?.age_ms]).toEqual([
      max,
      max,
      max,
    ]);
  });
});
