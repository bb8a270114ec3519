/**
 * `waiver.validate` (stateless, pure): checks a `completion_waiver.v1` object with core's
 * `validateWaiver` (a3s-completion-gate.md §1.11: `effect_digest` and `reason` both
 * non-blank; values kept as given, not trimmed). A bad waiver is a verdict, not an error.
 */
import { TurngateValidationError, validateWaiver } from "@turngate/core";
import * as z from "zod";
import { defineMethod } from "../method.js";
import { CompletionWaiverSchema } from "../wire/domain.js";

export const waiverMethods = {
  "waiver.validate": defineMethod({
    description:
      'Validates a completion waiver. Returns {valid: true, waiver} (unknown keys dropped), or {valid: false, path, message} naming the first offending field relative to the waiver ("" for the waiver itself).',
    params: z.strictObject({ waiver: z.unknown() }),
    result: z.discriminatedUnion("valid", [
      z.strictObject({ valid: z.literal(true), waiver: CompletionWaiverSchema }),
      z.strictObject({ valid: z.literal(false), path: z.string(), message: z.string() }),
    ]),
    handler: ({ waiver }) => {
      try {
        return { valid: true as const, waiver: validateWaiver(waiver) };
      } catch (error) {
        if (!(error instanceof TurngateValidationError)) throw error;
        const issue = error.issues[0] ?? { path: error.path, message: error.message };
        return { valid: false as const, path: issue.path, message: issue.message };
      }
    },
  }),
};
