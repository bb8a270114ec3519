import { TurngateError } from "../../errors.js";

/** Normalized severity of a parsed diagnostic. */
export type DiagnosticSeverity = "error" | "warning" | "info";

/**
 * Internal helper (not exported from the package): `error` and `warning` map to
 * themselves, any other severity word (tsc `message`, SARIF `note`/`none`) to `info`.
 */
export function severityOfWord(word: string): DiagnosticSeverity {
  return word === "error" ? "error" : word === "warning" ? "warning" : "info";
}

/**
 * One diagnostic as every parser returns it (wire keys). `line`/`column` are 1-based (null
 * when the tool gives none); `code` is the tool's rule or error code; `source` names the
 * tool (`tsc`, `eslint`, the SARIF driver, `rustc`/`clippy`, `ruff`, `pyright`, `go vet`,
 * the rdjson source). SARIF results keep their `partialFingerprints` as `fingerprints`.
 */
export interface ParsedDiagnostic {
  path: string | null;
  line: number | null;
  column: number | null;
  severity: DiagnosticSeverity;
  code: string | null;
  message: string;
  source: string;
  fingerprints?: Record<string, string>;
}

/** Input a parser could not turn into a diagnostic: the 1-based line (line formats) or the JSON pointer (document formats). */
export interface UnparsedInput {
  line: number | null;
  pointer: string | null;
  text: string;
  reason: string;
}

/** Result of `parseDiagnostics`: ready to pass as one side of `diagnosticDelta`. */
export interface ParsedDiagnostics {
  schema: "turngate.parsed_diagnostics.v1";
  format: DiagnosticFormat;
  diagnostics: ParsedDiagnostic[];
  unparsed: UnparsedInput[];
}

/** Output formats `parseDiagnostics` reads. */
export const DIAGNOSTIC_FORMATS = [
  "tsc",
  "eslint",
  "sarif",
  "cargo",
  "ruff",
  "pyright",
  "go_vet",
  "rdjson",
  "rdjsonl",
] as const;

export type DiagnosticFormat = (typeof DIAGNOSTIC_FORMATS)[number];

/**
 * Tool output that cannot be read at all (a JSON document that is not JSON, or not the
 * expected shape at its root). `code` is `"diagnostic_parse_error"`; `path` is the JSON
 * pointer of the offending value (`""` for the whole text); `format` names the parser.
 */
export class DiagnosticParseError extends TurngateError {
  readonly path: string;
  readonly format: string;
  constructor(format: string, path: string, message: string) {
    super(
      "diagnostic_parse_error",
      `cannot parse ${format} output${path === "" ? "" : ` at ${path}`}: ${message}`,
    );
    this.name = "DiagnosticParseError";
    this.path = path;
    this.format = format;
  }
}

/** Parser contract: raw text in, diagnostics plus unparsed input out. */
export type DiagnosticParser = (text: string) => {
  diagnostics: ParsedDiagnostic[];
  unparsed: UnparsedInput[];
};
