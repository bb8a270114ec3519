import * as z from "zod";
import { parseJsonRecord, positiveOrNull } from "./json-util.js";
import type {
  DiagnosticParser,
  DiagnosticSeverity,
  ParsedDiagnostic,
  UnparsedInput,
} from "./types.js";

const Span = z.looseObject({
  file_name: z.string(),
  line_start: z.number().int(),
  column_start: z.number().int(),
  is_primary: z.boolean(),
});

/** A rustc JSON diagnostic (`message` of a cargo `compiler-message`, or rustc `--error-format=json`). */
export const RustcDiagnosticSchema = z.looseObject({
  message: z.string(),
  code: z.looseObject({ code: z.string() }).nullable().optional(),
  level: z.string(),
  spans: z.array(Span),
});

const SUMMARY =
  /^(aborting due to .*previous errors?|\d+ warnings? emitted|\d+ errors?(?: and \d+ warnings?)? emitted)/;

function severity(level: string): DiagnosticSeverity | null {
  if (level === "failure-note") return null;
  if (level.startsWith("error")) return "error";
  if (level === "warning") return "warning";
  return "info";
}

/**
 * `cargo check|build|clippy --message-format=json` (and rustc `--error-format=json`):
 * one JSON object per line. `compiler-message` records (or bare rustc diagnostics) become
 * diagnostics at their primary span (`is_primary`, else the first span); the code is
 * `message.code.code` (e.g. `E0308`, `clippy::needless_return`); source `clippy` for
 * `clippy::` codes, else `rustc`. Other record kinds (`compiler-artifact`,
 * `build-finished`, …), `failure-note` messages, span-less summaries ("N warnings
 * emitted") and non-JSON lines (cargo's own progress text) are skipped. A line that starts
 * with `{` but is not valid JSON, or a compiler message of the wrong shape, is `unparsed`.
 */
export const parseCargo: DiagnosticParser = (text) => {
  const diagnostics: ParsedDiagnostic[] = [];
  const unparsed: UnparsedInput[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!line.startsWith("{")) return;
    const record = parseJsonRecord(line, i + 1, raw, unparsed);
    if (record === undefined) return;
    if (typeof record !== "object" || record === null) return;
    const r = record as Record<string, unknown>;
    let message: unknown;
    if (r.reason === "compiler-message") message = r.message;
    else if (r.$message_type === "diagnostic" || ("spans" in r && "level" in r)) message = r;
    else return;
    const m = RustcDiagnosticSchema.safeParse(message);
    if (!m.success) {
      const issue = m.error.issues[0];
      unparsed.push({
        line: i + 1,
        pointer: null,
        text: raw,
        reason: `${issue?.path.join(".") ?? ""}: ${issue?.message ?? "unexpected shape"}`,
      });
      return;
    }
    const sev = severity(m.data.level);
    if (sev === null) return;
    if (m.data.spans.length === 0 && SUMMARY.test(m.data.message)) return;
    const span = m.data.spans.find((s) => s.is_primary) ?? m.data.spans[0];
    const code = m.data.code?.code ?? null;
    diagnostics.push({
      path: span?.file_name ?? null,
      line: positiveOrNull(span?.line_start),
      column: positiveOrNull(span?.column_start),
      severity: sev,
      code,
      message: m.data.message,
      source: code?.startsWith("clippy::") ? "clippy" : "rustc",
    });
  });
  return { diagnostics, unparsed };
};
