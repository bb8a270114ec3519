/**
 * zod wire schemas of the verification facts (harn-verification.md §2.1, §1.2, §1.5,
 * §1.11, §1.12; parsed diagnostics are turngate's). Exported on the
 * "@turngate/core/schemas" subpath; the build writes each as JSON Schema.
 */
import * as z from "zod";

const Int = z.number().int();
const NonNegInt = Int.min(0);

/** One `files` entry of a file-hash snapshot (all keys required, no extra keys). */
export const VerificationFileHashSnapshotEntrySchema = z.strictObject({
  path: z.string(),
  known: z.boolean(),
  readable: z.boolean(),
  hash: z.string().nullable(),
  hash_source: z.enum(["indexed", "disk", "missing"]),
  size: NonNegInt.nullable(),
  mtime_ms: Int.nullable(),
  indexed_hash: z.string().nullable(),
  indexed_mtime_ms: Int.nullable(),
  last_edit_seq: NonNegInt,
});

/** `fileHashSnapshot` result (Harn's `VerificationFileHashSnapshot`; `algorithm` adds `sha256`). */
export const VerificationFileHashSnapshotSchema = z.strictObject({
  seq: NonNegInt,
  captured_at_ms: Int,
  algorithm: z.enum(["fnv1a64", "sha256"]),
  snapshot: z.record(z.string(), z.string()),
  missing: z.array(z.string()),
  files: z.array(VerificationFileHashSnapshotEntrySchema),
});

/** `snapshotStaleness` result. */
export const VerificationSnapshotStalenessSchema = z.strictObject({
  schema: z.literal("harn.verification.snapshot_staleness.v1"),
  status: z.enum(["unbound", "bound_fresh", "bound_stale"]),
  stale: z.boolean(),
  fresh: z.boolean(),
  staleFiles: z.array(z.string()),
  stale_files: z.array(z.string()),
  changed_files: z.array(z.string()),
  advisory: z.boolean(),
  reason: z.string(),
});

/** `diagnosticClassify` result. */
export const VerificationDiagnosticClassificationSchema = z.strictObject({
  rung: z.string().optional(),
  rowId: z.unknown().optional(),
  status: z.enum(["bound_fresh", "bound_stale", "unbound"]),
  staleFiles: z.array(z.string()),
  feedsGates: z.boolean(),
  advisory: z.boolean(),
  reason: z.string(),
});

const Replacement = z.union([
  z.string(),
  z.looseObject({
    pattern: z.string().nullish(),
    regex: z.string().nullish(),
    replacement: z.string().nullish(),
    with: z.string().nullish(),
  }),
]);
const PatternList = z.union([z.string(), z.array(z.string())]).nullish();

/** Diagnostic-delta normalization knobs (§3.7); unknown keys are carried through. */
export const VerificationDiagnosticNormalizationSchema = z.looseObject({
  lowercase: z.boolean().nullish(),
  strip_ansi: z.boolean().nullish(),
  strip_locations: z.boolean().nullish(),
  strip_temp_paths: z.boolean().nullish(),
  collapse_whitespace: z.boolean().nullish(),
  include_path: z.boolean().nullish(),
  include_code: z.boolean().nullish(),
  include_severity: z.boolean().nullish(),
  max_chars: z.union([Int, z.string().regex(/^[+-]?[0-9]+$/)]).nullish(),
  replacements: z.array(Replacement).nullish(),
  strip_patterns: PatternList,
  stripPatterns: PatternList,
  ignore_patterns: PatternList,
  ignorePatterns: PatternList,
});

const DeltaSide = z.strictObject({
  count: Int,
  feedsGates: z.boolean(),
  feeds_gates: z.boolean(),
  signatures: z.array(z.string()),
});

/** `diagnosticDelta` result (`harn.verification.diagnostic_delta.v1`). */
export const VerificationDiagnosticDeltaSchema = z.strictObject({
  schema: z.literal("harn.verification.diagnostic_delta.v1"),
  status: z.enum(["advisory", "cleared", "initialized", "advanced", "regressed", "unchanged"]),
  progress_credit: z.boolean(),
  feedsGates: z.boolean(),
  feeds_gates: z.boolean(),
  advisory: z.boolean(),
  reason: z.enum([
    "current_diagnostic_does_not_feed_gates",
    "current_result_is_passing",
    "current_has_no_gate_bearing_failure_signature",
    "no_prior_gate_bearing_failure",
    "diagnostic_count_decreased",
    "diagnostic_count_increased",
    "same_diagnostic_signature_set",
    "diagnostic_signature_set_changed",
    "new_diagnostics_added_without_clearing_prior_signatures",
  ]),
  previous: DeltaSide,
  current: DeltaSide,
  removed: z.array(z.string()),
  added: z.array(z.string()),
  persisted: z.array(z.string()),
  same_signature_set: z.boolean(),
  normalization: VerificationDiagnosticNormalizationSchema,
  count_delta: Int.optional(),
});

const GateSide = z.strictObject({
  classification: z.record(z.string(), z.unknown()),
  value: z.record(z.string(), z.unknown()),
});

/** `gateInput` result (`harn.verification.gate_input.v1` plus turngate's `rung_comparison`). */
export const VerificationGateInputSchema = z.strictObject({
  schema: z.literal("harn.verification.gate_input.v1"),
  status: z.string(),
  reason: z.string(),
  feedsGates: z.boolean(),
  feeds_gates: z.boolean(),
  advisory: z.boolean(),
  progress_credit: z.boolean(),
  no_progress: z.boolean(),
  gate_bearing_failure: z.boolean(),
  blocks_completion: z.boolean(),
  stale: z.boolean(),
  stale_files: z.unknown(),
  previous: GateSide,
  current: GateSide,
  delta: VerificationDiagnosticDeltaSchema,
  rung_comparison: z.strictObject({
    previous_rung: z.string().nullable(),
    current_rung: z.string().nullable(),
    previous_rank: Int.nullable(),
    current_rank: Int.nullable(),
    outcome: z.enum(["not_applicable", "same_or_higher", "lower", "unranked"]),
  }),
});

/** One parsed diagnostic. */
export const ParsedDiagnosticSchema = z.strictObject({
  path: z.string().nullable(),
  line: Int.min(1).nullable(),
  column: Int.min(1).nullable(),
  severity: z.enum(["error", "warning", "info"]),
  code: z.string().nullable(),
  message: z.string(),
  source: z.string(),
  fingerprints: z.record(z.string(), z.string()).optional(),
});

/** `parseDiagnostics` result (`turngate.parsed_diagnostics.v1`). */
export const ParsedDiagnosticsSchema = z.strictObject({
  schema: z.literal("turngate.parsed_diagnostics.v1"),
  format: z.enum([
    "tsc",
    "eslint",
    "sarif",
    "cargo",
    "ruff",
    "pyright",
    "go_vet",
    "rdjson",
    "rdjsonl",
  ]),
  diagnostics: z.array(ParsedDiagnosticSchema),
  unparsed: z.array(
    z.strictObject({
      line: Int.min(1).nullable(),
      pointer: z.string().nullable(),
      text: z.string(),
      reason: z.string(),
    }),
  ),
});

/** One test of `parseTestResults` (issue #16). `duration_ms` in milliseconds. */
export const ParsedTestSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  suite: z.string().nullable(),
  file: z.string().nullable(),
  status: z.enum(["passed", "failed", "skipped", "errored"]),
  duration_ms: z.number().min(0).nullable(),
  message: z.string().nullable(),
});

/** `parseTestResults` result (`turngate.parsed_test_results.v1`). */
export const ParsedTestResultsSchema = z.strictObject({
  schema: z.literal("turngate.parsed_test_results.v1"),
  format: z.enum([
    "junit",
    "tap",
    "ctrf",
    "go_test_json",
    "jest_json",
    "pytest_reportlog",
    "libtest",
  ]),
  tests: z.array(ParsedTestSchema),
  totals: z.strictObject({
    tests: NonNegInt,
    passed: NonNegInt,
    failed: NonNegInt,
    skipped: NonNegInt,
    errored: NonNegInt,
  }),
  errors: z.array(
    z.strictObject({
      suite: z.string().nullable(),
      file: z.string().nullable(),
      message: z.string(),
    }),
  ),
  unparsed: z.array(
    z.strictObject({
      line: Int.min(1).nullable(),
      pointer: z.string().nullable(),
      text: z.string(),
      reason: z.string(),
    }),
  ),
});
