import { parseCompletionWaiver } from "../schemas/parse.js";
import type { CompletionWaiver } from "../schemas/waiver.js";

/**
 * Validates a host waiver, A3S §1.11: `effect_digest` and `reason` must be strings with a
 * non-whitespace character (values are kept untrimmed: matching is exact); `schema`, when
 * present, must be `"completion_waiver.v1"`. Returns the waiver; throws
 * `TurngateValidationError` naming the field (`effect_digest`, `reason`, `schema`).
 */
export function validateWaiver(value: unknown): CompletionWaiver {
  return parseCompletionWaiver(value);
}
