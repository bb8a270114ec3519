import { deriveReportStatus } from "../reports/status.js";
import type { VerificationReport } from "../schemas/report.js";

/**
 * Whether `report` closes the gate for effect digest `digest`, A3S §2.8, plus turngate's
 * status check (docs/design.md §3). All must hold:
 * - `report.effect_digest` is present and exactly equals `digest` (case-sensitive, no
 *   trimming) and `digest` is not `""`;
 * - at least one check is required, and every required check is `passed`;
 * - the recorded status is neither `failed` nor `needs_review`;
 * - (turngate) the recorded status equals `deriveReportStatus(checks, residual_risks)` —
 *   a report whose status does not follow from its checks never binds. (So, unlike A3S,
 *   a recorded `skipped` or a `passed` with report-level residual risks does not bind.)
 * Optional checks are otherwise ignored. Total: a malformed value gives `false`.
 */
export function reportBindsPass(report: VerificationReport, digest: string): boolean {
  if (typeof report !== "object" || report === null) return false;
  if (typeof digest !== "string" || digest === "" || report.effect_digest !== digest) return false;
  const checks = report.checks;
  if (!Array.isArray(checks)) return false;
  if (!checks.every((c) => typeof c === "object" && c !== null)) return false;
  const required = checks.filter((c) => c.required === true);
  if (required.length === 0 || !required.every((c) => c.status === "passed")) return false;
  if (report.status === "failed" || report.status === "needs_review") return false;
  const risks = Array.isArray(report.residual_risks) ? report.residual_risks : [];
  return report.status === deriveReportStatus(checks, risks);
}
