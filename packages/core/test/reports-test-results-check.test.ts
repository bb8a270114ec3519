import { describe, expect, test } from "vitest";
import {
  checkWithTestResults,
  FAILING_TESTS_MAX,
  parseTestResults,
  type VerificationCheck,
} from "../src/index.js";

const passed: VerificationCheck = {
  id: "u",
  kind: "test",
  description: "d",
  status: "passed",
  required: true,
};
const failed: VerificationCheck = {
  ...passed,
  status: "failed",
  residual_risk: "verification command exited with code 1, expected 0: t",
};
const tap = (text: string) => ({ results: parseTestResults("tap", text) });

describe("checkWithTestResults (issue #16 §2): rules in order", () => {
  test("1. a command that could not run stays as derived, with the counts when read", () => {
    const c = {
      ...failed,
      residual_risk: "verification command could not run: command timed out after 1000ms",
    };
    const r = checkWithTestResults({
      check: c,
      exitCode: null,
      expectExit: 0,
      executionError: "command timed out after 1000ms",
      evidence: tap("not ok 1 - a\n1..1\n"),
    });
    expect(r).toEqual({
      ...c,
      tests: { passed: 0, failed: 1, skipped: 0, errored: 0 },
      failing_tests: ["a"],
    });
  });

  test("2. no structured result: needs_review on a matching exit, failed (noted) otherwise", () => {
    expect(
      checkWithTestResults({
        check: passed,
        exitCode: 0,
        expectExit: 0,
        evidence: { problem: "results file was not written: /x" },
      }),
    ).toEqual({
      ...passed,
      status: "needs_review",
      residual_risk: "no structured result: results file was not written: /x",
    });
    expect(
      checkWithTestResults({
        check: failed,
        exitCode: 1,
        expectExit: 0,
        evidence: { problem: "p" },
      }).residual_risk,
    ).toBe("verification command exited with code 1, expected 0: t; no structured result: p");
  });

  test("3. failures or suite errors fail the check, also on exit 0", () => {
    const r = checkWithTestResults({
      check: passed,
      exitCode: 0,
      expectExit: 0,
      evidence: tap("not ok 1 - a\nok 2 - b\nBail out! db\n1..2\n"),
    });
    expect([r.status, r.residual_risk]).toEqual([
      "failed",
      "exit 0 but 1 test failed, 1 suite error: Bail out! db",
    ]);
    const f = checkWithTestResults({
      check: failed,
      exitCode: 1,
      expectExit: 0,
      evidence: tap("not ok 1 - a\n1..1\n"),
    });
    expect([f.status, f.residual_risk]).toEqual(["failed", failed.residual_risk]);
  });

  test("4. no executed test is never passed", () => {
    expect(
      checkWithTestResults({
        check: passed,
        exitCode: 0,
        expectExit: 0,
        evidence: tap("1..0 # SKIP no tests\n"),
      }),
    ).toMatchObject({
      status: "skipped",
      residual_risk: "no tests ran",
    });
    expect(
      checkWithTestResults({
        check: failed,
        exitCode: 1,
        expectExit: 0,
        evidence: tap("ok 1 - a # SKIP later\n1..1\n"),
      }),
    ).toMatchObject({
      status: "failed",
      residual_risk: `${failed.residual_risk}; no tests ran (1 test skipped)`,
    });
  });

  test("5. a failing exit while every parsed test passed → needs_review; 6. else passed", () => {
    expect(
      checkWithTestResults({
        check: failed,
        exitCode: 1,
        expectExit: 0,
        evidence: tap("ok 1 - a\nok 2 - b # SKIP x\n1..2\n"),
      }),
    ).toMatchObject({
      status: "needs_review",
      residual_risk: "exit 1 but every parsed test passed (2 tests)",
    });
    expect(
      checkWithTestResults({
        check: passed,
        exitCode: 0,
        expectExit: 0,
        evidence: tap("ok 1 - a\n1..1\n"),
      }),
    ).toEqual({
      ...passed,
      tests: { passed: 1, failed: 0, skipped: 0, errored: 0 },
    });
  });

  test(`failing_tests lists at most ${FAILING_TESTS_MAX} ids`, () => {
    const lines = Array.from({ length: 150 }, (_, i) => `not ok ${i + 1} - t${i}`).join("\n");
    const r = checkWithTestResults({
      check: failed,
      exitCode: 1,
      expectExit: 0,
      evidence: tap(`${lines}\n1..150\n`),
    });
    expect(r.failing_tests?.length).toBe(100);
    expect(r.failing_tests?.[99]).toBe("t99");
    expect(r.tests?.failed).toBe(150);
  });
});
