import { z } from "zod";
import { VerificationStatusSchema } from "./status.js";

/**
 * One verification check, A3S §1.2. `required` defaults to `false` when absent on input
 * (every language, DESIGN §6); optional lists and `residual_risk` are omitted when absent.
 * A check whose command declared `results` carries `tests` (counts by status) and
 * `failing_tests` (ids) read from the runner's structured results (issue #16).
 */
export const VerificationCheckSchema = z
  .object({
    id: z.string(),
    kind: z.string().describe('Free-form category, e.g. "test", "lint", "type_check".'),
    description: z.string(),
    status: VerificationStatusSchema,
    required: z.boolean().default(false),
    suggested_tools: z.array(z.string()).optional(),
    evidence_uris: z.array(z.string()).optional(),
    residual_risk: z.string().optional(),
    tests: z
      .object({
        passed: z.number().int().nonnegative(),
        failed: z.number().int().nonnegative(),
        skipped: z.number().int().nonnegative(),
        errored: z.number().int().nonnegative(),
      })
      .optional()
      .describe(
        "Counts from the check's structured test results (issue #16); absent without them.",
      ),
    failing_tests: z
      .array(z.string())
      .optional()
      .describe("Ids of the failed and errored tests (at most 100), from the structured results."),
  })
  .describe("One verification check (A3S §1.2).");

/** A check as stored and returned: `required` is always present. */
export type VerificationCheck = z.output<typeof VerificationCheckSchema>;
/** A check as accepted on input: `required` may be omitted (defaults to `false`). */
export type VerificationCheckInput = z.input<typeof VerificationCheckSchema>;
