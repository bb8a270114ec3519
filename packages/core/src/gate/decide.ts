import { TurngateValidationError } from "../errors.js";
import type { ExternalObservationInput } from "../schemas/observation.js";
import type { GateOutcome } from "../schemas/outcome.js";
import { parseCompletionWaiver, parseList, parseVerificationReport } from "../schemas/parse.js";
import type { VerificationReportInput } from "../schemas/report.js";
import type { CompletionWaiver } from "../schemas/waiver.js";
import { reportBindsPass } from "./binds.js";
import { type LedgerInput, toLedger } from "./ledger-input.js";
import {
  externalObservationMessage,
  OBSERVATION_INCOMPLETE_MESSAGE,
  openChildrenMessage,
  unverifiedMutationMessage,
} from "./messages.js";
import { observationsBlockSuccess, stillOpenObservations } from "./observations.js";

/** Input of `decideCompletion`. */
export interface DecideCompletionInput {
  /** The turn's ledger, live or as a snapshot. */
  ledger: LedgerInput;
  /** Accepted reports (host API reports, accepted tool reports, attested reports). */
  reports?: readonly VerificationReportInput[];
  /** Host waivers. */
  waivers?: readonly CompletionWaiver[];
  /** Whether the one gate continuation may still be spent (A3S §2.6 step 11). Default false. */
  allowContinuation?: boolean;
  /** External observations in arrival order. */
  observations?: readonly ExternalObservationInput[];
}

/**
 * The completion gate, A3S §2.7 `decide_with_observations`, rules in this order (D = the
 * ledger's effect digest, `""` when empty):
 * 1. an open external observation (§2.12) requires a workspace change → E1, reason
 *    `external_observation`, data `digests`/`subjects` of the blocking observations (input
 *    order) — `continue` when `allowContinuation`, else `incomplete` (the only branch
 *    that can continue);
 * 2. open background children → `incomplete` E2, reason `open_children`, `task_ids`;
 * 3. incomplete workspace observation → `incomplete` E3, reason `observation_incomplete`
 *    (even for an empty ledger, and even when a waiver or report matches);
 * 4. empty ledger → `allow` `narrative`;
 * 5. a waiver with `effect_digest === D` → `allow` `waived` (waivers before reports);
 * 6. a report that `reportBindsPass(report, D)` → `allow` `verified`;
 * 7. otherwise `incomplete` E4, reason `unverified_mutation` (never `continue`).
 * Every non-allow outcome carries `effect_digest` (D); E3 and E4 also `paths` (distinct,
 * ledger order). Messages are A3S's verbatim (`completion gate: …`).
 * Throws `TurngateValidationError` for malformed input (path `reports.N.field`,
 * `waivers.N.field`, `observations.N.field`, `allowContinuation`, or the snapshot's).
 */
export function decideCompletion(input: DecideCompletionInput): GateOutcome {
  if (typeof input !== "object" || input === null) {
    throw new TurngateValidationError("gate input", [{ path: "", message: "expected an object" }]);
  }
  const ledger = toLedger(input.ledger);
  const reports = parseList(input.reports ?? [], "gate input", "reports", parseVerificationReport);
  const waivers = parseList(input.waivers ?? [], "gate input", "waivers", parseCompletionWaiver);
  const allowContinuation = input.allowContinuation ?? false;
  if (typeof allowContinuation !== "boolean") {
    throw new TurngateValidationError("gate input", [
      { path: "allowContinuation", message: "expected a boolean" },
    ]);
  }
  const digest = ledger.digest;

  const open = stillOpenObservations(input.observations ?? [], waivers, digest);
  if (observationsBlockSuccess(open)) {
    const blocking = open.filter((o) => o.required_action === "workspace_change");
    const digests = blocking.map((o) => o.digest);
    return {
      kind: allowContinuation ? "continue" : "incomplete",
      reason: "external_observation",
      message: externalObservationMessage(digests),
      effect_digest: digest,
      digests,
      subjects: blocking.map((o) => o.subject),
    };
  }
  if (ledger.hasOpenChildren) {
    const taskIds = ledger.openChildren.map((c) => c.task_id);
    return {
      kind: "incomplete",
      reason: "open_children",
      message: openChildrenMessage(taskIds),
      effect_digest: digest,
      task_ids: taskIds,
    };
  }
  if (ledger.observationIncomplete) {
    return {
      kind: "incomplete",
      reason: "observation_incomplete",
      message: OBSERVATION_INCOMPLETE_MESSAGE,
      effect_digest: digest,
      paths: ledger.distinctPaths,
    };
  }
  if (ledger.isEmpty) return { kind: "allow", terminal: { kind: "narrative" } };
  if (waivers.some((w) => w.effect_digest === digest)) {
    return { kind: "allow", terminal: { kind: "waived", effect_digest: digest } };
  }
  if (reports.some((r) => reportBindsPass(r, digest))) {
    return { kind: "allow", terminal: { kind: "verified", effect_digest: digest } };
  }
  return {
    kind: "incomplete",
    reason: "unverified_mutation",
    message: unverifiedMutationMessage(digest),
    effect_digest: digest,
    paths: ledger.distinctPaths,
  };
}
