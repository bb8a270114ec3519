/**
 * The pure Facts II bridge methods, called in-process through `@turngate/bridge/pure`
 * exactly as the Pyodide transport calls them (params validated, results checked against
 * their schemas). Expected values are worked out by hand from harn-verification.md
 * §1.4, §1.9, §1.10, §3.2–3.6.
 */
import { BridgeError, dispatchStateless } from "@turngate/bridge/pure";
import { describe, expect, test } from "vitest";

const call = (method: string, params: unknown) =>
  dispatchStateless(method, params, { validateResult: true }) as Record<string, unknown>;

function wireError(method: string, params: unknown): { code: string; path: string | undefined } {
  try {
    dispatchStateless(method, params);
  } catch (error) {
    expect(error).toBeInstanceOf(BridgeError);
    const data = (error as BridgeError).toWire().data;
    return { code: data.code, path: data.path };
  }
  throw new Error(`${method} did not fail`);
}

const profiles = {
  schemaVersion: 1,
  rows: [
    {
      id: "parse",
      scope: { language: "tx" },
      check: { rung: "R0", command: "tx parse", resourceClass: "cheap" },
    },
    {
      id: "test",
      check: { rung: 4, command: { argv: ["tx", "test"] } },
      timings: { warmMs: { p95: 9000 } },
    },
  ],
};

describe("facts.profile_matches / facts.ladder_plan", () => {
  test("matches most specific first", () => {
    expect(
      call("facts.profile_matches", { query: { language: "TX" }, options: { profiles } }),
    ).toEqual({
      matches: [
        { row: profiles.rows[0], specificity: 4, index: 0 },
        { row: profiles.rows[1], specificity: 0, index: 1 },
      ],
    });
  });
  test("a ladder plan with bounds as a string and an integer", () => {
    const plan = call("facts.ladder_plan", {
      query: { language: "tx" },
      options: { profiles, min_rung: "1", max_rung: 4 },
    });
    expect((plan.selected as { row_id: string }[]).map((e) => e.row_id)).toEqual(["test"]);
    expect(plan.skipped).toEqual([
      { row_id: "parse", reason: "below_min_rung", specificity: 4, index: 0 },
    ]);
    expect(plan.reason).toBe("profile_rows_selected");
  });
  test("bad fields are invalid_params naming them", () => {
    expect(wireError("facts.ladder_plan", { options: { min_rung: true } })).toEqual({
      code: "invalid_params",
      path: "options.min_rung",
    });
    expect(
      wireError("facts.ladder_plan", {
        options: { profiles: { rows: [{ id: "a", scope: { dir: 1 } }] } },
      }),
    ).toEqual({ code: "invalid_params", path: "options.profiles.rows.0.scope.dir" });
    expect(wireError("facts.profile_matches", { query: { path: [] } })).toEqual({
      code: "invalid_params",
      path: "query.path",
    });
  });
});

describe("facts.hud_model / facts.hud_text", () => {
  const state = {
    started_ms: 0,
    last_edit_ms: 30_000,
    language: "tx",
    last_check: { rung: "R0", verdict: "passed", at_ms: 50_000, bound_snapshot: { a: "1" } },
    current_hashes: { a: "1" },
  };
  test("text from a state and from the model agree", () => {
    const text =
      "[verification]\nelapsed: 1m0s - since last edit: 30s\nlast check: R0 -> passed @10s ago (current snapshot)\nnext check: R0 tx parse - est 16m39s (p95 warm)\nfull verify: R4 tx test - est 9s (p95 warm)";
    expect(
      call("facts.hud_text", { model_or_state: state, options: { profiles, now_ms: 60_000 } }),
    ).toEqual({
      text,
    });
    const model = call("facts.hud_model", { state, options: { profiles, now_ms: 60_000 } });
    expect(model.schema).toBe("harn.verification.hud_model.v1");
    expect(call("facts.hud_text", { model_or_state: model })).toEqual({ text });
  });
  test("missing state; a bad state field", () => {
    expect(call("facts.hud_model", { state: null })).toEqual({
      schema: "harn.verification.hud_model.v1",
      visible: false,
      reason: "missing_state",
      lines: [],
    });
    expect(wireError("facts.hud_model", { state: { last_check: 3 } })).toEqual({
      code: "invalid_params",
      path: "state.last_check",
    });
  });
});

describe("facts.observation_from_command_result / facts.record_check_result", () => {
  test("a timed-out result is exit 124 with the fallback signature", () => {
    expect(
      call("facts.observation_from_command_result", {
        result: { status: "timed_out", timed_out: true, exit_code: null, duration_ms: 30000 },
      }),
    ).toEqual({
      warm: true,
      durationMs: 30000,
      exit: 124,
      failureSignature: "check timed_out exit=124",
    });
  });
  test("recording into the given record set", () => {
    const out = call("facts.record_check_result", {
      row_id: "test",
      result: { exit_code: 0, duration_ms: 700 },
      options: { profiles, now_ms: 0, cold: true },
    });
    expect(out.row).toEqual({
      ...profiles.rows[1],
      timings: {
        warmMs: { p95: 9000 },
        recentColdMs: [700],
        coldMs: { p50: 700, p95: 700, p99: 700 },
        samples: 1,
      },
      lastRun: { at: "1970-01-01T00:00:00Z", exit: 0 },
    });
    expect((out.profiles as { updatedAt: string }).updatedAt).toBe("1970-01-01T00:00:00Z");
    expect(
      wireError("facts.record_check_result", { row_id: " ", result: {}, options: { profiles } }),
    ).toEqual({
      code: "invalid_params",
      path: "row_id",
    });
    expect(
      wireError("facts.record_check_result", { row_id: "a", result: { exit_code: [] } }),
    ).toEqual({
      code: "invalid_params",
      path: "result.exit_code",
    });
  });
});
