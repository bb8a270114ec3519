/**
 * A free-form JSON object param that passes through exactly as `JSON.parse` built it.
 *
 * `z.record(...)` and `z.object(...)` copy an object key by key into a fresh object, and
 * assigning `out["__proto__"] = v` sets the copy's prototype instead of adding a key, so a
 * `"__proto__"` member would silently vanish before it reaches core (and e.g.
 * `ledger.content_digest` would hash a different object than in-process core does). This
 * schema only checks the shape and returns the input object itself; its JSON Schema is the
 * same as `z.record(z.string(), z.unknown())`'s.
 */
import * as z from "zod";

function describeInput(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "array";
  return typeof input;
}

/**
 * A zod schema accepting any non-null, non-array object and returning that same object
 * (own `"__proto__"` keys kept). Anything else fails with an `invalid_type` issue
 * "Invalid input: expected record, received <type>" (as `z.record` reports it).
 */
export function jsonObject(): z.ZodType<Record<string, unknown>> {
  return z
    .unknown()
    .superRefine((input, ctx) => {
      if (typeof input === "object" && input !== null && !Array.isArray(input)) return;
      ctx.addIssue({
        code: "invalid_type",
        expected: "record",
        input,
        message: `Invalid input: expected record, received ${describeInput(input)}`,
      });
    })
    .meta({
      type: "object",
      propertyNames: { type: "string" },
      additionalProperties: {},
    }) as unknown as z.ZodType<Record<string, unknown>>;
}
