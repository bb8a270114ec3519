import * as z from "zod";
import { VerificationCheckSchema } from "./check.js";
import { VerificationStatusSchema } from "./status.js";

/** Schema id turngate writes on every report it creates (docs/design.md §3). */
export const VERIFICATION_REPORT_SCHEMA = "verification_report.v1";
/** A3S Code's schema id (A3S §1.3); accepted on input so A3S reports can be imported. */
export const A3S_VERIFICATION_REPORT_SCHEMA = "a3s.verification_report.v1";

/**
 * A verification report, A3S §1.3 with turngate's schema id.
 *
 * - `schema`: `"verification_report.v1"` or `"a3s.verification_report.v1"`; any other
 *   string is rejected. Reading keeps the id that was given (an imported A3S report stays
 *   recognisable as such); absent → `"verification_report.v1"`. `createReport` always
 *   writes `"verification_report.v1"`.
 * - `status` is taken as recorded; `acceptReport` checks it against `deriveReportStatus`.
 * - `effect_digest`: the effect digest this report may close; unbound reports never pass
 *   the gate.
 */
export const VerificationReportSchema = z
  .object({
    schema: z
      .enum([VERIFICATION_REPORT_SCHEMA, A3S_VERIFICATION_REPORT_SCHEMA])
      .default(VERIFICATION_REPORT_SCHEMA),
    subject: z.string(),
    status: VerificationStatusSchema,
    checks: z.array(VerificationCheckSchema),
    residual_risks: z.array(z.string()).optional(),
    effect_digest: z
      .string()
      .optional()
      .describe("Effect digest this report is allowed to close (lowercase 64-hex SHA-256)."),
  })
  .describe("verification_report.v1 (A3S §1.3).");

/** A report as stored and returned (checks normalised, `schema` present). */
export type VerificationReport = z.output<typeof VerificationReportSchema>;
/** A report as accepted on input (`schema` and checks' `required` may be omitted). */
export type VerificationReportInput = z.input<typeof VerificationReportSchema>;
