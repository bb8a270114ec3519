import * as z from "zod";
import { CompletionTerminalSchema } from "./terminal.js";

/**
 * Why the gate did not allow the turn to end (docs/design.md §3 change: a typed reason next to
 * A3S's message). Core's gate produces the first four; the loop control (`decideStop`,
 * issue 19) adds `escalated` (the same digest failed `max_attempts` times: the stop is
 * allowed as incomplete and a host waiver is asked for) and `capped` (the harness forced
 * the stop at its own block cap, or a host stopped the turn at a budget limit). A host that
 * requires clean-room checks (docs/design.md §3b) adds `isolation_unavailable`: the check
 * sandbox cannot start, so no check ran (fail closed). `turngate run` (issue 32 item 3,
 * docs/cli.md "Gapless turns") adds `unverified_carry_over`: the turn changed nothing, but the
 * turn before it ended unverified, so its changes are still in the tree unchecked.
 */
export const GateReasonSchema = z.enum([
  "external_observation",
  "open_children",
  "observation_incomplete",
  "unverified_mutation",
  "capped",
  "escalated",
  "isolation_unavailable",
  "unverified_carry_over",
]);

export type GateReason = z.output<typeof GateReasonSchema>;

/** The data behind a `continue`/`incomplete` outcome; which keys appear depends on `reason`. */
const blockedFields = {
  reason: GateReasonSchema,
  message: z.string().describe('Starts with "completion gate:" (A3S §3, E1–E4).'),
  effect_digest: z.string().optional().describe('The ledger\'s effect digest ("" when empty).'),
  paths: z.array(z.string()).optional().describe("Distinct ledger paths, canonical order."),
  digests: z.array(z.string()).optional().describe("Digests of blocking observations."),
  subjects: z.array(z.string()).optional().describe("Subjects of blocking observations."),
  task_ids: z.array(z.string()).optional().describe("Open background workspace tasks."),
};

/**
 * The gate's decision, A3S §1.10 / §2.7: `allow` with a terminal; `continue` (ask the model
 * once more — only for external observations); `incomplete` (do not report success).
 */
export const GateOutcomeSchema = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("allow"), terminal: CompletionTerminalSchema }),
    z.object({ kind: z.literal("continue"), ...blockedFields }),
    z.object({ kind: z.literal("incomplete"), ...blockedFields }),
  ])
  .describe("Completion gate outcome (A3S §2.7).");

export type GateOutcome = z.output<typeof GateOutcomeSchema>;
