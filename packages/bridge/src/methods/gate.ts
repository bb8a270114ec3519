/**
 * `gate.decide` (stateless, pure): the completion gate over a ledger, reports, waivers and
 * external observations, in the rule order of a3s-completion-gate.md §2.7 with docs/design.md §3's
 * typed reasons (core's `decideCompletion`).
 */
import {
  decideCompletion,
  effectDigest,
  foldStepCompletions,
  MutationLedger,
} from "@turngate/core";
import * as z from "zod";
import { BridgeError } from "../errors.js";
import { defineMethod } from "../method.js";
import { toBridgeError } from "../rpc/dispatch.js";
import {
  CompletionTerminalSchema,
  CompletionWaiverSchema,
  ExternalObservationSchema,
  GateOutcomeSchema,
  MutationRecordSchema,
  OpenWorkspaceChildSchema,
  VerificationReportSchema,
} from "../wire/domain.js";
import { acceptHostReports } from "./accept-reports.js";

/** A ledger on the wire: its digest is recomputed from `records`, never taken as input. */
export const LedgerStateSchema = z
  .strictObject({
    records: z.array(MutationRecordSchema),
    open_children: z.array(OpenWorkspaceChildSchema).default([]),
    observation_incomplete: z.boolean().default(false),
  })
  .describe(
    "a mutation ledger: rows as recorded (trimmed, never a harness path such as .git/…), background children not yet observed, and whether the latest workspace re-read was incomplete",
  );

type LedgerState = z.output<typeof LedgerStateSchema>;

/**
 * Loads the wire ledger into a `MutationLedger` (rows must obey the push rule).
 * @throws BridgeError `invalid_params` with a path under "ledger." (e.g. "ledger.records.0.path").
 */
function loadLedger(state: LedgerState): MutationLedger {
  try {
    return MutationLedger.fromJSON({
      records: state.records,
      digest: effectDigest(state.records),
      open_children: state.open_children,
      observation_incomplete: state.observation_incomplete,
    });
  } catch (error) {
    const wire = toBridgeError(error);
    throw new BridgeError(
      wire.code,
      wire.message,
      ["ledger", wire.path ?? ""].filter(Boolean).join("."),
    );
  }
}

export const gateMethods = {
  "gate.decide": defineMethod({
    description:
      "Completion gate decision, first rule that applies: open external observation requiring a workspace change (continue if allow_continuation, else incomplete) → open children → incomplete observation → empty ledger (allow narrative) → waiver of the digest (allow waived) → bound passing report (allow verified) → incomplete unverified_mutation. Reports are host reports; one whose status differs from its derived status is refused (report_status_mismatch, path reports.N.status).",
    params: z.strictObject({
      ledger: LedgerStateSchema,
      reports: z.array(VerificationReportSchema).default([]),
      waivers: z.array(CompletionWaiverSchema).default([]),
      allow_continuation: z.boolean().default(false),
      observations: z.array(ExternalObservationSchema).default([]),
    }),
    result: GateOutcomeSchema,
    handler: (p) => {
      acceptHostReports(p.reports, "reports");
      return decideCompletion({
        ledger: loadLedger(p.ledger),
        reports: p.reports,
        waivers: p.waivers,
        allowContinuation: p.allow_continuation,
        observations: p.observations,
      });
    },
  }),
  "gate.fold": defineMethod({
    description:
      "Folds the completion terminals of several plan steps into one (a3s-completion-gate.md §2.10): narrative entries and exact duplicates are dropped; none left → narrative; one left → it; several sharing one effect digest → verified if any is verified, else the first (waived); otherwise distinct (different digests are never combined).",
    params: z.strictObject({ terminals: z.array(CompletionTerminalSchema) }),
    result: CompletionTerminalSchema,
    handler: (p) => foldStepCompletions(p.terminals),
  }),
};
