export {
  acceptReport,
  type ReportAuthor,
  reportFromToolMetadata,
  TRUSTED_REPORT_AUTHORS,
} from "./accept.js";
export { type AttestedPath, type CompletionAttestor, mergeAttestedReport } from "./attest.js";
export { reportBindsPass } from "./binds.js";
export { type DecideCompletionInput, decideCompletion } from "./decide.js";
export { foldStepCompletions } from "./fold.js";
export type { LedgerInput } from "./ledger-input.js";
export {
  externalObservationMessage,
  GATE_MESSAGE_PREFIX,
  OBSERVATION_INCOMPLETE_MESSAGE,
  openChildrenMessage,
  unverifiedMutationMessage,
} from "./messages.js";
export { observationsBlockSuccess, stillOpenObservations } from "./observations.js";
export { validateWaiver } from "./waiver.js";
