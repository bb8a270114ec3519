/**
 * `report.derive_status` (stateless, pure): the status a report's checks and residual risks
 * imply (a3s-completion-gate.md §1.3.1, first matching rule wins).
 */
import { deriveReportStatus } from "@turngate/core";
import { z } from "zod";
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
};
