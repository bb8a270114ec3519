/**
 * `report.derive_status` (stateless, pure): the status a report's checks and residual risks
 * imply (a3s-completion-gate.md §1.3.1, first matching rule wins).
 * `report.turn_view` (stateless, pure): the `turngate.turn_view.v1` view model of a turn
 * (issue 21), `buildTurnView` of core.
 */
import { buildTurnView, deriveReportStatus } from "@turngate/core";
import { TurnViewInputSchema, TurnViewSchema } from "@turngate/core/schemas";
import * as z from "zod";
import { defineMethod } from "../method.js";
import { VerificationCheckSchema, VerificationStatusSchema } from "../wire/domain.js";

export const reportMethods = {
  "report.derive_status": defineMethod({
    description:
      "Derived report status: failed if any check failed; needs_review if a required check is needs_review or skipped, or residual_risks is non-empty; skipped if there are no checks; else passed.",
    params: z.strictObject({
      checks: z.array(VerificationCheckSchema),
      residual_risks: z.array(z.string()).default([]),
    }),
    result: z.strictObject({ status: VerificationStatusSchema }),
    handler: ({ checks, residual_risks }) => ({
      status: deriveReportStatus(checks, residual_risks),
    }),
  }),
  "report.turn_view": defineMethod({
    description:
      "The turngate.turn_view.v1 view model of a turn (issue 21): from its facts (`turn`: a turn_proof.v1 or the same fields) and what the host adds (check runs, observer changes, diffs against the baseline tree, or why there are none): verdict and digest, checks with failure class, duration, output tail and log SHA-256, files by kind with their diffs (cut to the documented limits), counts, waivers, attempts, affected targets, HUD.",
    params: TurnViewInputSchema.strict(),
    result: z.strictObject({ view: TurnViewSchema }),
    handler: (params) => ({ view: buildTurnView(params) }),
  }),
};
