import type { ExternalObservation, ExternalObservationInput } from "../schemas/observation.js";
import { parseCompletionWaiver, parseExternalObservation, parseList } from "../schemas/parse.js";
import type { CompletionWaiver } from "../schemas/waiver.js";

/**
 * The external observations still open, A3S §2.12 `still_open`:
 * - only the newest observation per subject counts (the LAST one with that subject in list
 *   order), so a later `none` closes an earlier `workspace_change`;
 * - those with `required_action` `none` are dropped;
 * - those covered by a waiver are dropped: a waiver whose `effect_digest` equals the
 *   observation's `digest`, or — when `effectDigest` is not `""` — equals `effectDigest`
 *   (a waiver of the current effect clears every open observation).
 * Result order: the position of each kept observation in the input list (deterministic;
 * A3S used hash-map order). Throws `TurngateValidationError` (path `observations.N.field`,
 * `waivers.N.field`) for malformed input.
 */
export function stillOpenObservations(
  observations: readonly ExternalObservationInput[],
  waivers: readonly CompletionWaiver[],
  effectDigest: string,
): ExternalObservation[] {
  const parsed = parseList(
    observations,
    "external observations",
    "observations",
    parseExternalObservation,
  );
  const waived = new Set(
    parseList(waivers, "completion waivers", "waivers", parseCompletionWaiver).map(
      (w) => w.effect_digest,
    ),
  );
  const newest = new Map<string, number>();
  parsed.forEach((o, i) => {
    newest.set(o.subject, i);
  });
  const clearsAll = effectDigest !== "" && waived.has(effectDigest);
  return parsed.filter(
    (o, i) =>
      newest.get(o.subject) === i &&
      o.required_action !== "none" &&
      !clearsAll &&
      !waived.has(o.digest),
  );
}

/** A3S §2.12 `blocks_success`: any open observation requires a workspace change. */
export function observationsBlockSuccess(open: readonly ExternalObservation[]): boolean {
  return open.some((o) => o.required_action === "workspace_change");
}
