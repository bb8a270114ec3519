import { describe, expect, test } from "vitest";
import { gateInput, rungRank } from "../../src/index.js";

const hashes = { "src/writer.zig": "new" };
const red = (rung: string | number, snapshot: Record<string, string>, line = 10) => ({
  rung,
  at: "2026-07-03T00:00:00Z",
  snapshot,
  diagnostics: [`src/writer.zig:${line}:2: error: missing writeEscaped`],
});
const green = (rung: string | undefined) => ({
  rung,
  at: "2026-07-03T00:02:00Z",
  snapshot: hashes,
  success: true,
});

describe("gateInput", () => {
  test("Harn's example: a stale previous is never a baseline, so a fresh failure is initialized", () => {
    const g = gateInput(red("R2", { "src/writer.zig": "old" }), red("R2", hashes, 99), hashes, {
      row: { diagnosticDelta: { strip_locations: true } },
    });
    expect(g.schema).toBe("harn.verification.gate_input.v1");
    expect(g.previous.classification).toMatchObject({
      status: "bound_stale",
      feedsGates: false,
      staleFiles: ["src/writer.zig"],
    });
    expect(g.previous.value.feedsGates).toBe(false);
    expect(g.current.classification).toMatchObject({ status: "bound_fresh", feedsGates: true });
    expect([g.status, g.reason, g.feedsGates, g.feeds_gates, g.advisory]).toEqual([
      "initialized",
      "no_prior_gate_bearing_failure",
      true,
      true,
      false,
    ]);
    expect([
      g.progress_credit,
      g.no_progress,
      g.gate_bearing_failure,
      g.blocks_completion,
      g.stale,
    ]).toEqual([false, false, true, true, false]);
    expect(g.stale_files).toEqual([]);
  });

  test("an unbound previous (no rung) is never a baseline either", () => {
    const previous = { at: 1, snapshot: hashes, diagnostics: ["e1"] };
    const g = gateInput(previous, red("R2", hashes), hashes);
    expect(g.previous.classification.status).toBe("unbound");
    expect([g.status, g.reason]).toEqual(["initialized", "no_prior_gate_bearing_failure"]);
  });

  test("the same fresh failure set is unchanged: no progress", () => {
    const g = gateInput(red("R2", hashes, 10), red("R2", hashes, 40), hashes);
    expect([g.status, g.no_progress, g.progress_credit, g.blocks_completion]).toEqual([
      "unchanged",
      true,
      false,
      true,
    ]);
  });

  test("a stale current diagnostic is advisory and reports its stale files", () => {
    const g = gateInput(red("R2", hashes), red("R2", { "src/writer.zig": "older" }), hashes);
    expect([g.status, g.reason, g.advisory, g.stale, g.blocks_completion]).toEqual([
      "advisory",
      "snapshot superseded for 1 file(s); re-check before trusting",
      true,
      true,
      false,
    ]);
    expect(g.stale_files).toEqual(["src/writer.zig"]);
  });

  test("rung rule: a green at the same or a higher rung clears with progress credit", () => {
    for (const [prev, cur] of [
      ["R2", "R2"],
      ["R2", "R3"],
      ["r1", "5"],
    ] as const) {
      const g = gateInput(red(prev, hashes), green(cur), hashes);
      expect([g.status, g.reason, g.progress_credit, g.blocks_completion]).toEqual([
        "cleared",
        "current_result_is_passing",
        true,
        false,
      ]);
      expect(g.rung_comparison.outcome).toBe("same_or_higher");
    }
  });

  test("rung rule: a lower-rung green is advisory (lower_rung_green) and the failure still blocks", () => {
    const g = gateInput(red("R3", hashes), green("R1"), hashes);
    expect([g.status, g.reason, g.feedsGates, g.advisory, g.progress_credit]).toEqual([
      "advisory",
      "lower_rung_green",
      false,
      true,
      false,
    ]);
    expect([g.gate_bearing_failure, g.blocks_completion, g.no_progress]).toEqual([
      true,
      true,
      false,
    ]);
    expect(g.delta.status).toBe("cleared");
    expect(g.rung_comparison).toEqual({
      previous_rung: "R3",
      current_rung: "R1",
      previous_rank: 3,
      current_rank: 1,
      outcome: "lower",
    });
  });

  test("rung rule: a green without a rankable rung cannot clear a ranked failure", () => {
    const g = gateInput(red("R2", hashes), { success: true }, undefined);
    expect(g.current.classification.status).toBe("unclassified");
    expect([g.status, g.reason, g.blocks_completion]).toEqual(["advisory", "unranked_green", true]);
    expect(g.rung_comparison.outcome).toBe("unranked");
  });

  test("without current hashes, unranked sides keep their own gate status (Harn behaviour)", () => {
    const g = gateInput({ diagnostics: ["e1", "e2"] }, { diagnostics: ["e2"] }, null);
    expect(g.current.classification).toEqual({
      status: "unclassified",
      staleFiles: [],
      stale_files: [],
      feedsGates: true,
      feeds_gates: true,
      advisory: false,
      reason: "current file hashes unavailable; preserving diagnostic gate status",
    });
    expect([g.status, g.progress_credit, g.rung_comparison.outcome]).toEqual([
      "advanced",
      true,
      "not_applicable",
    ]);
    const cleared = gateInput({ diagnostics: ["e1"] }, { success: true });
    expect([cleared.status, cleared.progress_credit, cleared.blocks_completion]).toEqual([
      "cleared",
      true,
      false,
    ]);
    const advisory = gateInput(null, { diagnostics: ["e1"], status: "advisory" });
    expect([advisory.status, advisory.reason]).toEqual([
      "advisory",
      "diagnostic status does not feed gates",
    ]);
  });

  test("an embedded classification is used as given", () => {
    const current = {
      classification: { status: "bound_fresh", feedsGates: true, staleFiles: [] },
      diagnostics: ["e9"],
    };
    const g = gateInput(null, current, { other: "1" });
    expect(g.current.classification).toBe(current.classification);
    expect([g.status, g.gate_bearing_failure]).toEqual(["initialized", true]);
  });
});

describe("rungRank", () => {
  test("follows Harn's rung rule", () => {
    expect(["R3", "r3", " R3 ", 3, "3", "+3", "R0", "R5"].map(rungRank)).toEqual([
      3, 3, 3, 3, 3, 3, 0, 5,
    ]);
    expect(["R6", "R03", "R-1", 2.5, null, "", "rung2", 6].map(rungRank)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});
