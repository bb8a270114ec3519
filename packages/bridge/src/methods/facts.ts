/**
 * `facts.*` methods that need only `@turngate/core` (stateless, pure): staleness of a
 * file-hash snapshot, classification of a diagnostic envelope, the diagnostic delta, the
 * gate input and the diagnostic parsers (harn-verification.md §1.2, §1.5, §1.11, §1.12,
 * §3.7; docs/design.md §4). `facts.file_hash_snapshot` reads files and lives in `facts-node.ts`.
 */
import {
  DIAGNOSTIC_FORMATS,
  diagnosticClassify,
  diagnosticDelta,
  gateInput,
  parseDiagnostics,
  snapshotStaleness,
} from "@turngate/core";
import * as z from "zod";
import { BridgeError } from "../errors.js";
import { defineMethod } from "../method.js";
import { toBridgeError } from "../rpc/dispatch.js";
import {
  DiagnosticDeltaOptionsSchema,
  DiagnosticSideSchema,
  HashMapSchema,
  ParsedDiagnosticsSchema,
  VerificationDiagnosticClassificationSchema,
  VerificationDiagnosticDeltaSchema,
  VerificationGateInputSchema,
  VerificationSnapshotStalenessSchema,
} from "../wire/facts.js";
import { jsonObject } from "../wire/json-object.js";
import { withFieldPath } from "./field-path.js";

const DELTA_OPTIONS_NOTE =
  "Errors: invalid_params for a knob of the wrong type (path under options, e.g. options.row.diagnosticDelta.lowercase), invalid_regex for a pattern Rust's regex crate would reject (path under options, e.g. options.replacements.0.pattern).";

export const factsMethods = {
  "facts.snapshot_staleness": defineMethod({
    description:
      'Staleness of a bound file-hash snapshot against the current hashes (harn-verification.md §1.2): schema harn.verification.snapshot_staleness.v1; an empty or null bound snapshot is "unbound" (advisory); a bound path whose current hash differs or is absent makes it "bound_stale" (advisory), else "bound_fresh". staleFiles, stale_files and changed_files list the same stale paths in byte order.',
    params: z.strictObject({
      bound_snapshot: HashMapSchema.nullable().describe(
        "the snapshot a diagnostic was bound to ({path: hash} or a file-hash snapshot); null = no binding",
      ),
      current_hashes: HashMapSchema.nullable().describe(
        "the current hashes ({path: hash} or a file-hash snapshot); null = unavailable, every bound path is stale",
      ),
    }),
    result: VerificationSnapshotStalenessSchema,
    handler: (p) => snapshotStaleness(p.bound_snapshot, p.current_hashes),
  }),

  "facts.diagnostic_classify": defineMethod({
    description:
      'Classifies a diagnostic envelope {rung, at, snapshot, rowId?} against the current {path: hash} map (harn-verification.md §1.5): bound only with a non-blank string rung, a string or number at, and a non-empty snapshot; then "bound_fresh" when every snapshot entry equals the current one as JSON (type-sensitive), else "bound_stale"; otherwise "unbound". feedsGates is true only for bound_fresh.',
    params: z.strictObject({
      envelope: jsonObject().nullable().describe("the diagnostic envelope; null is unbound"),
      current_hashes: jsonObject()
        .default({})
        .describe("the current {path: hash} map (not unwrapped); a path it lacks is stale"),
    }),
    result: VerificationDiagnosticClassificationSchema,
    handler: (p) => diagnosticClassify(p.envelope, p.current_hashes),
  }),

  "facts.diagnostic_delta": defineMethod({
    description: `Compares two diagnostic results as normalized signature sets (harn-verification.md §1.11, §3.7): schema harn.verification.diagnostic_delta.v1; status advisory | cleared | initialized | advanced | regressed | unchanged with progress_credit and the decision-table reason; removed / added / persisted gate signatures; the merged normalization. Line and column numbers are stripped from signatures by default, so a line shift leaves the delta unchanged. ${DELTA_OPTIONS_NOTE}`,
    params: z.strictObject({
      previous: DiagnosticSideSchema,
      current: DiagnosticSideSchema,
      options: DiagnosticDeltaOptionsSchema.default({}),
    }),
    result: VerificationDiagnosticDeltaSchema,
    handler: (p) =>
      withFieldPath("options", () => diagnosticDelta(p.previous, p.current, p.options)),
  }),

  "facts.gate_input": defineMethod({
    description: `The gate-facing reducer over a previous and a current diagnostic (harn-verification.md §1.12): schema harn.verification.gate_input.v1; each side is classified against current_hashes (an embedded classification is used as is; without current_hashes a side keeps its own gate status), a stale or unbound previous is never a baseline, then the diagnostic delta decides. Change from Harn (docs/design.md §4): a green clears a gate-bearing failure only at the same or a higher rung (R0–R5); a lower-rung green is advisory with reason lower_rung_green, one without a rankable rung after a ranked failure is advisory with reason unranked_green; rung_comparison records the judgement. ${DELTA_OPTIONS_NOTE}`,
    params: z.strictObject({
      previous: DiagnosticSideSchema,
      current: DiagnosticSideSchema,
      current_hashes: HashMapSchema.nullish().describe(
        "the current hashes; absent or null = unavailable (each side keeps its own gate status)",
      ),
      options: DiagnosticDeltaOptionsSchema.default({}),
    }),
    result: VerificationGateInputSchema,
    handler: (p) =>
      withFieldPath(
        "options",
        // Core's classification interfaces are plain JSON objects; the schema says so.
        () =>
          gateInput(p.previous, p.current, p.current_hashes ?? undefined, p.options) as z.output<
            typeof VerificationGateInputSchema
          >,
      ),
  }),

  "facts.parse_diagnostics": defineMethod({
    description:
      "Parses one tool's raw output into diagnostics {path, line, column, severity, code, message, source} (1-based lines and columns, null when absent) plus the input it could not read (unparsed: line or JSON pointer, text, reason). Formats: tsc (tsc --pretty false), eslint (-f json), sarif (2.1.0; partialFingerprints kept as fingerprints), cargo (--message-format=json, primary span), ruff (--output-format=json), pyright (--outputjson), go_vet (go vet -json), rdjson, rdjsonl (reviewdog). The result can be passed as one side of facts.diagnostic_delta. Errors: diagnostic_parse_error (path text) when a JSON-document format is not JSON or not the expected shape at its root; the message names the JSON pointer.",
    params: z.strictObject({
      format: z.enum(DIAGNOSTIC_FORMATS),
      text: z.string().describe("the tool's raw output"),
    }),
    result: ParsedDiagnosticsSchema,
    handler: (p) => {
      try {
        return parseDiagnostics(p.format, p.text);
      } catch (error) {
        const wire = toBridgeError(error);
        // The parser names a JSON pointer into the text; on the wire the field is `text`.
        if (wire.code === "diagnostic_parse_error") {
          throw new BridgeError(wire.code, wire.message, "text");
        }
        throw wire;
      }
    },
  }),
};
