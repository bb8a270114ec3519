/**
 * `gate.decide` (stateless, pure): the completion gate over a ledger, reports, waivers and
 * external observations, in the rule order of a3s-completion-gate.md §2.7 with DESIGN §3's
 * typed reasons.
 */
import * as core from "@turngate/core";
import { z } from "zod";
import { defineMethod } from "../method.js";
import {
  CompletionWaiverSchema,
  ExternalObservationSchema,
  GateOutcomeSchema,
  MutationRecordSchema,
  OpenWorkspaceChildSchema,
  VerificationReportSchema,
} from "../wire/domain.js";

export const LedgerStateSchema = z
  .strictObject({
    records: z.array(MutationRecordSchema),
    open_children: z.array(OpenWorkspaceChildSchema).default([]),
    observation_incomplete: z.boolean().default(false),
  })
  .describe("a mutation ledger; its digest is recomputed from `records`, never taken as input");

export const gateMethods = {
  "gate.decide": defineMethod({
    description:
      "Completion gate decision: observations → open children → incomplete observation → empty ledger (narrative) → waiver (waived) → bound passing report (verified) → incomplete. Reports are host reports; one whose status differs from its derived status is refused (report_status_mismatch, path reports.N.status).",
    params: z.strictObject({
      ledger: LedgerStateSchema,
      reports: z.array(VerificationReportSchema).default([]),
      waivers: z.array(CompletionWaiverSchema).default([]),
      allow_continuation: z.boolean().default(false),
      observations: z.array(ExternalObservationSchema).default([]),
    }),
    result: GateOutcomeSchema,
    handler: (p) =>
      core.decideCompletion({
        ledger: p.ledger,
        reports: p.reports,
        waivers: p.waivers,
        allowContinuation: p.allow_continuation,
        observations: p.observations,
      }),
  }),
};
