import { TurngateValidationError } from "../errors.js";
import { sortedUnique } from "../ledger/order.js";
import { parseVerificationReport, parseVerificationSummary } from "../schemas/parse.js";
import type { VerificationReportInput } from "../schemas/report.js";
import type { VerificationStatus } from "../schemas/status.js";
import type { VerificationSummary } from "../schemas/summary.js";

/**
 * Summarises reports, A3S §1.4 `from_reports`. Per report: a `needs_review` status adds
 * the subject to `pending_subjects`, `failed` to `failed_subjects`; report residual risks
 * add to `residual_risk_count`. Per check: a required one counts in
 * `required_check_count` and, when `needs_review`/`skipped`, in
 * `pending_required_check_count` (subject → pending); any `failed` check counts in
 * `failed_check_count` (subject → failed); a check `residual_risk` counts one risk
 * (subject → pending). Subject lists are sorted (code-point order), de-duplicated and
 * omitted when empty. Status: `failed` if any failed check or failed report; else
 * `needs_review` if any pending required check, risk or `needs_review` report; else
 * `skipped` for zero reports; else `passed` (so reports that are all `skipped` with no
 * checks summarise as `passed`, as in A3S).
 * Throws `TurngateValidationError` (path `N.field`) for a malformed report.
 */
export function summarizeReports(reports: readonly VerificationReportInput[]): VerificationSummary {
  if (!Array.isArray(reports)) {
    throw new TurngateValidationError("verification reports", [
      { path: "", message: "expected an array" },
    ]);
  }
  const parsed = reports.map((r, i) => parseVerificationReport(r, String(i)));
  let required = 0;
  let pendingRequired = 0;
  let failedChecks = 0;
  let risks = 0;
  let anyFailedReport = false;
  let anyReviewReport = false;
  const pending: string[] = [];
  const failed: string[] = [];
  for (const report of parsed) {
    if (report.status === "needs_review") {
      anyReviewReport = true;
      pending.push(report.subject);
    } else if (report.status === "failed") {
      anyFailedReport = true;
      failed.push(report.subject);
    }
    risks += report.residual_risks?.length ?? 0;
    for (const check of report.checks) {
      if (check.required) {
        required++;
        if (check.status === "needs_review" || check.status === "skipped") {
          pendingRequired++;
          pending.push(report.subject);
        }
      }
      if (check.status === "failed") {
        failedChecks++;
        failed.push(report.subject);
      }
      if (check.residual_risk !== undefined) {
        risks++;
        pending.push(report.subject);
      }
    }
  }
  let status: VerificationStatus;
  if (failedChecks > 0 || anyFailedReport) status = "failed";
  else if (pendingRequired > 0 || risks > 0 || anyReviewReport) status = "needs_review";
  else if (parsed.length === 0) status = "skipped";
  else status = "passed";
  const summary: VerificationSummary = {
    status,
    report_count: parsed.length,
    required_check_count: required,
    pending_required_check_count: pendingRequired,
    failed_check_count: failedChecks,
    residual_risk_count: risks,
  };
  if (pending.length > 0) summary.pending_subjects = sortedUnique(pending);
  if (failed.length > 0) summary.failed_subjects = sortedUnique(failed);
  return summary;
}

/**
 * Whether a summary supports claiming the goal achieved, A3S §1.4 / §2.15: status
 * `passed`, at least one report, at least one required check, and no pending required
 * check, failed check or residual risk. Throws `TurngateValidationError` for a malformed
 * summary.
 */
export function supportsGoalAchievement(summary: VerificationSummary): boolean {
  const s = parseVerificationSummary(summary);
  return (
    s.status === "passed" &&
    s.report_count > 0 &&
    s.required_check_count > 0 &&
    s.pending_required_check_count === 0 &&
    s.failed_check_count === 0 &&
    s.residual_risk_count === 0
  );
}
