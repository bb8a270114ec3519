import { TurngateAuthorshipError, TurngateStatusMismatchError } from "../errors.js";
import { isJsonObject } from "../ledger/json.js";
import { deriveReportStatus } from "../reports/status.js";
import { parseVerificationReport } from "../schemas/parse.js";
import type { VerificationReport } from "../schemas/report.js";

/** Authors whose reports are accepted (docs/design.md §3 "Authorship"). */
export const TRUSTED_REPORT_AUTHORS: readonly string[] = ["host", "verifier"];

/** A trusted author. */
export type ReportAuthor = "host" | "verifier";

/**
 * Accepts a verification report from `author`, A3S §1.15 / §2.9 with two turngate
 * changes (docs/design.md §3):
 * - `author` must be `"host"` or `"verifier"`. `"editor"` (the model's own tools), an
 *   absent author (`undefined`, `null`, `""`) and any other value are refused with
 *   `TurngateAuthorshipError` (A3S accepted unknown authors as host: fail-open).
 * - the report is validated (`TurngateValidationError`, path e.g. `checks.0.status`) and
 *   its recorded `status` must equal `deriveReportStatus(checks, residual_risks)`, else
 *   `TurngateStatusMismatchError` naming both statuses.
 * Returns the parsed report (defaults applied, `schema` kept as given).
 */
export function acceptReport(report: unknown, author: unknown): VerificationReport {
  if (author === undefined || author === null || author === "") {
    throw new TurngateAuthorshipError(
      author,
      "verification report refused: no verification_author (host or verifier) was given",
    );
  }
  if (author === "editor") {
    throw new TurngateAuthorshipError(
      author,
      'verification report refused: author "editor" cannot verify its own edits; only host or verifier reports count',
    );
  }
  if (typeof author !== "string" || !TRUSTED_REPORT_AUTHORS.includes(author)) {
    throw new TurngateAuthorshipError(
      author,
      `verification report refused: unknown verification_author ${describe(author)}; only host or verifier reports count`,
    );
  }
  const parsed = parseVerificationReport(report);
  const derived = deriveReportStatus(parsed.checks, parsed.residual_risks ?? []);
  if (parsed.status !== derived) {
    throw new TurngateStatusMismatchError(parsed.subject, parsed.status, derived);
  }
  return parsed;
}

/**
 * The report carried by a tool result, A3S §2.9: `null` when `metadata` has no
 * `verification_report` key; otherwise `acceptReport(metadata.verification_report,
 * metadata.verification_author)` — so an editor, absent or unknown author, a malformed
 * report or a status mismatch throws (the host decides whether to log and drop it, as A3S
 * did, or to fail the tool result).
 */
export function reportFromToolMetadata(metadata: unknown): VerificationReport | null {
  if (!isJsonObject(metadata) || !("verification_report" in metadata)) return null;
  return acceptReport(metadata.verification_report, metadata.verification_author);
}

/** A short printable form of any value (JSON when possible), never throwing. */
function describe(value: unknown): string {
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json.length > 80 ? `${json.slice(0, 77)}...` : json;
  } catch {
    // not JSON-serialisable (BigInt, cycle): fall through
  }
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}
