// Verification facts (Harn std/verification, docs/design.md §4): pure parts.

export * from "./affected/index.js";
export { type DiagnosticClassification, diagnosticClassify } from "./diagnostic-classify.js";
export {
  type DeltaReason,
  type DeltaSide,
  type DeltaStatus,
  DIAGNOSTIC_DELTA_SCHEMA,
  type DiagnosticDelta,
  type DiagnosticDeltaOptions,
  diagnosticDelta,
} from "./diagnostic-delta.js";
export {
  FILE_HASH_SNAPSHOT_MAX_PATHS,
  type FileHashSnapshot,
  type FileHashSnapshotEntry,
} from "./file-hash-snapshot.js";
export { Fnv1a64, fnv1a64 } from "./fnv1a64.js";
export {
  GATE_INPUT_SCHEMA,
  type GateClassification,
  type GateInput,
  gateInput,
  type RungComparison,
} from "./gate-input.js";
export {
  DEFAULT_NORMALIZATION,
  type DiagnosticNormalization,
  mergeNormalization,
  type NormalizationReplacement,
  truncateChars,
} from "./normalization.js";
export * from "./parsers/index.js";
export * from "./profiles/index.js";
export { rungRank } from "./rung.js";
export { InvalidRegexError } from "./rust-regex.js";
export {
  SNAPSHOT_STALENESS_SCHEMA,
  type SnapshotStaleness,
  snapshotStaleness,
} from "./snapshot-staleness.js";
export * from "./test-results/index.js";
