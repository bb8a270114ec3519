import { TurngateValidationError } from "../../errors.js";
import { kindOf } from "../../validate.js";
import { parseCargo } from "./cargo.js";
import { parseEslint } from "./eslint.js";
import { parseGoVet } from "./go-vet.js";
import { parsePyright } from "./pyright.js";
import { parseRdjson, parseRdjsonl } from "./rdjson.js";
import { parseRuff } from "./ruff.js";
import { parseSarif } from "./sarif.js";
import { parseTsc } from "./tsc.js";
import {
  DIAGNOSTIC_FORMATS,
  type DiagnosticFormat,
  type DiagnosticParser,
  type ParsedDiagnostics,
} from "./types.js";

export type {
  DiagnosticFormat,
  DiagnosticParser,
  DiagnosticSeverity,
  ParsedDiagnostic,
  ParsedDiagnostics,
  UnparsedInput,
} from "./types.js";
export { DIAGNOSTIC_FORMATS, DiagnosticParseError } from "./types.js";
export {
  parseCargo,
  parseEslint,
  parseGoVet,
  parsePyright,
  parseRdjson,
  parseRdjsonl,
  parseRuff,
  parseSarif,
  parseTsc,
};

const PARSERS: Record<DiagnosticFormat, DiagnosticParser> = {
  tsc: parseTsc,
  eslint: parseEslint,
  sarif: parseSarif,
  cargo: parseCargo,
  ruff: parseRuff,
  pyright: parsePyright,
  go_vet: parseGoVet,
  rdjson: parseRdjson,
  rdjsonl: parseRdjsonl,
};

/**
 * Parses one tool's raw output into diagnostics `{path, line, column, severity, code,
 * message, source}` plus the input it could not read.
 *
 * `format`: `tsc` (`tsc --pretty false` text), `eslint` (`-f json`), `sarif` (2.1.0),
 * `cargo` (`cargo check|clippy --message-format=json`), `ruff` (`--output-format=json`),
 * `pyright` (`--outputjson`), `go_vet` (`go vet -json`), `rdjson` / `rdjsonl` (reviewdog).
 * Returns `{schema: "turngate.parsed_diagnostics.v1", format, diagnostics, unparsed}`; the
 * result can be passed directly as one side of `diagnosticDelta`. Note: a run whose output
 * could not be read has `unparsed` entries and may have no diagnostics — pair the parse
 * with the tool's exit status before treating an empty list as a pass.
 *
 * Throws `TurngateValidationError` (path `format` / `text`) for an unknown format or
 * non-string text, and `DiagnosticParseError` (code `diagnostic_parse_error`) when a
 * JSON-document format is not JSON or not the expected shape at its root. Pure.
 */
export function parseDiagnostics(format: DiagnosticFormat, text: string): ParsedDiagnostics {
  const parser =
    typeof format === "string"
      ? (PARSERS as Record<string, DiagnosticParser | undefined>)[format]
      : undefined;
  if (typeof format !== "string" || parser === undefined || !Object.hasOwn(PARSERS, format)) {
    const given = typeof format === "string" ? JSON.stringify(format) : kindOf(format);
    throw new TurngateValidationError("diagnostic parse request", [
      {
        path: "format",
        message: `unknown format ${given}; expected one of ${DIAGNOSTIC_FORMATS.join(", ")}`,
      },
    ]);
  }
  if (typeof text !== "string") {
    throw new TurngateValidationError("diagnostic parse request", [
      { path: "text", message: "must be a string" },
    ]);
  }
  const { diagnostics, unparsed } = parser(text);
  return { schema: "turngate.parsed_diagnostics.v1", format, diagnostics, unparsed };
}
