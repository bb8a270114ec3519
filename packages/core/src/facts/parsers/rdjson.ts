import * as z from "zod";
import { parseJsonRecord, positiveOrNull, readJsonRoot, unparsedElement } from "./json-util.js";
import type {
  DiagnosticParser,
  DiagnosticSeverity,
  ParsedDiagnostic,
  UnparsedInput,
} from "./types.js";

const Severity = z.union([
  z.enum(["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]),
  z.number().int().min(0).max(3),
]);
const Source = z.looseObject({ name: z.string().optional() });

/** One reviewdog rdjson `Diagnostic`. */
export const RdjsonDiagnosticSchema = z.looseObject({
  message: z.string(),
  location: z
    .looseObject({
      path: z.string().optional(),
      range: z
        .looseObject({
          start: z
            .looseObject({ line: z.number().int().optional(), column: z.number().int().optional() })
            .optional(),
        })
        .optional(),
    })
    .optional(),
  severity: Severity.optional(),
  source: Source.optional(),
  code: z.looseObject({ value: z.string().optional() }).optional(),
});

/** reviewdog rdjson `DiagnosticResult`. */
export const RdjsonResultSchema = z.looseObject({
  source: Source.optional(),
  severity: Severity.optional(),
  diagnostics: z.array(z.unknown()),
});

type Sev = z.infer<typeof Severity>;

function severity(value: Sev | undefined): DiagnosticSeverity {
  if (value === "WARNING" || value === 2) return "warning";
  if (value === "INFO" || value === 3) return "info";
  return "error";
}

function toDiagnostic(
  d: z.infer<typeof RdjsonDiagnosticSchema>,
  defaults: { severity?: Sev; source?: string },
): ParsedDiagnostic {
  const start = d.location?.range?.start;
  const path = d.location?.path;
  return {
    path: path === undefined || path === "" ? null : path,
    line: positiveOrNull(start?.line),
    column: positiveOrNull(start?.column),
    severity: severity(d.severity ?? defaults.severity),
    code: d.code?.value ?? null,
    message: d.message,
    source: d.source?.name ?? defaults.source ?? "reviewdog",
  };
}

/**
 * reviewdog rdjson: one `DiagnosticResult` document `{source?, severity?, diagnostics: [{
 * message, location: {path, range: {start: {line, column}}}, severity?, source?, code?:
 * {value}}]}`. Severity (`ERROR`/`WARNING`/`INFO` or 1–3) falls back to the result's; an
 * unknown or absent severity counts as error. Code = `code.value`; source = the
 * diagnostic's, else the result's `source.name`, else `reviewdog`. Lines and columns are
 * 1-based as in rdjson. Entries that do not match go to `unparsed` with their pointer.
 */
export const parseRdjson: DiagnosticParser = (text) => {
  const root = readJsonRoot("rdjson", RdjsonResultSchema, text);
  const diagnostics: ParsedDiagnostic[] = [];
  const unparsed: UnparsedInput[] = [];
  const defaults = { severity: root.severity, source: root.source?.name };
  root.diagnostics.forEach((raw, i) => {
    const d = RdjsonDiagnosticSchema.safeParse(raw);
    if (!d.success) unparsed.push(unparsedElement(`/diagnostics/${i}`, raw, d.error));
    else diagnostics.push(toDiagnostic(d.data, defaults));
  });
  return { diagnostics, unparsed };
};

/**
 * reviewdog rdjsonl: one rdjson `Diagnostic` JSON object per line (fields as
 * {@link parseRdjson}). Blank lines are skipped; any other line that is not a diagnostic
 * object is `unparsed` with its line number.
 */
export const parseRdjsonl: DiagnosticParser = (text) => {
  const diagnostics: ParsedDiagnostic[] = [];
  const unparsed: UnparsedInput[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    const value = parseJsonRecord(line, i + 1, raw, unparsed);
    if (value === undefined) return;
    const d = RdjsonDiagnosticSchema.safeParse(value);
    if (!d.success) {
      unparsed.push({
        line: i + 1,
        pointer: null,
        text: raw,
        reason: d.error.issues[0]?.message ?? "unexpected shape",
      });
      return;
    }
    diagnostics.push(toDiagnostic(d.data, {}));
  });
  return { diagnostics, unparsed };
};
