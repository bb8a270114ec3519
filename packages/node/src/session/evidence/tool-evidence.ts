/**
 * The verification evidence one tool result carries (A3S §2.9 and §2.13, with docs/design.md §3's
 * authorship change): a report in the tool's metadata, accepted only from a `host` or
 * `verifier` author, or — for a `bash` result that carries no report — the shell evidence
 * of its command against the turn's candidate commands (presets, then goal criteria).
 */
import {
  acceptReport,
  shellEvidenceReport,
  TurngateAuthorshipError,
  TurngateError,
  TurngateStatusMismatchError,
  TurngateValidationError,
  type VerificationCommand,
  type VerificationReport,
} from "@turngate/core";

/** Why a report carried in tool metadata was refused. */
export type RefusedReportReason =
  | "author_missing"
  | "author_editor"
  | "author_unknown"
  | "report_invalid"
  | "status_mismatch";

/**
 * A report a tool result carried that was not accepted (kept so a host can see it; it never
 * reaches the gate): the tool, the reason, the typed error's `code` and `message` (and the
 * field `path` for `report_invalid`), the author exactly as given (`null` when absent or not
 * a string) and the report as given.
 */
export interface RefusedReport {
  tool: string;
  reason: RefusedReportReason;
  code: string;
  message: string;
  path?: string;
  author: string | null;
  report: unknown;
}

/** What one tool result contributed: accepted reports (in order) and refused ones. */
export interface ToolEvidence {
  reports: VerificationReport[];
  refused: RefusedReport[];
}

/** The metadata keys a report may come under (A3S's spelling first, then camelCase). */
const REPORT_KEYS = ["verification_report", "verificationReport"] as const;
const AUTHOR_KEYS = ["verification_author", "verificationAuthor"] as const;

/** The error text A3S passes for a host command that timed out (§2.13). */
export const COMMAND_TIMED_OUT = "command timed out";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether tool metadata carries a report (`verification_report` or `verificationReport`). */
export function hasToolReport(metadata: unknown): boolean {
  return isObject(metadata) && firstKey(metadata, REPORT_KEYS) !== undefined;
}

function firstKey(metadata: Record<string, unknown>, keys: readonly string[]): string | undefined {
  return keys.find((key) => Object.hasOwn(metadata, key));
}

/**
 * The evidence of one tool result, in A3S's order (§2.1 step d, §2.9, §2.13):
 * 1. metadata that is not an object → nothing;
 * 2. metadata with `verification_report` (or `verificationReport`): the report goes through
 *    `acceptReport(report, author)` with the author from `verification_author` (or
 *    `verificationAuthor`; a string is trimmed and lower-cased, so A3S's `Host`/`Verifier`
 *    spellings count). Accepted → `reports`; otherwise one `refused` entry:
 *    `author_missing` (absent, null or blank author), `author_editor`, `author_unknown`
 *    (any other value — A3S treated it as host: fail-open), `report_invalid` (malformed,
 *    with the field `path`), `status_mismatch` (recorded status ≠ derived). No shell
 *    evidence is computed for such a result (A3S: a report already in the metadata wins);
 * 3. a `bash` result (tool name compared lower-cased) whose metadata has a string `command`:
 *    `shellEvidenceReport(command, exit, candidates, metadata, error)` → at most one
 *    unbound `shell:<id>` report; `exit` is `metadata.exit_code` when it is an integer
 *    (A3S), else `exitCode`; `error` is `"command timed out"` when `metadata.timed_out` or
 *    `metadata.output.timed_out` is true, else a string `metadata.execution_error`.
 * Never throws for bad metadata: every refusal is data. Throws only for a malformed
 * candidate (a host bug), as `shellEvidenceReport` does.
 */
export function toolEvidence(
  tool: string,
  exitCode: number,
  metadata: unknown,
  candidates: readonly VerificationCommand[],
): ToolEvidence {
  const evidence: ToolEvidence = { reports: [], refused: [] };
  if (!isObject(metadata)) return evidence;
  const reportKey = firstKey(metadata, REPORT_KEYS);
  if (reportKey !== undefined) {
    const authorKey = firstKey(metadata, AUTHOR_KEYS);
    const given = authorKey === undefined ? undefined : metadata[authorKey];
    const report = metadata[reportKey];
    const author = typeof given === "string" ? given.trim().toLowerCase() : given;
    try {
      evidence.reports.push(acceptReport(report, author));
    } catch (error) {
      evidence.refused.push(refusal(tool, error, given, report));
    }
    return evidence;
  }
  if (String(tool).toLowerCase() !== "bash" || typeof metadata.command !== "string") {
    return evidence;
  }
  const exit = Number.isSafeInteger(metadata.exit_code) ? (metadata.exit_code as number) : exitCode;
  const report = shellEvidenceReport(
    metadata.command,
    exit,
    candidates,
    metadata,
    executionError(metadata),
  );
  if (report !== null) evidence.reports.push(report);
  return evidence;
}

function executionError(metadata: Record<string, unknown>): string | undefined {
  const output = metadata.output;
  if (metadata.timed_out === true || (isObject(output) && output.timed_out === true)) {
    return COMMAND_TIMED_OUT;
  }
  return typeof metadata.execution_error === "string" ? metadata.execution_error : undefined;
}

function refusal(tool: string, error: unknown, given: unknown, report: unknown): RefusedReport {
  const author = typeof given === "string" ? given : null;
  const base = { tool: String(tool), author, report };
  if (error instanceof TurngateAuthorshipError) {
    const normalized = typeof given === "string" ? given.trim().toLowerCase() : given;
    const reason: RefusedReportReason =
      normalized === undefined || normalized === null || normalized === ""
        ? "author_missing"
        : normalized === "editor"
          ? "author_editor"
          : "author_unknown";
    return { ...base, reason, code: error.code, message: error.message };
  }
  if (error instanceof TurngateStatusMismatchError) {
    return { ...base, reason: "status_mismatch", code: error.code, message: error.message };
  }
  if (error instanceof TurngateValidationError) {
    const path = error.path ?? "";
    return {
      ...base,
      reason: "report_invalid",
      code: error.code,
      message: error.message,
      path: path === "" ? "verification_report" : `verification_report.${path}`,
    };
  }
  if (error instanceof TurngateError) {
    return { ...base, reason: "report_invalid", code: error.code, message: error.message };
  }
  throw error;
}
