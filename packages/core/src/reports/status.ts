import { TurngateValidationError } from "../errors.js";
import type { VerificationCheckInput } from "../schemas/check.js";
import type { VerificationStatus } from "../schemas/status.js";

/**
 * A report's status derived from its checks and report-level residual risks, A3S §1.3.1;
 * the first matching rule wins:
 * 1. any check `failed` (required or not) → `failed`;
 * 2. any required check `needs_review` or `skipped` → `needs_review`;
 * 3. any report-level residual risk → `needs_review`;
 * 4. no checks → `skipped`;
 * 5. otherwise → `passed`.
 * A check's own `residual_risk` and optional pending checks do not change the status.
 * A check with no `required` counts as optional. Throws `TurngateValidationError` when
 * `checks` is not an array of objects or `residualRisks` is not an array.
 */
export function deriveReportStatus(
  checks: readonly VerificationCheckInput[],
  residualRisks: readonly string[] = [],
): VerificationStatus {
  const fail = (path: string, message: string): never => {
    throw new TurngateValidationError("report status input", [{ path, message }]);
  };
  if (!Array.isArray(checks)) fail("checks", "expected an array");
  checks.forEach((c, i) => {
    if (typeof c !== "object" || c === null) fail(`checks.${i}`, "expected an object");
  });
  if (!Array.isArray(residualRisks)) fail("residualRisks", "expected an array");
  if (checks.some((c) => c.status === "failed")) return "failed";
  if (
    checks.some(
      (c) => c.required === true && (c.status === "needs_review" || c.status === "skipped"),
    )
  ) {
    return "needs_review";
  }
  if (residualRisks.length > 0) return "needs_review";
  if (checks.length === 0) return "skipped";
  return "passed";
}
