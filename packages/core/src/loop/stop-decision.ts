/**
 * Loop control for a harness's stop hook (issue 19 item 3): what turngate answers when the
 * agent tries to end its turn, given the gate's outcome and turngate's own attempt counters.
 *
 * A harness's `stop_hook_active` (Claude Code, Codex) is true on every stop after a block,
 * so it cannot tell a first retry from the hundredth; turngate counts attempts itself, per
 * turn and effect digest, and per harness block cap. Pure: no I/O, no clock.
 */

import * as z from "zod";
import { parseWith } from "../schemas/parse.js";

/** Default `max_attempts`: stops judged on the same digest before the stop is escalated. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** Default cap on stops whose checks could not run (infrastructure, timeout, cancelled, signal). */
export const DEFAULT_MAX_INFRASTRUCTURE_ATTEMPTS = 3;

/** How many times turngate lets a stop on one digest be blocked, and the harness's own cap. */
export interface LoopPolicy {
  /** Stops judged on one digest that may be blocked; the next one is escalated (≥ 1). */
  maxAttempts: number;
  /** Stops whose checks could not run that may be blocked; the next one is escalated (≥ 1). */
  maxInfrastructureAttempts: number;
  /**
   * The block (counted in the turn) at which the harness stops honouring blocks and ends
   * the turn (Claude Code and Goose: the 9th, after 8 honoured), or null when turngate knows
   * of no cap.
   */
  harnessBlockCap: number | null;
}

/** turngate's counters for one digest within one turn. */
export interface DigestAttempts {
  /** Stops judged on this digest that the gate did not allow. */
  attempts: number;
  /** Of those, the stops whose checks could not run. */
  infrastructureAttempts: number;
}

/**
 * Why the gate did not allow the stop:
 * - `assertion`: a check ran and failed (the code is wrong);
 * - `could_not_run`: a check could not run — `failure_class` `infrastructure`, `timeout`,
 *   `cancelled` or `signal` (issue 19 item 4: not a code failure, still a block);
 * - `gate`: any other refusal (no checks, an unbound report, an incomplete observation, a
 *   missing or changed baseline, an internal error: fail closed).
 */
export type StopFailureKind = "assertion" | "could_not_run" | "gate";

/** What `decideStop` reads. */
export interface StopInput {
  /** The gate allowed the turn to end, with this terminal; absent when it did not. */
  allowed?: "verified" | "waived" | "narrative" | "distinct";
  /** Why not, when `allowed` is absent. */
  failure?: StopFailureKind;
  /** This digest's counters before this stop (absent: never judged in this turn). */
  previous?: DigestAttempts;
  /** How many times turngate already blocked a stop in this turn (every digest). */
  blocksThisTurn: number;
  /**
   * The harness says it will not honour another block (Cursor: `loop_count` ≥ `loop_limit`).
   */
  harnessAtCap?: boolean;
  policy: LoopPolicy;
}

/** The answer to one stop. */
export type StopDecision =
  | {
      /** Let the turn end: the gate allowed it. */
      action: "allow";
      verdict: "verified" | "waived" | "narrative" | "distinct";
      reason: null;
      attempts: DigestAttempts;
      blocksThisTurn: number;
    }
  | {
      /**
       * Let the turn end without success: `escalated` (stuck digest: ask the host for a
       * waiver) or `capped` (the harness will not honour another block).
       */
      action: "allow";
      verdict: "incomplete";
      reason: "escalated" | "capped";
      attempts: DigestAttempts;
      blocksThisTurn: number;
    }
  | {
      /**
       * Block the stop: the harness hands the reason back to the model. `reason` is `capped`
       * when this block reaches the harness's cap (the harness ends the turn after it: the
       * turn is recorded incomplete, never verified), else null.
       */
      action: "block";
      verdict: "continue" | "incomplete";
      reason: "capped" | null;
      attempts: DigestAttempts;
      blocksThisTurn: number;
    };

const Count = z.number().int().nonnegative();
const Positive = z.number().int().min(1);

const StopInputSchema = z.object({
  allowed: z.enum(["verified", "waived", "narrative", "distinct"]).optional(),
  failure: z.enum(["assertion", "could_not_run", "gate"]).optional(),
  previous: z.object({ attempts: Count, infrastructureAttempts: Count }).optional(),
  blocksThisTurn: Count,
  harnessAtCap: z.boolean().optional(),
  policy: z.object({
    maxAttempts: Positive,
    maxInfrastructureAttempts: Positive,
    harnessBlockCap: Positive.nullable(),
  }),
});

/**
 * Decide one stop (issue 19 item 3). Rules, in order:
 * 1. the gate allowed the turn (`verified`, `waived`, `narrative`, `distinct`) → allow with
 *    that verdict; the counters are unchanged;
 * 2. otherwise count the attempt: `attempts + 1`, and `infrastructureAttempts + 1` when the
 *    checks could not run;
 * 3. `attempts > maxAttempts`, or `infrastructureAttempts > maxInfrastructureAttempts` →
 *    allow with verdict `incomplete`, reason `escalated` (no endless loop, no silent success);
 * 4. the harness will not honour a block (`harnessAtCap`) → allow, `incomplete`, `capped`;
 * 5. this block is the harness's `harnessBlockCap`-th in the turn → block, recorded
 *    `incomplete` / `capped` (the harness forces the stop after it);
 * 6. otherwise → block (`continue`).
 * Input: see `StopInput`. Output: the decision with the updated counters.
 * Errors: `TurngateValidationError` naming the field for a policy value below 1, a negative
 * or fractional counter, an unknown `allowed` / `failure`.
 */
export function decideStop(raw: StopInput): StopDecision {
  const input = parseWith(StopInputSchema, raw, "stop input");
  const { policy } = input;
  const previous = input.previous ?? { attempts: 0, infrastructureAttempts: 0 };
  if (input.allowed !== undefined) {
    return {
      action: "allow",
      verdict: input.allowed,
      reason: null,
      attempts: { ...previous },
      blocksThisTurn: input.blocksThisTurn,
    };
  }
  const attempts: DigestAttempts = {
    attempts: previous.attempts + 1,
    infrastructureAttempts:
      previous.infrastructureAttempts + (input.failure === "could_not_run" ? 1 : 0),
  };
  if (
    attempts.attempts > policy.maxAttempts ||
    attempts.infrastructureAttempts > policy.maxInfrastructureAttempts
  ) {
    return {
      action: "allow",
      verdict: "incomplete",
      reason: "escalated",
      attempts,
      blocksThisTurn: input.blocksThisTurn,
    };
  }
  if (input.harnessAtCap === true) {
    return {
      action: "allow",
      verdict: "incomplete",
      reason: "capped",
      attempts,
      blocksThisTurn: input.blocksThisTurn,
    };
  }
  const blocks = input.blocksThisTurn + 1;
  if (policy.harnessBlockCap !== null && blocks >= policy.harnessBlockCap) {
    return {
      action: "block",
      verdict: "incomplete",
      reason: "capped",
      attempts,
      blocksThisTurn: blocks,
    };
  }
  return { action: "block", verdict: "continue", reason: null, attempts, blocksThisTurn: blocks };
}
