import { z } from "zod";
import { VerificationStatusSchema } from "./status.js";

/**
 * One verification check, A3S §1.2. `required` defaults to `false` when absent on input
 * (every language, DESIGN §6); optional lists and `residual_risk` are omitted when absent.
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
  })
  .describe("One verification check (A3S §1.2).");

/** A check as stored and returned: `required` is always present. */
export type VerificationCheck = z.output<typeof VerificationCheckSchema>;
/** A check as accepted on input: `required` may be omitted (defaults to `false`). */
export type VerificationCheckInput = z.input<typeof VerificationCheckSchema>;
