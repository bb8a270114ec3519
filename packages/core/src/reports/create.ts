import { TurngateValidationError } from "../errors.js";
import type { VerificationCheckInput } from "../schemas/check.js";
import { parseVerificationCheck } from "../schemas/parse.js";
import { VERIFICATION_REPORT_SCHEMA, type VerificationReport } from "../schemas/report.js";
import { deriveReportStatus } from "./status.js";

/** Options of `createReport`. */
export interface CreateReportOptions {
  /** Report-level residual risks (any makes the status at least `needs_review`). */
  residualRisks?: readonly string[];
  /** The effect digest this report may close (binds it, A3S §2.8). */
  effectDigest?: string;
}

/**
 * Builds a `verification_report.v1` report, A3S §1.3 `new` + `with_residual_risk` +
 * `with_effect_digest`: checks are validated and normalised (`required` defaults to
 * false), the status is `deriveReportStatus(checks, residualRisks)`, `residual_risks` is
 * omitted when empty and `effect_digest` when not given. Key order: schema, subject,
 * status, checks, residual_risks, effect_digest.
 * Throws `TurngateValidationError` (path `subject`, `checks.N.field`, `options` when it is
 * not an object, `residualRisks.N`, `effectDigest`) for bad input.
 */
export function createReport(
  subject: string,
  checks: readonly VerificationCheckInput[],
  options: CreateReportOptions = {},
): VerificationReport {
  const fail = (path: string, message: string): never => {
    throw new TurngateValidationError("verification report", [{ path, message }]);
  };
  if (typeof subject !== "string") fail("subject", "expected a string");
  if (!Array.isArray(checks)) fail("checks", "expected an array");
  // A null or non-object options was read as an object (issue 36 fuzz rounds: a TypeError).
  if (typeof options !== "object" || options === null || Array.isArray(options))
    fail("options", "expected an object");
  const parsed = checks.map((c, i) => parseVerificationCheck(c, `checks.${i}`));
  const risks = options.residualRisks ?? [];
  if (!Array.isArray(risks)) fail("residualRisks", "expected an array of strings");
  risks.forEach((r, i) => {
    if (typeof r !== "string") fail(`residualRisks.${i}`, "expected a string");
  });
  if (options.effectDigest !== undefined && typeof options.effectDigest !== "string") {
    fail("effectDigest", "expected a string");
  }
  const report: VerificationReport = {
    schema: VERIFICATION_REPORT_SCHEMA,
    subject,
    status: deriveReportStatus(parsed, risks),
    checks: parsed,
  };
  if (risks.length > 0) report.residual_risks = [...risks];
  if (options.effectDigest !== undefined) report.effect_digest = options.effectDigest;
  return report;
}
