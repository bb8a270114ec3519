/**
 * Verification summaries and their text (A3S §1.4, §2.19).
 */
import { describe, expect, test } from "vitest";
import {
  createReport,
  formatVerificationSummary,
  summarizeReports,
  supportsGoalAchievement,
  TurngateValidationError,
  type VerificationCheckInput,
  type VerificationReport,
  type VerificationSummary,
} from "../src/index.js";

const c = (
  id: string,
  status: VerificationCheckInput["status"],
  required = true,
  residual_risk?: string,
) => ({
  id,
  kind: "test",
  description: id,
  status,
  required,
  ...(residual_risk === undefined ? {} : { residual_risk }),
});

const passedReport = (subject: string, checks = [c("t", "passed")]) =>
  createReport(subject, checks);
const failedReport = (subject: string) => createReport(subject, [c("t", "failed")]);

const text = (reports: VerificationReport[]) =>
  formatVerificationSummary(summarizeReports(reports));

describe("summarizeReports (A3S §1.4)", () => {
  test("zero reports → skipped with zero counts", () => {
    expect(summarizeReports([])).toEqual({
      status: "skipped",
      report_count: 0,
      required_check_count: 0,
      pending_required_check_count: 0,
      failed_check_count: 0,
      residual_risk_count: 0,
    });
  });

  test("counts, sorted unique subjects, and status precedence", () => {
    const reports = [
      createReport("zeta", [c("a", "failed", false), c("b", "passed")]),
      createReport("alpha", [c("a", "skipped"), c("b", "passed", true, "flaky")]),
      createReport("zeta", [c("c", "failed")]),
      createReport("beta", [c("a", "passed")], { residualRisks: ["r1", "r2"] }),
    ];
    expect(summarizeReports(reports)).toEqual({
      status: "failed",
      report_count: 4,
      required_check_count: 5,
      pending_required_check_count: 1,
      failed_check_count: 2,
      residual_risk_count: 3,
      pending_subjects: ["alpha", "beta"],
      failed_subjects: ["zeta"],
    });
  });

  test("reports that are all skipped with no checks summarise as passed", () => {
    expect(summarizeReports([createReport("s", [])]).status).toBe("passed");
  });

  test("a check-level residual risk on a passed required check makes the summary needs_review", () => {
    const summary = summarizeReports([createReport("s", [c("t", "passed", true, "flaky")])]);
    expect(summary.status).toBe("needs_review");
    expect(summary.pending_subjects).toEqual(["s"]);
    expect(summary.residual_risk_count).toBe(1);
  });

  test("subjects sort in code-point order (U+FF5E before U+1F600)", () => {
    const summary = summarizeReports([failedReport("😀"), failedReport("～"), failedReport("a")]);
    expect(summary.failed_subjects).toEqual(["a", "～", "😀"]);
  });

  test("bad reports throw with the report index", () => {
    expect(() => summarizeReports([{ subject: "s", status: "done", checks: [] } as never])).toThrow(
      /at 0\.status/,
    );
    expect(() => summarizeReports("x" as never)).toThrow(TurngateValidationError);
  });
});

describe("formatVerificationSummary (A3S §2.19)", () => {
  test("0 reports", () => {
    expect(text([])).toBe("Verification skipped: no reports.");
  });

  test("skipped with reports", () => {
    const summary: VerificationSummary = {
      status: "skipped",
      report_count: 2,
      required_check_count: 0,
      pending_required_check_count: 0,
      failed_check_count: 0,
      residual_risk_count: 0,
    };
    expect(formatVerificationSummary(summary)).toBe("Verification skipped: 2 reports.");
    expect(formatVerificationSummary({ ...summary, report_count: 1 })).toBe(
      "Verification skipped: 1 report.",
    );
  });

  test("passed, singular and plural", () => {
    expect(text([passedReport("a")])).toBe("Verification passed: 1 report, 1 required check.");
    expect(text([passedReport("a", [c("x", "passed"), c("y", "passed")]), passedReport("b")])).toBe(
      "Verification passed: 2 reports, 3 required checks.",
    );
    expect(text([passedReport("a", [c("x", "passed", false)])])).toBe(
      "Verification passed: 1 report, 0 required checks.",
    );
  });

  test("failed with subjects", () => {
    expect(text([failedReport("b"), failedReport("a")])).toBe(
      "Verification failed: 2 failed checks across subjects: a, b. 2 reports, 2 required checks.",
    );
    expect(text([failedReport("a"), passedReport("b")])).toBe(
      "Verification failed: 1 failed check across subjects: a. 2 reports, 2 required checks.",
    );
  });

  test("failed report (no failed check) with and without subjects", () => {
    const recordedFailed = { ...passedReport("x"), status: "failed" as const };
    expect(text([recordedFailed])).toBe(
      "Verification failed: failed report across subjects: x. 1 report, 1 required check.",
    );
    expect(
      formatVerificationSummary({
        status: "failed",
        report_count: 1,
        required_check_count: 0,
        pending_required_check_count: 0,
        failed_check_count: 0,
        residual_risk_count: 0,
      }),
    ).toBe("Verification failed: failed report. 1 report, 0 required checks.");
  });

  test("more than 5 subjects are cut to 5 plus ...", () => {
    const reports = ["g", "f", "e", "d", "c", "b", "a"].map(failedReport);
    expect(text(reports)).toBe(
      "Verification failed: 7 failed checks across subjects: a, b, c, d, e, .... 7 reports, 7 required checks.",
    );
    expect(text(reports.slice(0, 5))).toBe(
      "Verification failed: 5 failed checks across subjects: c, d, e, f, g. 5 reports, 5 required checks.",
    );
  });

  test("needs review: pending required checks", () => {
    expect(
      text([createReport("s", [c("t", "needs_review")]), createReport("r", [c("u", "skipped")])]),
    ).toBe(
      "Verification needs review: 2 pending required checks across subjects: r, s. 2 reports, 2 required checks.",
    );
    expect(text([createReport("s", [c("t", "skipped")])])).toBe(
      "Verification needs review: 1 pending required check across subjects: s. 1 report, 1 required check.",
    );
  });

  test("needs review: review required, with and without subjects, and residual risks", () => {
    expect(text([createReport("s", [c("t", "passed")], { residualRisks: ["r1", "r2"] })])).toBe(
      "Verification needs review: review required across subjects: s. 1 report, 1 required check. Residual risks: 2.",
    );
    expect(
      formatVerificationSummary({
        status: "needs_review",
        report_count: 1,
        required_check_count: 0,
        pending_required_check_count: 0,
        failed_check_count: 0,
        residual_risk_count: 0,
      }),
    ).toBe("Verification needs review: review required. 1 report, 0 required checks.");
  });

  test("residual risks are appended to a failed summary too", () => {
    expect(text([createReport("s", [c("t", "failed", true, "could not run")])])).toBe(
      "Verification failed: 1 failed check across subjects: s. 1 report, 1 required check. Residual risks: 1.",
    );
  });

  test("a malformed summary throws naming the field", () => {
    expect(() => formatVerificationSummary({ status: "passed" } as never)).toThrow(
      /at report_count/,
    );
    expect(() =>
      formatVerificationSummary({ ...summarizeReports([]), failed_check_count: -1 } as never),
    ).toThrow(/at failed_check_count/);
  });
});

describe("supportsGoalAchievement (A3S §1.4, §2.15)", () => {
  test("true only for passed with reports, required checks and nothing pending, failed or risky", () => {
    expect(supportsGoalAchievement(summarizeReports([passedReport("a")]))).toBe(true);
    expect(supportsGoalAchievement(summarizeReports([]))).toBe(false);
    expect(
      supportsGoalAchievement(summarizeReports([passedReport("a", [c("x", "passed", false)])])),
    ).toBe(false);
    expect(supportsGoalAchievement(summarizeReports([createReport("s", [])]))).toBe(false);
    expect(supportsGoalAchievement(summarizeReports([failedReport("a")]))).toBe(false);
    expect(
      supportsGoalAchievement(
        summarizeReports([createReport("s", [c("t", "passed", true, "flaky")])]),
      ),
    ).toBe(false);
  });
});
