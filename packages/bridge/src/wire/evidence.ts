/**
 * Wire shapes of the evidence sources of issue 13: a report a tool result carried that was
 * refused, and the per-turn result of `session.end_turn` (A3S §1.17 `AgentResult`).
 */
import type { RefusedReport, TurnResult } from "@turngate/node";
import * as z from "zod";
import {
  CompletionTerminalSchema,
  GateOutcomeSchema,
  TurnProofSchema,
  VerificationReportSchema,
  VerificationStatusSchema,
  VerificationSummarySchema,
} from "./domain.js";

/** A refused tool report (`RefusedReport`): kept for the host, never a gate input. */
export const RefusedReportSchema = z.strictObject({
  tool: z.string(),
  reason: z
    .enum([
      "author_missing",
      "author_editor",
      "author_unknown",
      "report_invalid",
      "status_mismatch",
    ])
    .describe(
      "why: no verification_author, author editor, any other author (A3S accepted it as host), a malformed report (path names the field), or a recorded status its checks do not derive",
    ),
  code: z
    .string()
    .describe(
      "the typed error's code (report_author_rejected, invalid_params, report_status_mismatch)",
    ),
  message: z.string(),
  path: z
    .string()
    .optional()
    .describe("the field at fault, e.g. verification_report.checks.0.status"),
  author: z
    .string()
    .nullable()
    .describe("verification_author as given; null when absent or not a string"),
  report: z.unknown().describe("the report exactly as the tool metadata carried it"),
});

/** The result of an allowed turn. */
export const TurnResultSchema = z.strictObject({
  turn: z.int().positive().describe("1-based number of the turn in the session"),
  completion: CompletionTerminalSchema,
  effect_digest: z.string(),
  verification_status: VerificationStatusSchema,
  pending_verification_count: z
    .int()
    .nonnegative()
    .describe("pending required checks of the turn's reports"),
  failed_verification_count: z.int().nonnegative().describe("failed checks of the turn's reports"),
  verification_report_count: z.int().nonnegative(),
  verification_summary_text: z.string(),
  verification_summary: VerificationSummarySchema,
  verification_reports: z
    .array(VerificationReportSchema)
    .describe("the reports accepted during the turn"),
  refused_reports: z
    .array(RefusedReportSchema)
    .describe("the tool reports refused during the turn"),
  proof: TurnProofSchema,
});

/** `session.end_turn`: the gate's outcome, and the result when it allowed the turn. */
export const TurnEndSchema = z.strictObject({
  ended: z.boolean().describe("true when the gate allowed the turn and the next turn has begun"),
  outcome: GateOutcomeSchema,
  result: TurnResultSchema.optional().describe("present exactly when ended is true"),
});

/** Wire form of a `RefusedReport` (code `invalid_input` is reported as `invalid_params`). */
export function wireRefused(refused: RefusedReport): z.output<typeof RefusedReportSchema> {
  return {
    tool: refused.tool,
    reason: refused.reason,
    code: refused.code === "invalid_input" ? "invalid_params" : refused.code,
    message: refused.message,
    ...(refused.path !== undefined ? { path: refused.path } : {}),
    author: refused.author,
    report: refused.report,
  };
}

/** Wire form of a `TurnResult`. */
export function wireTurnResult(result: TurnResult): z.output<typeof TurnResultSchema> {
  return {
    turn: result.turn,
    completion: result.completion,
    effect_digest: result.effectDigest,
    verification_status: result.verificationStatus,
    pending_verification_count: result.pendingVerificationCount,
    failed_verification_count: result.failedVerificationCount,
    verification_report_count: result.verificationReportCount,
    verification_summary_text: result.verificationSummaryText,
    verification_summary: result.verificationSummary,
    verification_reports: result.verificationReports,
    refused_reports: result.refusedReports.map(wireRefused),
    proof: result.proof,
  };
}
