/**
 * Report status derivation, report creation and command checks (A3S §1.2–1.5).
 */
import { describe, expect, test } from "vitest";
import {
  checkFromExecution,
  createReport,
  deriveReportStatus,
  TurngateValidationError,
  type VerificationCheckInput,
} from "../src/index.js";

const check = (
  status: VerificationCheckInput["status"],
  required = false,
): VerificationCheckInput => ({
  id: `${status}-${required}`,
  kind: "test",
  description: "d",
  status,
  required,
});

describe("deriveReportStatus (A3S §1.3.1)", () => {
  test("rules apply in order", () => {
    expect(deriveReportStatus([check("failed"), check("needs_review", true)])).toBe("failed");
    expect(deriveReportStatus([check("passed", true), check("skipped", true)])).toBe(
      "needs_review",
    );
    expect(deriveReportStatus([check("needs_review", true)])).toBe("needs_review");
    expect(deriveReportStatus([check("passed", true)], ["risk"])).toBe("needs_review");
    expect(deriveReportStatus([])).toBe("skipped");
    expect(deriveReportStatus([], ["risk"])).toBe("needs_review");
    expect(deriveReportStatus([check("passed", true)])).toBe("passed");
  });

  test("optional pending checks and check-level risks do not change the status", () => {
    expect(
      deriveReportStatus([check("passed", true), check("needs_review"), check("skipped")]),
    ).toBe("passed");
    expect(deriveReportStatus([{ ...check("passed", true), residual_risk: "r" }])).toBe("passed");
    expect(deriveReportStatus([{ id: "x", kind: "k", description: "d", status: "skipped" }])).toBe(
      "passed",
    );
  });

  test("bad input throws TurngateValidationError", () => {
    expect(() => deriveReportStatus("x" as never)).toThrow(TurngateValidationError);
    expect(() => deriveReportStatus([null] as never)).toThrow(/at checks\.0: expected an object/);
    expect(() => deriveReportStatus([], "r" as never)).toThrow(/at residualRisks/);
  });
});

describe("createReport (A3S §1.3)", () => {
  // Issue 36 fuzz rounds 1974754608 and 358082945: null options threw a TypeError.
  test("options that are not an object are a typed error at options", () => {
    for (const options of [null, "x", 5, []]) {
      expect(() => createReport("s", [], options as never)).toThrow(
        new TurngateValidationError("verification report", [
          { path: "options", message: "expected an object" },
        ]),
      );
    }
  });
  test("writes verification_report.v1 with derived status and normalised checks", () => {
    expect(
      createReport("host:tests", [
        { id: "t", kind: "test", description: "tests", status: "passed" },
      ]),
    ).toEqual({
      schema: "verification_report.v1",
      subject: "host:tests",
      status: "passed",
      checks: [{ id: "t", kind: "test", description: "tests", status: "passed", required: false }],
    });
  });

  test("residual risks and the effect digest are set when given", () => {
    const report = createReport("s", [check("passed", true)], {
      residualRisks: ["r1"],
      effectDigest: "d",
    });
    expect(report.status).toBe("needs_review");
    expect(report.residual_risks).toEqual(["r1"]);
    expect(report.effect_digest).toBe("d");
    expect(Object.keys(report)).toEqual([
      "schema",
      "subject",
      "status",
      "checks",
      "residual_risks",
      "effect_digest",
    ]);
    expect(createReport("s", [], { residualRisks: [] })).toEqual({
      schema: "verification_report.v1",
      subject: "s",
      status: "skipped",
      checks: [],
    });
  });

  test("bad input throws naming the field", () => {
    expect(() => createReport(1 as never, [])).toThrow(/at subject/);
    expect(() => createReport("s", [{ ...check("passed"), status: "ok" } as never])).toThrow(
      /at checks\.0\.status: Invalid option/,
    );
    expect(() => createReport("s", [], { residualRisks: [3] as never })).toThrow(
      /at residualRisks\.0/,
    );
    expect(() => createReport("s", [], { effectDigest: 3 as never })).toThrow(/at effectDigest/);
  });
});

describe("checkFromExecution (A3S §1.5)", () => {
  const command = {
    id: "node:test",
    kind: "test",
    description: "Run JavaScript tests",
    command: "pnpm test",
    required: true,
  };

  test("exit code equal to expect_exit and no error → passed, suggested_tools bash", () => {
    expect(checkFromExecution(command, 0, { exit_code: 0 })).toEqual({
      id: "node:test",
      kind: "test",
      description: "Run JavaScript tests",
      status: "passed",
      required: true,
      suggested_tools: ["bash"],
    });
  });

  test("another exit code → failed with the exit-code residual risk", () => {
    expect(checkFromExecution(command, 1)).toMatchObject({
      status: "failed",
      residual_risk: "verification command exited with code 1, expected 0: pnpm test",
    });
    const expectTwo = { ...command, expect_exit: 2 };
    expect(checkFromExecution(expectTwo, 2).status).toBe("passed");
    expect(checkFromExecution(expectTwo, 0).residual_risk).toBe(
      "verification command exited with code 0, expected 2: pnpm test",
    );
  });

  test("an execution error → failed with the could-not-run risk (exit-code message not added)", () => {
    expect(checkFromExecution(command, 0, null, "command timed out")).toMatchObject({
      status: "failed",
      residual_risk: "verification command could not run: command timed out",
    });
  });

  test("artifact_uri values anywhere in the metadata become sorted, unique evidence_uris", () => {
    const metadata: Record<string, unknown> = {
      artifact_uri: "a3s://tool-output/bash/bb",
      nested: [
        { artifact_uri: "a3s://tool-output/bash/aa" },
        { deeper: { artifact_uri: "a3s://tool-output/bash/bb" } },
      ],
      artifact_uri_other: "x",
      ignored: { artifact_uri: 5 },
    };
    metadata.self = metadata;
    expect(checkFromExecution(command, 0, metadata).evidence_uris).toEqual([
      "a3s://tool-output/bash/aa",
      "a3s://tool-output/bash/bb",
    ]);
    expect(checkFromExecution(command, 0, {}).evidence_uris).toBeUndefined();
  });

  test("required and expect_exit default to false and 0", () => {
    const bare = { id: "x", kind: "k", description: "d", command: "true" };
    expect(checkFromExecution(bare, 0)).toMatchObject({ status: "passed", required: false });
  });

  test("bad input throws TurngateValidationError", () => {
    expect(() => checkFromExecution({ ...command, expect_exit: 1.5 }, 0)).toThrow(
      /at command\.expect_exit/,
    );
    expect(() => checkFromExecution({ ...command, required: "yes" } as never, 0)).toThrow(
      /at command\.required/,
    );
    expect(() => checkFromExecution(command, Number.NaN)).toThrow(/at exitCode/);
    expect(() => checkFromExecution(command, 0, {}, 42 as never)).toThrow(/at executionError/);
  });
});
