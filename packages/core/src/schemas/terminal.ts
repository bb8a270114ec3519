import * as z from "zod";

/**
 * How a turn completed, A3S §1.9 (tag key `kind`):
 * - `narrative`: the turn changed nothing; a final answer is enough;
 * - `verified`: required checks passed and were bound to `effect_digest`;
 * - `waived`: the host waived `effect_digest` (not a verification pass);
 * - `distinct`: step closures did not share one digest (A3S §2.10).
 */
export const CompletionTerminalSchema = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("narrative") }),
    z.object({ kind: z.literal("verified"), effect_digest: z.string() }),
    z.object({ kind: z.literal("waived"), effect_digest: z.string() }),
    z.object({ kind: z.literal("distinct") }),
  ])
  .describe("Completion terminal (A3S §1.9).");

export type CompletionTerminal = z.output<typeof CompletionTerminalSchema>;
