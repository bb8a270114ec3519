import * as z from "zod";

/** Schema id of a completion waiver (optional on input). */
export const COMPLETION_WAIVER_SCHEMA = "completion_waiver.v1";

/** A string with at least one non-whitespace character (the JSON Schema gets `pattern`). */
const nonBlank = z.string().regex(/\S/, { message: "must not be blank" });

/**
 * A host-confirmed waiver of one effect digest, A3S §1.11. Both fields must be non-blank;
 * stored values are NOT trimmed (matching is exact string equality, A3S §2.7 rule 5).
 * The model cannot mint one: waivers come only from the host API.
 */
export const CompletionWaiverSchema = z
  .object({
    schema: z.literal(COMPLETION_WAIVER_SCHEMA).optional(),
    effect_digest: nonBlank,
    reason: nonBlank,
  })
  .describe("completion_waiver.v1 (A3S §1.11).");

export type CompletionWaiver = z.output<typeof CompletionWaiverSchema>;
