import * as z from "zod";
import { VerificationStatusSchema } from "./status.js";

const count = z.number().int().nonnegative();

/** Summary over a list of reports, A3S §1.4 (same snake_case keys as A3S's Go SDK). */
export const VerificationSummarySchema = z
  .object({
    status: VerificationStatusSchema,
    report_count: count,
    required_check_count: count,
    pending_required_check_count: count,
    failed_check_count: count,
    residual_risk_count: count,
    pending_subjects: z.array(z.string()).optional(),
    failed_subjects: z.array(z.string()).optional(),
  })
  .describe("Verification summary (A3S §1.4).");

export type VerificationSummary = z.output<typeof VerificationSummarySchema>;
