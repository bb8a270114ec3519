/**
 * Domain shapes on the wire are `@turngate/core`'s schemas (defined once, there): the bridge
 * re-exports the ones its method table uses. Wire keys are snake_case.
 */
export {
  CompletionTerminalSchema,
  CompletionWaiverSchema,
  ExternalObservationSchema,
  GateOutcomeSchema,
  MutationRecordSchema,
  OpenWorkspaceChildSchema,
  TurnProofSchema,
  VerificationCheckSchema,
  VerificationCommandSchema,
  VerificationPresetSchema,
  VerificationReportSchema,
  VerificationStatusSchema,
  VerificationSummarySchema,
} from "@turngate/core/schemas";
