/**
 * The gate's user-visible messages, A3S §3 E1–E4, verbatim. Every message starts with
 * `completion gate:`; hosts parse E4's digest as the 64 hex characters after
 * `workspace mutation `.
 */
export const GATE_MESSAGE_PREFIX = "completion gate:";

/** E1: open external observations that still require a workspace change (digests joined by ","). */
export function externalObservationMessage(digests: readonly string[]): string {
  return `completion gate: external observation ${digests.join(",")} still requires a workspace change. A final answer does not clear it. Bind a newer observation of the same subject or a host waiver for the observation digest.`;
}

/** E2: background workspace tasks not yet observed (task ids joined by ","). */
export function openChildrenMessage(taskIds: readonly string[]): string {
  return `completion gate: background workspace task ${taskIds.join(",")} has not been observed. A final answer does not observe its writes.`;
}

/** E3: the latest workspace re-read was incomplete. */
export const OBSERVATION_INCOMPLETE_MESSAGE =
  "completion gate: workspace observation is incomplete, so this digest is not the effect. A final answer, a waiver, or a verification of a partial list does not close it.";

/** E4: a mutation with no bound passing report and no waiver. */
export function unverifiedMutationMessage(effectDigest: string): string {
  return `completion gate: workspace mutation ${effectDigest} has no bound Passed verification and no host waiver. Assistant text does not count. Bind a verification_report.effect_digest to this digest with required checks Passed, or obtain a host waiver for this digest.`;
}
