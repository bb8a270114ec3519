/**
 * The result of one ended turn (A3S §1.17 `AgentResult`: `completion`,
 * `verification_summary`, `verification_summary_text`, `has_pending_verification`), and the
 * typed error a gate-refused turn gives instead (A3S's `send()` returns the gate message as
 * the run's error).
 */
import {
  type CompletionTerminal,
  formatVerificationSummary,
  type GateOutcome,
  summarizeReports,
  TurngateError,
  type TurnProof,
  type VerificationReport,
  type VerificationStatus,
  type VerificationSummary,
} from "@turngate/core";
import type { RefusedReport } from "./tool-evidence.js";

/**
 * What `Session.endTurn()` returns for an allowed turn. Counts are over the turn's own
 * reports (`verificationReports`): `pendingVerificationCount` = the summary's
 * `pending_required_check_count`, `failedVerificationCount` = `failed_check_count`,
 * `verificationReportCount` = `report_count`; `verificationStatus` and
 * `verificationSummaryText` are the summary's status and A3S §2.19 text.
 */
export interface TurnResult {
  /** 1-based number of the turn within the session. */
  turn: number;
  completion: CompletionTerminal;
  /** The ledger's effect digest when the turn ended (`""` for a turn that changed nothing). */
  effectDigest: string;
  verificationStatus: VerificationStatus;
  pendingVerificationCount: number;
  failedVerificationCount: number;
  verificationReportCount: number;
  verificationSummaryText: string;
  verificationSummary: VerificationSummary;
  /** The reports accepted during this turn (host, verifier, tool metadata, shell evidence). */
  verificationReports: VerificationReport[];
  /** Reports tool results carried that were refused during this turn. */
  refusedReports: RefusedReport[];
  /** The turn's `turn_proof.v1`. */
  proof: TurnProof;
}

/**
 * The gate did not let the turn end (`Session.endTurn()`): `code` is `turn_incomplete` for
 * an `incomplete` outcome and `turn_continue` for a `continue` outcome (ask the model once
 * more with `message`); `outcome` is the gate's outcome with its typed `reason` and data;
 * the message is the gate's (`completion gate: …`). The turn stays open.
 */
export class TurngateGateError extends TurngateError {
  readonly outcome: Exclude<GateOutcome, { kind: "allow" }>;
  constructor(outcome: Exclude<GateOutcome, { kind: "allow" }>) {
    super(outcome.kind === "continue" ? "turn_continue" : "turn_incomplete", outcome.message);
    this.name = "TurngateGateError";
    this.outcome = outcome;
  }
}

/** Builds the `TurnResult` of an allowed turn from its parts (pure). */
export function turnResult(input: {
  turn: number;
  terminal: CompletionTerminal;
  effectDigest: string;
  reports: readonly VerificationReport[];
  refused: readonly RefusedReport[];
  proof: TurnProof;
}): TurnResult {
  const summary = summarizeReports(input.reports);
  return {
    turn: input.turn,
    completion: input.terminal,
    effectDigest: input.effectDigest,
    verificationStatus: summary.status,
    pendingVerificationCount: summary.pending_required_check_count,
    failedVerificationCount: summary.failed_check_count,
    verificationReportCount: summary.report_count,
    verificationSummaryText: formatVerificationSummary(summary),
    verificationSummary: summary,
    verificationReports: input.reports.map((r) => structuredClone(r)),
    refusedReports: input.refused.map((r) => structuredClone(r)),
    proof: input.proof,
  };
}
