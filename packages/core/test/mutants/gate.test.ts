/**
 * Tests added for surviving mutants of the completion gate (issue #11 §5, Stryker over
 * stryker.config.json): exact validation messages and paths of decideCompletion's input,
 * and reportBindsPass on a checks list holding a non-object after a valid check.
 */
import { describe, expect, test } from "vitest";
import {
  createReport,
  decideCompletion,
  foldStepCompletions,
  MutationLedger,
  reportBindsPass,
  stillOpenObservations,
  TurngateValidationError,
} from "../../src/index.js";

// One row "write|a.ts|sha256('a')" (as in gate.test.ts).
const D = "1dafedebb3b2ce401627772d27272cfc5c96dd2fbe62d8ec165c783370eb9ec5";

function ledger(): MutationLedger {
  const l = new MutationLedger();
  l.observeTool("write", 0, { file_path: "a.ts", after: "a" });
  return l;
}

function refusal(input: unknown): { message: string; path: string } {
  try {
    decideCompletion(input as never);
  } catch (error) {
    expect(error).toBeInstanceOf(TurngateValidationError);
    const e = error as TurngateValidationError;
    return { message: e.message, path: e.path };
  }
  throw new Error("decideCompletion accepted the input");
}

describe("decideCompletion input validation (exact messages)", () => {
  test("a non-object input", () => {
    expect(refusal(null)).toEqual({ message: "invalid gate input: expected an object", path: "" });
    expect(refusal("x")).toEqual({ message: "invalid gate input: expected an object", path: "" });
  });

  test("reports, waivers and allowContinuation of the wrong type name their field", () => {
    expect(refusal({ ledger: ledger(), reports: 5 })).toEqual({
      message: "invalid gate input at reports: expected an array",
      path: "reports",
    });
    expect(refusal({ ledger: ledger(), waivers: {} })).toEqual({
      message: "invalid gate input at waivers: expected an array",
      path: "waivers",
    });
    expect(refusal({ ledger: ledger(), allowContinuation: "yes" })).toEqual({
      message: "invalid gate input at allowContinuation: expected a boolean",
      path: "allowContinuation",
    });
  });
});

describe("reportBindsPass on malformed checks", () => {
  test("a valid passing check followed by a non-object check never binds (and never throws)", () => {
    const report = createReport(
      "host:tests",
      [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
      { effectDigest: D },
    );
    expect(reportBindsPass(report, D)).toBe(true);
    expect(reportBindsPass({ ...report, checks: [...report.checks, null] } as never, D)).toBe(
      false,
    );
  });
});

describe("reportBindsPass: exact refusals (issue #11 §5, surviving mutants)", () => {
  const passing = createReport(
    "host:tests",
    [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
    { effectDigest: D },
  );

  test("a digest that is not a string never binds, even when the report carries the same value", () => {
    expect(reportBindsPass({ ...passing, effect_digest: 5 } as never, 5 as never)).toBe(false);
  });

  test("a primitive among the checks never binds", () => {
    expect(reportBindsPass({ ...passing, checks: [...passing.checks, 5] } as never, D)).toBe(false);
    expect(reportBindsPass({ ...passing, checks: [...passing.checks, "x"] } as never, D)).toBe(
      false,
    );
  });

  test("every required check must have passed: a skipped required check never binds", () => {
    const report = createReport(
      "host:tests",
      [
        { id: "t", kind: "test", description: "tests", status: "passed", required: true },
        { id: "s", kind: "test", description: "skipped", status: "skipped", required: true },
      ],
      { effectDigest: D },
    );
    expect(reportBindsPass(report, D)).toBe(false);
    const onlySkipped = createReport(
      "host:tests",
      [{ id: "s", kind: "test", description: "skipped", status: "skipped", required: true }],
      { effectDigest: D },
    );
    expect(onlySkipped.status).toBe("needs_review");
    expect(reportBindsPass(onlySkipped, D)).toBe(false);
  });

  test("a needs_review report never binds, even when its status follows from its checks", () => {
    const report = createReport(
      "host:tests",
      [{ id: "t", kind: "test", description: "tests", status: "passed", required: true }],
      { effectDigest: D, residualRisks: ["flaky"] },
    );
    expect(report.status).toBe("needs_review");
    expect(reportBindsPass(report, D)).toBe(false);
  });
});

describe("gate list labels and paths (issue #11 §5, surviving mutants)", () => {
  test("observations and waivers that are not lists name the list", () => {
    expect(() => stillOpenObservations("x" as never, [], D)).toThrow(
      new TurngateValidationError("external observations", [
        { path: "observations", message: "expected an array" },
      ]),
    );
    expect(() => stillOpenObservations([], "x" as never, D)).toThrow(
      "invalid completion waivers at waivers: expected an array",
    );
  });

  test("terminals that are not a list name the list", () => {
    expect(() => foldStepCompletions("x" as never)).toThrow(
      "invalid completion terminals: expected an array",
    );
  });
});

describe("decideCompletion: the external-observation outcome names only workspace_change ones", () => {
  test("an open observation with another required action is not listed", () => {
    const observations = [
      {
        kind: "ci",
        subject: "ci",
        digest: "obs-1",
        payload: "{}",
        required_action: "workspace_change",
      },
      { kind: "ci", subject: "review", digest: "obs-2", payload: "{}", required_action: "address" },
    ];
    const outcome = decideCompletion({ ledger: ledger(), observations } as never) as {
      reason: string;
      message: string;
      digests?: string[];
    };
    expect(outcome.reason).toBe("external_observation");
    expect(outcome.message).toBe(
      "completion gate: external observation obs-1 still requires a workspace change. A final answer does not clear it. Bind a newer observation of the same subject or a host waiver for the observation digest.",
    );
    expect(outcome.digests).toEqual(["obs-1"]);
  });
});
