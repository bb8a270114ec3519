/**
 * Wire shapes of the `facts.*` methods (harn-verification.md §1.1, §1.2, §1.5, §1.11, §1.12,
 * §3.7). Results are `@turngate/core`'s facts schemas unchanged (Harn's field names,
 * including its camelCase `feedsGates` / `staleFiles` / `rowId`); the params schemas here
 * wrap core's normalization schema into the `options` object of `diagnostic_delta` and
 * `gate_input`.
 */
import { VerificationDiagnosticNormalizationSchema } from "@turngate/core/schemas";
import * as z from "zod";

export {
  ParsedDiagnosticsSchema,
  VerificationDiagnosticClassificationSchema,
  VerificationDiagnosticDeltaSchema,
  VerificationDiagnosticNormalizationSchema,
  VerificationFileHashSnapshotSchema,
  VerificationGateInputSchema,
  VerificationSnapshotStalenessSchema,
} from "@turngate/core/schemas";

import { jsonObject } from "./json-object.js";

/** A `{path: hash}` map, or a whole file-hash snapshot (its `snapshot` member is used). */
export const HashMapSchema = jsonObject().describe(
  "a {path: hash} map (hashes compared as JSON values), or a file-hash snapshot whose snapshot member is used",
);

/** One side of a diagnostic delta: anything Harn's diagnostic info rule reads (§3.7). */
export const DiagnosticSideSchema = z
  .unknown()
  .describe(
    "a diagnostic result: null, a string, a list of strings or diagnostic objects, one diagnostic object, a check result ({ok|success|exit_code|status, stderr, …}), or {diagnostics|errors: […]} such as facts.parse_diagnostics returns",
  );

const Normalization = VerificationDiagnosticNormalizationSchema.shape;

/**
 * Options of `facts.diagnostic_delta` / `facts.gate_input`: the normalization knobs at the
 * top level (precedence 11 of §3.7), one direct config dict (`diagnostic_delta`, else
 * `signature_normalization`; precedence 10) and a profile `row` (or `profile_row`) whose own
 * and `check.` configs apply first. Harn's camelCase spellings of the direct config and of
 * `ignore_patterns` are not accepted at this level (a top-level `ignorePatterns` is ignored
 * by Harn); inside a config dict or a row every Harn spelling works.
 */
export const DiagnosticDeltaOptionsSchema = z
  .strictObject({
    lowercase: Normalization.lowercase,
    strip_ansi: Normalization.strip_ansi,
    strip_locations: Normalization.strip_locations,
    strip_temp_paths: Normalization.strip_temp_paths,
    collapse_whitespace: Normalization.collapse_whitespace,
    include_path: Normalization.include_path,
    include_code: Normalization.include_code,
    include_severity: Normalization.include_severity,
    max_chars: Normalization.max_chars,
    replacements: Normalization.replacements,
    strip_patterns: Normalization.strip_patterns,
    ignore_patterns: Normalization.ignore_patterns,
    diagnostic_delta: VerificationDiagnosticNormalizationSchema.nullish(),
    signature_normalization: VerificationDiagnosticNormalizationSchema.nullish(),
    row: jsonObject()
      .nullish()
      .describe(
        "a verification profile row: its signatureNormalization / signature_normalization / diagnosticDelta / diagnostic_delta configs, then those of row.check, apply first",
      ),
    profile_row: jsonObject().nullish().describe("used as the row when row is absent or null"),
  })
  .describe("diagnostic signature normalization (harn-verification.md §3.7)");
