// @turngate/core — pure TypeScript: schemas, ledger, digest, gate, reports, facts.
// No `node:` imports: this package runs unchanged in Node, a browser and Pyodide's JS host.
export const CORE_VERSION = "0.1.0";

// Result-cache keys shared across machines (issue 20).
export * from "./cache/index.js";
// Errors (stable `code`s; reused by node, bridge and cli).
export {
  TurngateAuthorshipError,
  TurngateError,
  TurngateStatusMismatchError,
  TurngateValidationError,
  type ValidationIssue,
} from "./errors.js";
// Evidence sources: ACCEPTANCE criteria, goal gating, existence checks, verifier policy (issue 13).
export * from "./evidence/index.js";
// Verification facts (Harn std/verification, docs/design.md §4).
export * from "./facts/index.js";
// The completion gate (A3S §2.7–2.12, docs/design.md §3).
export * from "./gate/index.js";
// Mutation ledger and effect digest (A3S §1.8, §2.1–2.4).
export * from "./ledger/index.js";
// Loop control for harness stop hooks (issue 19): attempts, escalation, failure-cache keys.
export * from "./loop/index.js";
// Reports, summaries and shell evidence (A3S §1.2–1.5, §2.13, §2.19).
export * from "./reports/index.js";
// Plain record types (the zod schemas themselves are on the "./schemas" subpath).
export type {
  CheckFailureClass,
  VerificationCheck,
  VerificationCheckInput,
} from "./schemas/check.js";
export type {
  VerificationCommand,
  VerificationCommandInput,
  VerificationPreset,
  VerificationPresetInput,
} from "./schemas/command.js";
export { checkCwdProblem, normalizeCheckCwd } from "./schemas/command.js";
export type { LedgerSnapshot, MutationRecord, OpenWorkspaceChild } from "./schemas/ledger.js";
export {
  A3S_EXTERNAL_OBSERVATION_SCHEMA,
  EXTERNAL_OBSERVATION_PAYLOAD_MAX_BYTES,
  EXTERNAL_OBSERVATION_SCHEMA,
  type ExternalObservation,
  type ExternalObservationInput,
} from "./schemas/observation.js";
export type { GateOutcome, GateReason } from "./schemas/outcome.js";
export {
  parseCompletionTerminal,
  parseCompletionWaiver,
  parseDsseEnvelope,
  parseExternalObservation,
  parseGateOutcome,
  parseLedgerSnapshot,
  parseMutationRecord,
  parseOpenWorkspaceChild,
  parseTurnProof,
  parseTurnProofStatement,
  parseVerificationCheck,
  parseVerificationCommand,
  parseVerificationPreset,
  parseVerificationReport,
  parseVerificationSummary,
} from "./schemas/parse.js";
export {
  TURN_PROOF_SCHEMA,
  type TurnProof,
  type TurnProofEvidenceLog,
  type TurnProofIsolation,
  type TurnProofLoop,
  type TurnProofTrust,
  type TurnProofWorkspace,
} from "./schemas/proof.js";
export {
  A3S_VERIFICATION_REPORT_SCHEMA,
  VERIFICATION_REPORT_SCHEMA,
  type VerificationReport,
  type VerificationReportInput,
} from "./schemas/report.js";
export {
  type DsseEnvelope,
  type DsseSignature,
  IN_TOTO_PAYLOAD_TYPE,
  IN_TOTO_STATEMENT_TYPE,
  TURN_PROOF_PAYLOAD_TYPE,
  TURN_PROOF_PREDICATE_TYPE,
  TURN_PROOF_SUBJECT_NAME,
  type TurnProofStatement,
} from "./schemas/signed-proof.js";
export type { VerificationStatus } from "./schemas/status.js";
export type { VerificationSummary } from "./schemas/summary.js";
export type { CompletionTerminal } from "./schemas/terminal.js";
export {
  TURN_VIEW_SCHEMA,
  type TurnView,
  type TurnViewCheck,
  type TurnViewDiff,
  type TurnViewFile,
  type TurnViewFileDiff,
  type TurnViewInput,
  type TurnViewRun,
} from "./schemas/turn-view.js";
export { COMPLETION_WAIVER_SCHEMA, type CompletionWaiver } from "./schemas/waiver.js";
// The view model of a turn (issue 21): `turngate show`, its HTML page.
export * from "./view/index.js";
