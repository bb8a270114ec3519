import { isDict, isNil, jsonEqual, rustTrim, sortCodePoints } from "./harn-values.js";

/** Wire shape of `diagnosticClassify` (Harn's `verification_diagnostic_classify`). */
export interface DiagnosticClassification {
  /** The envelope's trimmed `rung`, present only when it is a non-blank string. */
  rung?: string;
  /** The envelope's `rowId`, copied when non-null (any JSON type). */
  rowId?: unknown;
  status: "bound_fresh" | "bound_stale" | "unbound";
  /** Snapshot paths whose current hash is missing or not JSON-equal, in byte order. */
  staleFiles: string[];
  feedsGates: boolean;
  advisory: boolean;
  reason: string;
}

/**
 * Classifies a diagnostic envelope `{rung, rowId?, at, snapshot, …}` against the current
 * `{path: hash}` map (harn-verification.md §1.5, `verification_diagnostic_classify`).
 *
 * Bound only when `rung` is a string non-blank after trim (an integer rung does not
 * count), `at` is a string or a number, and `snapshot` is a non-empty object. A bound
 * envelope is `bound_fresh` when every snapshot entry is JSON-equal (type-sensitive) to the
 * current entry, else `bound_stale`; a non-object `currentHashes` makes every file stale.
 * Not bound → `unbound`. `feedsGates` is true only for `bound_fresh`. A nil envelope is
 * unbound; an omitted `currentHashes` is `{}`. Pure; never throws.
 */
export function diagnosticClassify(
  envelope: unknown,
  currentHashes: unknown = {},
): DiagnosticClassification {
  const env = isDict(envelope) ? envelope : undefined;
  const rawRung = env?.rung;
  const rung =
    typeof rawRung === "string" && rustTrim(rawRung) !== "" ? rustTrim(rawRung) : undefined;
  const at = env?.at;
  const hasTimestamp = typeof at === "string" || typeof at === "number";
  const snapshot = env?.snapshot;
  const bound = isDict(snapshot) && Object.keys(snapshot).length > 0 ? snapshot : undefined;

  const out: Partial<DiagnosticClassification> = {};
  if (rung !== undefined) out.rung = rung;
  if (env !== undefined && !isNil(env.rowId)) out.rowId = env.rowId;

  let status: DiagnosticClassification["status"];
  let staleFiles: string[] = [];
  let reason: string;
  if (rung !== undefined && hasTimestamp && bound !== undefined) {
    const current = isDict(currentHashes) ? currentHashes : undefined;
    staleFiles = sortCodePoints(
      Object.keys(bound).filter(
        (file) =>
          current === undefined ||
          !Object.hasOwn(current, file) ||
          !jsonEqual(current[file], bound[file]),
      ),
    );
    if (staleFiles.length === 0) {
      status = "bound_fresh";
      reason = "snapshot matches current file hashes";
    } else {
      status = "bound_stale";
      reason = `snapshot superseded for ${staleFiles.length} file(s); re-check before trusting`;
    }
  } else {
    status = "unbound";
    reason = "diagnostic carries no rung+timestamp+snapshot binding; advisory only";
  }
  const feedsGates = status === "bound_fresh";
  return { ...out, status, staleFiles, feedsGates, advisory: !feedsGates, reason };
}
