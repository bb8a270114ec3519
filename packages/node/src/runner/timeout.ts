import { TurngateValidationError } from "@turngate/core";

/** Default verification command timeout: 120,000 ms (A3S bash default, §2.13). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
/** Smallest timeout honoured: 1,000 ms; smaller requests are raised to it (A3S §2.13). */
export const MIN_COMMAND_TIMEOUT_MS = 1_000;

/**
 * The timeout that applies to a command, in ms: `requested` when it is a finite number of
 * at least 1,000; 1,000 when it is smaller; 120,000 when it is absent.
 * Errors: throws `TurngateValidationError` (path `timeout_ms`) for a negative, non-finite or
 * non-integer request.
 */
export function clampTimeoutMs(requested: number | undefined): number {
  if (requested === undefined) return DEFAULT_COMMAND_TIMEOUT_MS;
  if (!Number.isSafeInteger(requested) || requested < 0) {
    throw new TurngateValidationError("command timeout", [
      {
        path: "timeout_ms",
        message: `must be a non-negative integer of milliseconds, got ${requested}`,
      },
    ]);
  }
  return Math.max(requested, MIN_COMMAND_TIMEOUT_MS);
}
