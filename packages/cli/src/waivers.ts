import type { CompletionWaiver } from "@turngate/core";
import { TurngateValidationError } from "@turngate/core";

/**
 * Parse `--waive DIGEST:REASON` values into `completion_waiver.v1` records. The digest is
 * everything before the first `:`, the reason everything after it; both must be
 * non-blank (A3S §1.11). Values are kept as given (no trimming: matching is exact).
 * Errors: `TurngateValidationError` naming `--waive[N]`.
 */
export function parseWaiverFlags(values: readonly string[]): CompletionWaiver[] {
  return values.map((value, index) => {
    const colon = value.indexOf(":");
    const digest = colon < 0 ? value : value.slice(0, colon);
    const reason = colon < 0 ? "" : value.slice(colon + 1);
    if (digest.trim() === "" || reason.trim() === "") {
      throw new TurngateValidationError("--waive value", [
        { path: `--waive[${index}]`, message: "expected DIGEST:REASON with both parts non-blank" },
      ]);
    }
    return { effect_digest: digest, reason };
  });
}
