import {
  type CompletionWaiver,
  type GateOutcome,
  type MutationLedger,
  TURN_PROOF_SCHEMA,
  TurngateError,
  type TurnProof,
  type TurnProofEvidenceLog,
  type TurnProofIsolation,
  type TurnProofTrust,
  type TurnProofWorkspace,
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
  /** The workspace root and git tree ids (issue 10); omitted from the proof when absent. */
  workspace?: TurnProofWorkspace;
  /**
   * SHA-256 of the logs the session wrote, by `file:` URL; the proof lists those that a
   * kept report's checks cite in `evidence_uris` (sorted by URL).
   */
  evidenceLogs?: ReadonlyMap<string, string>;
  /** The host's sandbox claim (issue 10); omitted from the proof when absent. */
  trust?: TurnProofTrust;
  /** Where the checks ran (docs/design.md §3b); omitted when absent. */
  isolation?: TurnProofIsolation;
  /**
   * Also build a proof of a turn the gate did not allow (an agent hook's stop, issue 19):
   * its `terminal` is null. Default false.
   */
  incomplete?: boolean;
}

/**
 * Assemble a `turn_proof.v1` (docs/design.md §3 "Proof") from an `allow` decision: the ledger's
 * rows and effect digest, the reports whose `effect_digest` equals it, the waivers of it,
 * the terminal and the outcome, `tool_versions` (the given ones plus `node`), and the
 * start and decision times as ISO-8601 UTC strings; and, when given, `workspace` (root and
 * git tree ids), `evidence_logs` (the known logs the kept reports cite, with SHA-256) and
 * `trust` (issue 10).
 * Errors: `TurngateError` `turn_not_allowed` when the outcome is not `allow` — only an
 * allowed turn has a terminal to prove — unless `incomplete` is set (then `terminal: null`).
 */
export function buildTurnProof(input: TurnProofInput): TurnProof {
  const { outcome, ledger } = input;
  if (outcome.kind !== "allow" && input.incomplete !== true) {
    throw new TurngateError(
      "turn_not_allowed",
      `no turn proof: the gate outcome is ${outcome.kind} (${outcome.reason}), not allow`,
    );
  }
  const digest = ledger.digest;
  const reports = input.reports
    .filter((report) => digest !== "" && report.effect_digest === digest)
    .map((report) => structuredClone(report));
  const proof: TurnProof = {
    schema: TURN_PROOF_SCHEMA,
    effect_digest: digest,
    records: ledger.records,
    reports,
    waivers_used: input.waivers
      .filter((waiver) => digest !== "" && waiver.effect_digest === digest)
      .map((waiver) => ({ ...waiver })),
    terminal: outcome.kind === "allow" ? outcome.terminal : null,
    outcome,
    tool_versions: { ...input.toolVersions, node: process.version },
    started_at: input.startedAt.toISOString(),
    finished_at: input.finishedAt.toISOString(),
  };
  if (input.workspace) proof.workspace = { ...input.workspace };
  if (input.evidenceLogs) proof.evidence_logs = citedLogs(reports, input.evidenceLogs);
  if (input.trust) proof.trust = input.trust;
  if (input.isolation) proof.isolation = { ...input.isolation };
  return proof;
}

/** The known logs the reports' checks cite, once each, sorted by URL. */
function citedLogs(
  reports: readonly VerificationReport[],
  known: ReadonlyMap<string, string>,
): TurnProofEvidenceLog[] {
  const cited = new Set<string>();
  for (const report of reports) {
    for (const check of report.checks) {
      for (const uri of check.evidence_uris ?? []) if (known.has(uri)) cited.add(uri);
    }
  }
  return [...cited].sort().map((uri) => ({ uri, sha256: known.get(uri) as string }));
}
