/**
 * `diagnosticDelta`: is a failure new, unchanged, advanced, regressed or cleared?
 * (harn-verification.md §1.11, decision table rows 1–10, and §3.7.)
 */
import { type DiagnosticInfo, diagnosticInfo } from "./diagnostic-info.js";
import {
  clampSafeInteger,
  compareCodePoints,
  compareUnits,
  needsCodePointCompare,
} from "./harn-values.js";
import {
  compileNormalization,
  type DiagnosticNormalization,
  mergeNormalization,
} from "./normalization.js";

export const DIAGNOSTIC_DELTA_SCHEMA = "harn.verification.diagnostic_delta.v1";

/** Delta statuses (Harn's vocabulary). */
export type DeltaStatus =
  | "advisory"
  | "cleared"
  | "initialized"
  | "advanced"
  | "regressed"
  | "unchanged";

/** Decision-table reasons, one per row of §1.11. */
export type DeltaReason =
  | "current_diagnostic_does_not_feed_gates"
  | "current_result_is_passing"
  | "current_has_no_gate_bearing_failure_signature"
  | "no_prior_gate_bearing_failure"
  | "diagnostic_count_decreased"
  | "diagnostic_count_increased"
  | "same_diagnostic_signature_set"
  | "diagnostic_signature_set_changed"
  | "new_diagnostics_added_without_clearing_prior_signatures";

/** One side as reported in the result. */
export interface DeltaSide {
  count: number;
  feedsGates: boolean;
  feeds_gates: boolean;
  /** Every normalized signature of the side (even when it does not feed gates). */
  signatures: string[];
}

/** Wire shape of `diagnosticDelta` (`harn.verification.diagnostic_delta.v1`). */
export interface DiagnosticDelta {
  schema: "harn.verification.diagnostic_delta.v1";
  status: DeltaStatus;
  progress_credit: boolean;
  feedsGates: boolean;
  feeds_gates: boolean;
  advisory: boolean;
  reason: DeltaReason;
  previous: DeltaSide;
  current: DeltaSide;
  /** Gate signatures present before and gone now (code point order). */
  removed: string[];
  /** Gate signatures new now. */
  added: string[];
  /** Gate signatures in both. */
  persisted: string[];
  same_signature_set: boolean;
  /** The merged normalization config used. */
  normalization: DiagnosticNormalization;
  /** `current.count - previous.count`, present only when both sides feed gates. */
  count_delta?: number;
}

/**
 * Options: normalization knobs at the top level, a direct `diagnosticDelta` /
 * `diagnostic_delta` / `signatureNormalization` / `signature_normalization` dict, and/or a
 * profile `row` (or `profile_row`) whose own or `check.` config applies (§3.7 precedence).
 */
export interface DiagnosticDeltaOptions extends DiagnosticNormalization {
  row?: unknown;
  profile_row?: unknown;
  diagnosticDelta?: DiagnosticNormalization | null;
  diagnostic_delta?: DiagnosticNormalization | null;
  signatureNormalization?: DiagnosticNormalization | null;
  signature_normalization?: DiagnosticNormalization | null;
}

/**
 * removed / added / persisted of two sorted, duplicate-free lists in one merge walk
 * (both lists are in code point order).
 */
function diffSorted(
  prev: string[],
  cur: string[],
): { removed: string[]; added: string[]; persisted: string[] } {
  const cmp =
    needsCodePointCompare(prev) || needsCodePointCompare(cur) ? compareCodePoints : compareUnits;
  const removed: string[] = [];
  const added: string[] = [];
  const persisted: string[] = [];
  let i = 0;
  let j = 0;
  while (i < prev.length && j < cur.length) {
    const a = prev[i] as string;
    const b = cur[j] as string;
    const c = a === b ? 0 : cmp(a, b);
    if (c === 0) {
      persisted.push(a);
      i++;
      j++;
    } else if (c < 0) {
      removed.push(a);
      i++;
    } else {
      added.push(b);
      j++;
    }
  }
  while (i < prev.length) removed.push(prev[i++] as string);
  while (j < cur.length) added.push(cur[j++] as string);
  return { removed, added, persisted };
}

function side(info: DiagnosticInfo): DeltaSide {
  return {
    count: info.count,
    feedsGates: info.feedsGates,
    feeds_gates: info.feeds_gates,
    signatures: info.signatures,
  };
}

/**
 * Compares two diagnostic results as normalized signature sets (harn-verification.md §1.11).
 *
 * Each side may be nil, a string, a list of strings or diagnostic dicts, one diagnostic
 * dict, a check/result dict (`ok`, `success`, `exit`/`exit_code`, `status`, …) or a
 * `{diagnostics: […]}` / `{errors: […]}` envelope — e.g. the result of
 * `parseDiagnostics`. Signatures come from {@link mergeNormalization}'s config (lowercase,
 * line/column and temp paths stripped, whitespace collapsed, 4000-char cap, …), so a line
 * shift leaves the set unchanged. Only sides that feed gates contribute gate signatures;
 * the first matching row of the decision table gives `status`, `progress_credit` and
 * `reason`. Throws `TurngateValidationError` (bad knob type) or `InvalidRegexError` (bad
 * pattern) naming the option field. Pure.
 */
export function diagnosticDelta(
  previous: unknown,
  current: unknown,
  options: DiagnosticDeltaOptions | Record<string, unknown> = {},
): DiagnosticDelta {
  const normalization = mergeNormalization(options);
  const compiled = compileNormalization(normalization);
  const prev = diagnosticInfo(previous, compiled);
  const cur = diagnosticInfo(current, compiled);
  const prevGate = prev.feedsGates ? prev.signatures : [];
  const curGate = cur.feedsGates ? cur.signatures : [];
  const { removed, added, persisted } = diffSorted(prevGate, curGate);

  let status: DeltaStatus;
  let credit = false;
  let reason: DeltaReason;
  if (!cur.feedsGates) {
    status = "advisory";
    reason = "current_diagnostic_does_not_feed_gates";
  } else if (cur.explicit_success || (cur.has_collection && cur.count === 0)) {
    status = "cleared";
    credit = prevGate.length > 0;
    reason = "current_result_is_passing";
  } else if (!cur.failed || curGate.length === 0) {
    status = "initialized";
    reason = "current_has_no_gate_bearing_failure_signature";
  } else if (!prev.feedsGates || !prev.failed || prevGate.length === 0) {
    status = "initialized";
    reason = "no_prior_gate_bearing_failure";
  } else if (removed.length === 0 && added.length === 0) {
    if (cur.count < prev.count) {
      status = "advanced";
      credit = true;
      reason = "diagnostic_count_decreased";
    } else if (cur.count > prev.count) {
      status = "regressed";
      reason = "diagnostic_count_increased";
    } else {
      status = "unchanged";
      reason = "same_diagnostic_signature_set";
    }
  } else if (removed.length > 0) {
    status = "advanced";
    credit = true;
    reason = "diagnostic_signature_set_changed";
  } else {
    status = "regressed";
    reason = "new_diagnostics_added_without_clearing_prior_signatures";
  }

  const result: DiagnosticDelta = {
    schema: DIAGNOSTIC_DELTA_SCHEMA,
    status,
    progress_credit: credit,
    feedsGates: cur.feedsGates,
    feeds_gates: cur.feeds_gates,
    advisory: !cur.feedsGates,
    reason,
    previous: side(prev),
    current: side(cur),
    removed,
    added,
    persisted,
    same_signature_set: removed.length === 0 && added.length === 0,
    normalization,
  };
  if (prev.feedsGates && cur.feedsGates)
    result.count_delta = clampSafeInteger(cur.count - prev.count);
  return result;
}
