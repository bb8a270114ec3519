/**
 * Tests added for surviving mutants of the completion gate (issue #11 §5, Stryker over
 * stryker.config.json): exact validation messages and paths of decideCompletion's input,
 * and reportBindsPass on a checks list holding a non-object after a valid check.
 */
import { describe, expect, test } from "vitest";
import {
  createReport,
  decideCompletion,
  MutationLedger,
  reportBindsPass,
  TurngateValidationError,
} from "../src/index.js";

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
