/**
 * `verification.*` methods (stateless, pure): the summary over reports
 * (a3s-completion-gate.md §1.4) and its one-line text (§2.19).
 */
import { formatVerificationSummary, summarizeReports } from "@turngate/core";
import * as z from "zod";
import { defineMethod } from "../method.js";
import { VerificationReportSchema, VerificationSummarySchema } from "../wire/domain.js";

export const verificationMethods = {
  "verification.summary": defineMethod({
    description:
      "Verification summary of reports: counts of reports, required, pending-required and failed checks, residual risks, and sorted de-duplicated pending/failed subjects.",
    params: z.strictObject({ reports: z.array(VerificationReportSchema) }),
    result: VerificationSummarySchema,
    handler: ({ reports }) => summarizeReports(reports),
  }),
  "verification.summary_text": defineMethod({
    description:
      'One-line summary text, e.g. "Verification passed: 1 report, 2 required checks." (a3s-completion-gate.md §2.19).',
    params: z.strictObject({ summary: VerificationSummarySchema }),
    result: z.strictObject({ text: z.string() }),
    handler: ({ summary }) => ({ text: formatVerificationSummary(summary) }),
  }),
};
