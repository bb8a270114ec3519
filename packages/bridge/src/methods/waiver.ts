/**
 * `waiver.validate` (stateless, pure): checks a `completion_waiver.v1` object
 * (a3s-completion-gate.md §1.11: `effect_digest` and `reason` both non-blank; values are
 * kept as given, not trimmed). A bad waiver is a verdict, not an error.
 */
import { z } from "zod";
import { defineMethod } from "../method.js";
import { paramsError } from "../rpc/dispatch.js";
import { CompletionWaiverSchema } from "../wire/domain.js";

export const waiverMethods = {
  "waiver.validate": defineMethod({
    description:
      "Validates a completion waiver. Returns {valid: true, waiver} with defaults applied, or {valid: false, path, message} naming the offending field relative to the waiver.",
    params: z.strictObject({ waiver: z.unknown() }),
    result: z.discriminatedUnion("valid", [
      z.strictObject({ valid: z.literal(true), waiver: CompletionWaiverSchema }),
      z.strictObject({ valid: z.literal(false), path: z.string(), message: z.string() }),
    ]),
    handler: ({ waiver }) => {
      const parsed = CompletionWaiverSchema.safeParse(waiver);
      if (parsed.success) return { valid: true as const, waiver: parsed.data };
      const error = paramsError(parsed.error.issues);
      return { valid: false as const, path: error.path ?? "", message: error.message };
    },
  }),
};
