import * as z from "zod";

/**
 * Verification status, A3S §1.1: a closed set of four snake_case strings.
 * `passed` and `skipped` are complete; `needs_review` is not; `failed` failed.
 */
export const VerificationStatusSchema = z
  .enum(["passed", "failed", "needs_review", "skipped"])
  .describe("Verification status (A3S §1.1).");

/** `"passed" | "failed" | "needs_review" | "skipped"`. */
export type VerificationStatus = z.output<typeof VerificationStatusSchema>;
