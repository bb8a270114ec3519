import * as z from "zod";
import { VerificationStatusSchema } from "./status.js";

/**
 * Why a failed check did not pass (issue 19 item 4; the CLI's `--json` and hook answers use
 * the same words): `assertion` (it ran and exited with another code), `timeout`,
 * `cancelled`, `signal`, `infrastructure` (it could not run: not started, exit 126/127).
 */
export const CheckFailureClassSchema = z.enum([
  "assertion",
  "timeout",
  "cancelled",
  "signal",
  "infrastructure",
]);

/**
 * One verification check, A3S §1.2. `required` defaults to `false` when absent on input
 * (every language, docs/design.md §6); optional lists and `residual_risk` are omitted when absent.
 * A check whose command declared `results` carries `tests` (counts by status) and
 * `failing_tests` (ids) read from the runner's structured results (issue #16). A failed
 * check that turngate's runner ran carries `failure_class` (issue 19); optional, so reports
 * from other hosts stay valid.
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
    failure_class: CheckFailureClassSchema.optional().describe(
      "Why a failed check did not pass, when the runner knows it (issue 19).",
    ),
  })
  .describe("One verification check (A3S §1.2).");

/** A check as stored and returned: `required` is always present. */
export type VerificationCheck = z.output<typeof VerificationCheckSchema>;
/** A check as accepted on input: `required` may be omitted (defaults to `false`). */
export type VerificationCheckInput = z.input<typeof VerificationCheckSchema>;
/** Why a failed check did not pass (`failure_class`). */
export type CheckFailureClass = z.output<typeof CheckFailureClassSchema>;
