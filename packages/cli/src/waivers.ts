import type { CompletionWaiver } from "@turngate/core";
import { TurngateValidationError } from "@turngate/core";

/** An effect digest as turngate writes it: 64 lowercase hex characters (SHA-256). */
const EFFECT_DIGEST = /^[0-9a-f]{64}$/;

/**
 * Parse `--waive DIGEST:REASON` values into `completion_waiver.v1` records. The digest is
 * everything before the first `:`, the reason everything after it; both must be
 * non-blank (A3S §1.11), and the digest must be an effect digest (64 lowercase hex
 * characters) — anything else could never match and would be ignored silently. Values are
 * kept as given (no trimming: matching is exact).
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
    if (!EFFECT_DIGEST.test(digest)) {
      throw new TurngateValidationError("--waive value", [
        {
          path: `--waive[${index}]`,
          message: `digest ${JSON.stringify(digest)} is not an effect digest (64 lowercase hex characters, as printed by turngate)`,
        },
      ]);
    }
    return { effect_digest: digest, reason };
  });
}

/**
 * The digests of `waivers` that do not match `effectDigest`, in the order given, each
 * once. A host uses it to say why a turn stayed incomplete although waivers were passed.
 */
export function unmatchedWaiverDigests(
  waivers: readonly CompletionWaiver[],
  effectDigest: string,
): string[] {
  const digests = waivers.map((w) => w.effect_digest).filter((d) => d !== effectDigest);
  return [...new Set(digests)];
}
