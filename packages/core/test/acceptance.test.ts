/**
 * Report authorship and acceptance (A3S §1.15, §2.9; docs/design.md §3 changes: absent/unknown
 * authors are refused, a recorded status must follow from the checks) and waivers (§1.11).
 */
import { describe, expect, test } from "vitest";
import {
  acceptReport,
  createReport,
  reportFromToolMetadata,
  TurngateAuthorshipError,
  TurngateError,
  TurngateStatusMismatchError,
  TurngateValidationError,
  validateWaiver,
} from "../src/index.js";

const report = createReport("host:tests", [
  { id: "t", kind: "test", description: "tests", status: "passed", required: true },
]);

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("acceptReport", () => {
  test("host and verifier reports are accepted unchanged", () => {
    expect(acceptReport(report, "host")).toEqual(report);
    expect(acceptReport(report, "verifier")).toEqual(report);
  });

  test("editor reports are refused with report_author_rejected", () => {
    const error = caught(() => acceptReport(report, "editor"));
    expect(error).toBeInstanceOf(TurngateAuthorshipError);
    expect(error).toBeInstanceOf(TurngateError);
    expect((error as TurngateAuthorshipError).code).toBe("report_author_rejected");
    expect((error as TurngateAuthorshipError).path).toBe("verification_author");
    expect((error as Error).message).toBe(
      'verification report refused: author "editor" cannot verify its own edits; only host or verifier reports count',
    );
  });

  test("an absent author is refused (A3S treated it as host)", () => {
    for (const author of [undefined, null, ""]) {
      const error = caught(() => acceptReport(report, author));
      expect(error).toBeInstanceOf(TurngateAuthorshipError);
      expect((error as Error).message).toBe(
        "verification report refused: no verification_author (host or verifier) was given",
      );
    }
  });

  test("unknown authors are refused, naming the value", () => {
    expect(() => acceptReport(report, "Host")).toThrow(
      'verification report refused: unknown verification_author "Host"; only host or verifier reports count',
    );
    expect(() => acceptReport(report, "model")).toThrow(TurngateAuthorshipError);
    expect(() => acceptReport(report, 1)).toThrow(/unknown verification_author 1;/);
  });

  test("a recorded status that differs from the derived one is refused, naming both", () => {
    const error = caught(() => acceptReport({ ...report, status: "skipped" }, "host"));
    expect(error).toBeInstanceOf(TurngateStatusMismatchError);
    const mismatch = error as TurngateStatusMismatchError;
    expect(mismatch.code).toBe("report_status_mismatch");
    expect(mismatch.recordedStatus).toBe("skipped");
    expect(mismatch.derivedStatus).toBe("passed");
    expect(mismatch.message).toBe(
      'verification report "host:tests" records status "skipped" but its checks derive "passed"',
    );
    expect(() => acceptReport({ ...report, residual_risks: ["x"] }, "verifier")).toThrow(
      'verification report "host:tests" records status "passed" but its checks derive "needs_review"',
    );
  });

  test("a malformed report is refused with the field path", () => {
    const error = caught(() => acceptReport({ ...report, checks: [{ id: "t" }] }, "host"));
    expect(error).toBeInstanceOf(TurngateValidationError);
    expect((error as TurngateValidationError).path).toBe("checks.0.kind");
  });

  test("an A3S report is accepted and keeps its schema id; required defaults to false", () => {
    const a3s = {
      schema: "a3s.verification_report.v1",
      subject: "shell:rust:test",
      status: "passed",
      checks: [{ id: "rust:test", kind: "test", description: "Run Rust tests", status: "passed" }],
    };
    expect(acceptReport(a3s, "host")).toEqual({
      ...a3s,
      checks: [{ ...a3s.checks[0], required: false }],
    });
  });
});

describe("reportFromToolMetadata (A3S §2.9)", () => {
  test("no verification_report key → null", () => {
    expect(reportFromToolMetadata({ exit_code: 0 })).toBeNull();
    expect(reportFromToolMetadata(undefined)).toBeNull();
  });

  test("the author comes from verification_author", () => {
    expect(
      reportFromToolMetadata({ verification_report: report, verification_author: "verifier" }),
    ).toEqual(report);
    expect(() => reportFromToolMetadata({ verification_report: report })).toThrow(
      TurngateAuthorshipError,
    );
    expect(() =>
      reportFromToolMetadata({ verification_report: report, verification_author: "editor" }),
    ).toThrow(TurngateAuthorshipError);
  });
});

describe("validateWaiver (A3S §1.11)", () => {
  test("a waiver with non-blank fields is returned untrimmed", () => {
    expect(validateWaiver({ effect_digest: " d ", reason: "ok" })).toEqual({
      effect_digest: " d ",
      reason: "ok",
    });
    expect(
      validateWaiver({ schema: "completion_waiver.v1", effect_digest: "d", reason: "ok" }),
    ).toEqual({
      schema: "completion_waiver.v1",
      effect_digest: "d",
      reason: "ok",
    });
  });

  test("blank or missing fields and a wrong schema id are refused naming the field", () => {
    const cases: [unknown, string, string][] = [
      [{ effect_digest: "", reason: "ok" }, "effect_digest", "must not be blank"],
      [{ effect_digest: " \t", reason: "ok" }, "effect_digest", "must not be blank"],
      [{ effect_digest: "d", reason: "\n" }, "reason", "must not be blank"],
      [{ effect_digest: "d" }, "reason", "Invalid input: expected string, received undefined"],
      [
        { effect_digest: 5, reason: "ok" },
        "effect_digest",
        "Invalid input: expected string, received number",
      ],
      [
        { schema: "waiver.v2", effect_digest: "d", reason: "ok" },
        "schema",
        'Invalid input: expected "completion_waiver.v1"',
      ],
      ["d", "", "Invalid input: expected object, received string"],
    ];
    for (const [value, path, message] of cases) {
      const error = caught(() => validateWaiver(value));
      expect(error).toBeInstanceOf(TurngateValidationError);
      expect((error as TurngateValidationError).path).toBe(path);
      expect((error as TurngateValidationError).issues[0]?.message).toBe(message);
      expect((error as TurngateValidationError).code).toBe("invalid_input");
    }
  });
});
