import { z } from "zod";
import { MutationRecordSchema } from "./ledger.js";
import { GateOutcomeSchema } from "./outcome.js";
import { VerificationReportSchema } from "./report.js";
import { CompletionTerminalSchema } from "./terminal.js";
import { CompletionWaiverSchema } from "./waiver.js";

/** Schema id of a turn proof (ours, DESIGN §3 "Proof"). */
export const TURN_PROOF_SCHEMA = "turn_proof.v1";

/**
 * What one turn changed and why it was allowed to end (DESIGN §3 "Proof"): the ledger
 * rows and their effect digest, the reports bound to it, the waivers used, the terminal,
 * the gate outcome, tool versions and ISO-8601 timestamps (with `Z` or an offset).
 */
export const TurnProofSchema = z
  .object({
    schema: z.literal(TURN_PROOF_SCHEMA),
    effect_digest: z.string(),
    records: z.array(MutationRecordSchema),
    reports: z.array(VerificationReportSchema).describe("Reports bound to effect_digest."),
    waivers_used: z.array(CompletionWaiverSchema),
    terminal: CompletionTerminalSchema,
    outcome: GateOutcomeSchema,
    tool_versions: z.record(z.string(), z.string()),
    started_at: z.iso.datetime({ offset: true }),
    finished_at: z.iso.datetime({ offset: true }),
  })
  .describe("turn_proof.v1");

export type TurnProof = z.output<typeof TurnProofSchema>;
