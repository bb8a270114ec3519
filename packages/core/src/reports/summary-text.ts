import { parseVerificationSummary } from "../schemas/parse.js";
import type { VerificationSummary } from "../schemas/summary.js";

/** Most subjects named in a summary text before `...` (A3S §3). */
export const SUMMARY_TEXT_SUBJECT_LIMIT = 5;

function plural(n: number, one: string, many: string): string {
  return n === 1 ? `1 ${one}` : `${n} ${many}`;
}

function subjectList(subjects: readonly string[]): string {
  const shown = subjects.slice(0, SUMMARY_TEXT_SUBJECT_LIMIT);
  if (subjects.length > SUMMARY_TEXT_SUBJECT_LIMIT) shown.push("...");
  return shown.join(", ");
}

/**
 * The one-line summary text, A3S §2.19 `format_verification_summary`, e.g.
 * `"Verification passed: 2 reports, 1 required check."`,
 * `"Verification failed: 1 failed check across subjects: a, b. 2 reports, 3 required checks."`,
 * `"Verification needs review: review required. 1 report, 0 required checks. Residual risks: 1."`,
 * `"Verification skipped: no reports."`. At most 5 subjects are named, then `...`.
 * Throws `TurngateValidationError` for a malformed summary.
 */
export function formatVerificationSummary(summary: VerificationSummary): string {
  const s = parseVerificationSummary(summary);
  const reports = plural(s.report_count, "report", "reports");
  const required = plural(s.required_check_count, "required check", "required checks");
  let text: string;
  switch (s.status) {
    case "skipped":
      text =
        s.report_count === 0
          ? "Verification skipped: no reports."
          : `Verification skipped: ${reports}.`;
      break;
    case "passed":
      text = `Verification passed: ${reports}, ${required}.`;
      break;
    case "failed": {
      const what =
        s.failed_check_count > 0
          ? plural(s.failed_check_count, "failed check", "failed checks")
          : "failed report";
      const subjects = s.failed_subjects ?? [];
      text =
        subjects.length === 0
          ? `Verification failed: ${what}. ${reports}, ${required}.`
          : `Verification failed: ${what} across subjects: ${subjectList(subjects)}. ${reports}, ${required}.`;
      break;
    }
    case "needs_review": {
      const what =
        s.pending_required_check_count > 0
          ? plural(
              s.pending_required_check_count,
              "pending required check",
              "pending required checks",
            )
          : "review required";
      const subjects = s.pending_subjects ?? [];
      text =
        subjects.length === 0
          ? `Verification needs review: ${what}. ${reports}, ${required}.`
          : `Verification needs review: ${what} across subjects: ${subjectList(subjects)}. ${reports}, ${required}.`;
      break;
    }
  }
  if (s.residual_risk_count > 0) text += ` Residual risks: ${s.residual_risk_count}.`;
  return text;
}
