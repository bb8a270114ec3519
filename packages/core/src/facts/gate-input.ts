/**
 * `gateInput`: the gate-facing reducer over two diagnostics (harn-verification.md §1.12),
 * with turngate's rung rule (docs/design.md §4): a green clears a gate-bearing failure only at
 * the same or a higher rung.
 */
import { type DiagnosticClassification, diagnosticClassify } from "./diagnostic-classify.js";
import {
  type DiagnosticDelta,
  type DiagnosticDeltaOptions,
  diagnosticDelta,
} from "./diagnostic-delta.js";
import { deltaStatus, feedsGates as feedsGatesRule } from "./diagnostic-info.js";
import {
  coalesce,
  type Dict,
  display,
  field,
  isDict,
  isNil,
  truthy,
  unwrapSnapshot,
} from "./harn-values.js";
import { rungRank } from "./rung.js";

export const GATE_INPUT_SCHEMA = "harn.verification.gate_input.v1";

/** A side's classification: Harn's classify result, an embedded one, or the unclassified shape. */
export type GateClassification =
  | DiagnosticClassification
  | {
      status: string;
      staleFiles: string[];
      stale_files: string[];
      feedsGates: boolean;
      feeds_gates: boolean;
      advisory: boolean;
      reason: string;
    }
  | Dict;

/**
 * How the rung rule judged a green that would clear a gate-bearing failure:
 * `not_applicable` (nothing to clear, or the previous side has no rankable rung),
 * `same_or_higher` (cleared), `lower` (refused: `lower_rung_green`), `unranked` (the
 * previous failure has a rung but the green has none that ranks: refused,
 * `unranked_green`).
 */
export interface RungComparison {
  previous_rung: string | null;
  current_rung: string | null;
  previous_rank: number | null;
  current_rank: number | null;
  outcome: "not_applicable" | "same_or_higher" | "lower" | "unranked";
}

/** Wire shape of `gateInput` (`harn.verification.gate_input.v1` plus `rung_comparison`). */
export interface GateInput {
  schema: "harn.verification.gate_input.v1";
  status: string;
  reason: string;
  feedsGates: boolean;
  feeds_gates: boolean;
  advisory: boolean;
  progress_credit: boolean;
  no_progress: boolean;
  gate_bearing_failure: boolean;
  blocks_completion: boolean;
  stale: boolean;
  stale_files: unknown;
  previous: { classification: GateClassification; value: Dict };
  current: { classification: GateClassification; value: Dict };
  delta: DiagnosticDelta;
  rung_comparison: RungComparison;
}

function embeddedClassification(value: unknown): Dict | undefined {
  if (!isDict(value)) return undefined;
  if (isDict(value.classification)) return value.classification;
  const status = isNil(value.status) ? "" : display(value.status);
  if (status === "bound_fresh" || status === "bound_stale" || status === "unbound") return value;
  return undefined;
}

function unclassified(value: unknown): GateClassification {
  const status = deltaStatus(value);
  const feeds = feedsGatesRule(value);
  return {
    status: status === "" ? "unclassified" : status,
    staleFiles: [],
    stale_files: [],
    feedsGates: feeds,
    feeds_gates: feeds,
    advisory: !feeds,
    reason: feeds
      ? "current file hashes unavailable; preserving diagnostic gate status"
      : "diagnostic status does not feed gates",
  };
}

function classify(value: unknown, hashes: Dict, available: boolean): GateClassification {
  const embedded = embeddedClassification(value);
  if (embedded !== undefined) return embedded;
  if (!available) return unclassified(value);
  return diagnosticClassify(isDict(value) ? value : undefined, hashes);
}

function deltaValue(value: unknown, classification: GateClassification): Dict {
  const base: Dict = isDict(value)
    ? value
    : isNil(value)
      ? {}
      : { failureSignature: display(value) };
  const feeds = truthy(field(classification, "feedsGates"));
  return { ...base, classification, feedsGates: feeds, feeds_gates: feeds, advisory: !feeds };
}

function rungOf(value: unknown, classification: GateClassification): string | null {
  const raw = coalesce(field(classification, "rung"), field(value, "rung"));
  return isNil(raw) ? null : display(raw);
}

/**
 * Reduces a previous and a current diagnostic to the object gate policy consumes
 * (harn-verification.md §1.12).
 *
 * Each side is classified: an embedded `classification` dict (or a value whose `status`
 * is `bound_fresh`/`bound_stale`/`unbound`) is used as is; without current hashes the
 * side keeps its own gate status (`unclassified`); otherwise {@link diagnosticClassify}
 * binds it to `currentHashes` (a `{path: hash}` map or a file-hash snapshot). A stale or
 * unbound side does not feed gates, so a stale or unbound previous is never a baseline.
 * The delta runs over the classified values with `options` (normalization knobs).
 *
 * **Change from Harn:** when the delta is `cleared` over a gate-bearing previous failure,
 * the current green must be at the same or a higher rung (rung rule §3.4) than the
 * previous failure. A lower rung → `status: "advisory"`, `reason: "lower_rung_green"`; a
 * green without a rankable rung after a ranked failure → `advisory`, `unranked_green`. In
 * both, `feedsGates` is false, there is no progress credit, and `gate_bearing_failure` /
 * `blocks_completion` stay true (the earlier failure still stands). `rung_comparison`
 * records the judgement. Throws only what `diagnosticDelta` throws (bad options).
 */
export function gateInput(
  previous: unknown,
  current: unknown,
  currentHashes?: unknown,
  options: DiagnosticDeltaOptions | Record<string, unknown> = {},
): GateInput {
  const unwrapped = unwrapSnapshot(currentHashes);
  const available = !isNil(currentHashes) && isDict(unwrapped);
  const hashes: Dict = isDict(unwrapped) ? unwrapped : {};
  const prevClass = classify(previous, hashes, available);
  const curClass = classify(current, hashes, available);
  const prevValue = deltaValue(previous, prevClass);
  const curValue = deltaValue(current, curClass);
  const delta = diagnosticDelta(prevValue, curValue, options);

  const rung: RungComparison = {
    previous_rung: rungOf(previous, prevClass),
    current_rung: rungOf(current, curClass),
    previous_rank: null,
    current_rank: null,
    outcome: "not_applicable",
  };
  rung.previous_rank = rungRank(rung.previous_rung);
  rung.current_rank = rungRank(rung.current_rung);

  let feeds = truthy(field(curClass, "feedsGates"));
  let status: string = feeds ? delta.status : "advisory";
  let reason = feeds
    ? delta.reason
    : display(coalesce(field(curClass, "reason"), "current diagnostic is advisory"));
  let gateBearing = feeds && delta.current.signatures.length > 0 && status !== "cleared";

  const clearsFailure = feeds && delta.status === "cleared" && delta.progress_credit;
  if (clearsFailure && rung.previous_rank !== null) {
    if (rung.current_rank === null || rung.current_rank < rung.previous_rank) {
      rung.outcome = rung.current_rank === null ? "unranked" : "lower";
      feeds = false;
      status = "advisory";
      reason = rung.current_rank === null ? "unranked_green" : "lower_rung_green";
      gateBearing = true;
    } else {
      rung.outcome = "same_or_higher";
    }
  }

  return {
    schema: GATE_INPUT_SCHEMA,
    status,
    reason,
    feedsGates: feeds,
    feeds_gates: feeds,
    advisory: !feeds,
    progress_credit: feeds && delta.progress_credit,
    no_progress: feeds && status === "unchanged",
    gate_bearing_failure: gateBearing,
    blocks_completion: gateBearing,
    stale: field(curClass, "status") === "bound_stale",
    stale_files: coalesce(field(curClass, "staleFiles"), []),
    previous: { classification: prevClass, value: prevValue },
    current: { classification: curClass, value: curValue },
    delta,
    rung_comparison: rung,
  };
}
