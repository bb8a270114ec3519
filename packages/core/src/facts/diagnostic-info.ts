/**
 * The per-side facts `diagnosticDelta` compares (harn-verification.md §3.7 "Info of one
 * input"): entries, normalized signatures, count, collection/success/failure flags and
 * the feeds-gates rule.
 */
import {
  clampSafeInteger,
  coalesce,
  type Dict,
  field,
  isDict,
  isNil,
  sortCodePoints,
  toInt,
  trimmedText,
  truthy,
} from "./harn-values.js";
import {
  type CompiledNormalization,
  entryRawText,
  entrySignature,
  isIgnored,
} from "./normalization.js";

/** Facts about one side of a delta. */
export interface DiagnosticInfo {
  /** The direct count field (`to_int`, clamped to ±(2^53−1)), else the entries counted. */
  count: number;
  explicit_success: boolean;
  failed: boolean;
  feedsGates: boolean;
  feeds_gates: boolean;
  has_collection: boolean;
  /** Distinct normalized signatures in code point order. */
  signatures: string[];
}

const SUCCESS = new Set(["pass", "passed", "success", "succeeded"]);
const FAILURE = new Set(["error", "fail", "failed", "failure", "timed_out", "timeout"]);
const NOT_FEEDING = new Set(["advisory", "bound_stale", "stale", "unbound"]);

/** Status rule: lowercased trimmed `status`, else of `classification.status ?? diagnostic.status`. */
export function deltaStatus(value: unknown): string {
  const direct = trimmedText(field(value, "status")).toLowerCase();
  if (direct !== "") return direct;
  return trimmedText(
    coalesce(
      field(field(value, "classification"), "status"),
      field(field(value, "diagnostic"), "status"),
    ),
  ).toLowerCase();
}

/**
 * Feeds-gates rule: nil → true; the first non-nil of `feedsGates`, `feeds_gates`,
 * `classification.feedsGates`, `classification.feeds_gates`, `diagnostic.feedsGates`,
 * `diagnostic.feeds_gates` by truthiness; else the status is not `advisory`, `bound_stale`,
 * `stale` or `unbound`.
 */
export function feedsGates(value: unknown): boolean {
  if (isNil(value)) return true;
  const classification = field(value, "classification");
  const diagnostic = field(value, "diagnostic");
  for (const v of [
    field(value, "feedsGates"),
    field(value, "feeds_gates"),
    field(classification, "feedsGates"),
    field(classification, "feeds_gates"),
    field(diagnostic, "feedsGates"),
    field(diagnostic, "feeds_gates"),
  ]) {
    if (!isNil(v)) return truthy(v);
  }
  return !NOT_FEEDING.has(deltaStatus(value));
}

function exitOf(value: unknown): number | null {
  return toInt(coalesce(field(value, "exit"), field(value, "exit_code")));
}

/** `ok` → truthy; `success` → truthy; exit → `== 0`; else a passing status word. */
export function explicitSuccess(value: unknown): boolean {
  if (isNil(value)) return false;
  const ok = field(value, "ok");
  if (!isNil(ok)) return truthy(ok);
  const success = field(value, "success");
  if (!isNil(success)) return truthy(success);
  const exit = exitOf(value);
  if (exit !== null) return exit === 0;
  return SUCCESS.has(deltaStatus(value));
}

/** `ok` → !truthy; `success` → !truthy; exit → `!= 0`; else a failing status word. */
export function explicitFailure(value: unknown): boolean {
  if (isNil(value)) return false;
  const ok = field(value, "ok");
  if (!isNil(ok)) return !truthy(ok);
  const success = field(value, "success");
  if (!isNil(success)) return !truthy(success);
  const exit = exitOf(value);
  if (exit !== null) return exit !== 0;
  return FAILURE.has(deltaStatus(value));
}

function syntheticFailure(value: unknown): Dict {
  const status = deltaStatus(value);
  const exit = exitOf(value);
  const statusText = status === "" ? "failed" : status;
  const exitText = exit === null ? "" : ` exit=${exit}`;
  return { message: `check ${statusText}${exitText}`, code: statusText };
}

/** The entries of one input: list items, a collection, one diagnostic, the value or a synthetic failure. */
export function rawEntries(value: unknown): unknown[] {
  if (isNil(value)) return [];
  if (Array.isArray(value)) return value;
  if (!isDict(value)) return [value];
  if (Array.isArray(value.diagnostics)) return value.diagnostics;
  if (Array.isArray(value.errors)) return value.errors;
  if (isDict(value.diagnostic)) return [value.diagnostic];
  if (entryRawText(value) !== "") return [value];
  if (explicitFailure(value)) return [syntheticFailure(value)];
  return [];
}

/** Builds the {@link DiagnosticInfo} of one input under a compiled normalization. */
export function diagnosticInfo(value: unknown, n: CompiledNormalization): DiagnosticInfo {
  let normalizedCount = 0;
  const distinct = new Set<string>();
  for (const entry of rawEntries(value)) {
    const signature = entrySignature(entry, n);
    if (signature === "" || (n.ignore.length > 0 && isIgnored(signature, n))) continue;
    normalizedCount++;
    distinct.add(signature);
  }
  const direct = toInt(
    coalesce(
      field(value, "error_count"),
      field(value, "diagnostic_count"),
      field(value, "diagnostics_count"),
      field(value, "failure_count"),
    ),
  );
  const hasCollection =
    Array.isArray(field(value, "diagnostics")) || Array.isArray(field(value, "errors"));
  const feeds = feedsGates(value);
  return {
    count: direct === null ? normalizedCount : clampSafeInteger(direct),
    explicit_success: explicitSuccess(value),
    failed: normalizedCount > 0 || (!hasCollection && explicitFailure(value)),
    feedsGates: feeds,
    feeds_gates: feeds,
    has_collection: hasCollection,
    signatures: sortCodePoints([...distinct]),
  };
}
