import * as z from "zod";
import { parseJsonRecord, pointer, positionOf } from "./json-util.js";
import type { DiagnosticParser, ParsedDiagnostic, UnparsedInput } from "./types.js";

/** One `go vet -json` finding. */
export const GoVetFindingSchema = z.looseObject({ posn: z.string(), message: z.string() });

const AnalyzerError = z.looseObject({ error: z.string() });
const TYPECHECK = /^vet: (.+?):(\d+):(\d+): (.*)$/;
// `.` stops at these; a line holding one cannot match TYPECHECK. Checking first keeps the
// lazy `(.+?)` from retrying `(.*)$` at every `:` — quadratic in the line length.
const NON_DOT = /[\r\u2028\u2029]/;
const POSN = /^(.*?):(\d+)(?::(\d+))?$/;

function position(posn: string): Pick<ParsedDiagnostic, "path" | "line" | "column"> {
  const m = POSN.exec(posn);
  if (!m) return { path: posn === "" ? null : posn, line: null, column: null };
  return {
    path: m[1] as string,
    line: positionOf(m[2]),
    column: positionOf(m[3]),
  };
}

/** End index (exclusive) of the JSON object starting at `start`, string-aware; -1 if unclosed. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * 1-based line numbers of ascending offsets into one text, in linear time overall: each call
 * counts only the newlines between the previous offset and this one (issue #11 class 2 — a
 * rescan from the start for every line made the parser quadratic).
 */
class LineCounter {
  private offset = 0;
  private line = 1;
  constructor(private readonly text: string) {}

  /** Line of `index` (≥ every earlier argument). */
  lineOf(index: number): number {
    let nl = this.text.indexOf("\n", this.offset);
    while (nl !== -1 && nl < index) {
      this.line++;
      nl = this.text.indexOf("\n", nl + 1);
    }
    this.offset = index;
    return this.line;
  }
}

/**
 * `go vet -json` output (stdout, optionally mixed with stderr): indented JSON objects
 * `{"<pkg>": {"<analyzer>": [{posn, message, …}] | {error}}}` one after another. Each
 * finding becomes a diagnostic with code = analyzer name, severity warning, position from
 * `posn` (`file:line:col`); an analyzer `{error}` becomes an error diagnostic. `# <pkg>`
 * header lines are skipped; a type-check failure line `vet: file:line:col: message`
 * becomes an error with code `typecheck`. Anything else, and objects that are not valid
 * JSON or not of this shape, are `unparsed`.
 */
export const parseGoVet: DiagnosticParser = (text) => {
  const diagnostics: ParsedDiagnostic[] = [];
  const unparsed: UnparsedInput[] = [];
  const lines = new LineCounter(text);
  let pos = 0;
  while (pos < text.length) {
    let eol = text.indexOf("\n", pos);
    if (eol === -1) eol = text.length;
    const line = text.slice(pos, eol).replace(/\r$/, "");
    const trimmed = line.trim();
    if (trimmed.startsWith("{")) {
      const start = pos + line.indexOf("{");
      const end = objectEnd(text, start);
      const lineNo = lines.lineOf(start);
      if (end === -1) {
        unparsed.push({
          line: lineNo,
          pointer: null,
          text: text.slice(start),
          reason: "unterminated JSON object",
        });
        break;
      }
      const body = text.slice(start, end);
      const doc = parseJsonRecord(body, lineNo, body, unparsed);
      if (doc !== undefined) readDocument(doc, body, lineNo, diagnostics, unparsed);
      const next = text.indexOf("\n", end);
      pos = next === -1 ? text.length : next + 1;
      continue;
    }
    const lineNo = lines.lineOf(pos);
    pos = eol + 1;
    if (trimmed === "" || trimmed.startsWith("# ")) continue;
    const t = NON_DOT.test(trimmed) ? null : TYPECHECK.exec(trimmed);
    if (t) {
      diagnostics.push({
        path: t[1] as string,
        line: positionOf(t[2]),
        column: positionOf(t[3]),
        severity: "error",
        code: "typecheck",
        message: t[4] as string,
        source: "go vet",
      });
      continue;
    }
    unparsed.push({ line: lineNo, pointer: null, text: line, reason: "not go vet -json output" });
  }
  return { diagnostics, unparsed };
};

function readDocument(
  doc: unknown,
  body: string,
  lineNo: number,
  diagnostics: ParsedDiagnostic[],
  unparsed: UnparsedInput[],
): void {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    unparsed.push({
      line: lineNo,
      pointer: null,
      text: body,
      reason: "expected an object keyed by package",
    });
    return;
  }
  for (const [pkg, analyzers] of Object.entries(doc)) {
    if (typeof analyzers !== "object" || analyzers === null || Array.isArray(analyzers)) {
      unparsed.push({
        line: lineNo,
        pointer: pointer([pkg]),
        text: JSON.stringify(analyzers),
        reason: "expected an object keyed by analyzer",
      });
      continue;
    }
    for (const [analyzer, findings] of Object.entries(analyzers as Record<string, unknown>)) {
      const at = pointer([pkg, analyzer]);
      const failed = AnalyzerError.safeParse(findings);
      if (failed.success) {
        diagnostics.push({
          path: null,
          line: null,
          column: null,
          severity: "error",
          code: analyzer,
          message: failed.data.error,
          source: "go vet",
        });
        continue;
      }
      if (!Array.isArray(findings)) {
        unparsed.push({
          line: lineNo,
          pointer: at,
          text: JSON.stringify(findings),
          reason: "expected a list of findings",
        });
        continue;
      }
      findings.forEach((raw, i) => {
        const f = GoVetFindingSchema.safeParse(raw);
        if (!f.success) {
          unparsed.push({
            line: lineNo,
            pointer: `${at}/${i}`,
            text: JSON.stringify(raw),
            reason: f.error.issues[0]?.message ?? "unexpected shape",
          });
          return;
        }
        diagnostics.push({
          ...position(f.data.posn),
          severity: "warning",
          code: analyzer,
          message: f.data.message,
          source: "go vet",
        });
      });
    }
  }
}
