import {
  type CompletionWaiver,
  type GateOutcome,
  type MutationLedger,
  TURN_PROOF_SCHEMA,
  TurngateError,
  type TurnProof,
  type VerificationReport,
} from "@turngate/core";

/** Inputs of `buildTurnProof`. */
export interface TurnProofInput {
  outcome: GateOutcome;
  ledger: MutationLedger;
  /** Every report the decision saw; only those bound to the ledger's digest are kept. */
  reports: readonly VerificationReport[];
  /** Every host waiver; only those of the ledger's digest are kept. */
  waivers: readonly CompletionWaiver[];
  toolVersions: Record<string, string>;
  startedAt: Date;
  finishedAt: Date;
}

/**
 * Assemble a `turn_proof.v1` (DESIGN §3 "Proof") from an `allow` decision: the ledger's
 * rows and effect digest, the reports whose `effect_digest` equals it, the waivers of it,
 * the terminal and the outcome, `tool_versions` (the given ones plus `node`), and the
 * start and decision times as ISO-8601 UTC strings.
 * Errors: `TurngateError` `turn_not_allowed` when the outcome is not `allow` — only an
 * allowed turn has a terminal to prove.
 */
export function buildTurnProof(input: TurnProofInput): TurnProof {
  const { outcome, ledger } = input;
  if (outcome.kind !== "allow") {
    throw new TurngateError(
      "turn_not_allowed",
      `no turn proof: the gate outcome is ${outcome.kind} (${outcome.reason}), not allow`,
    );
  }
  const digest = ledger.digest;
  return {
    schema: TURN_PROOF_SCHEMA,
    effect_digest: digest,
    records: ledger.records,
    reports: input.reports
      .filter((report) => digest !== "" && report.effect_digest === digest)
      .map((report) => structuredClone(report)),
    waivers_used: input.waivers
      .filter((waiver) => digest !== "" && waiver.effect_digest === digest)
      .map((waiver) => ({ ...waiver })),
    terminal: outcome.terminal,
    outcome,
    tool_versions: { ...input.toolVersions, node: process.version },
    started_at: input.startedAt.toISOString(),
    finished_at: input.finishedAt.toISOString(),
  };
}
