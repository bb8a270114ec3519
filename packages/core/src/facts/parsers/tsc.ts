import type {
  DiagnosticParser,
  DiagnosticSeverity,
  ParsedDiagnostic,
  UnparsedInput,
} from "./types.js";

const LOCATED = /^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/;
const GLOBAL = /^(error|warning|message) (TS\d+): (.*)$/;
// `.` stops at these; a line holding one cannot match either pattern. Checking first keeps
// the lazy `(.+?)` from retrying `(.*)$` at every `(` — quadratic in the line length.
const NON_DOT = /[\r\u2028\u2029]/;

function severity(word: string): DiagnosticSeverity {
  return word === "error" ? "error" : word === "warning" ? "warning" : "info";
}

/**
 * `tsc --pretty false` text: `path(line,col): error TS2322: message` and location-less
 * `error TS6053: message`; indented lines that follow (chained message details such as
 * `  Type 'string' is not assignable to type 'number'.`) are appended to that diagnostic's
 * message with `\n`, so one chained error stays one diagnostic. Blank lines are skipped;
 * any other line is returned in `unparsed`.
 */
export const parseTsc: DiagnosticParser = (text) => {
  const diagnostics: ParsedDiagnostic[] = [];
  const unparsed: UnparsedInput[] = [];
  let last: ParsedDiagnostic | null = null;
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") {
      last = null;
      return;
    }
    if (last !== null && /^[ \t]/.test(line)) {
      last.message = `${last.message}\n${line}`;
      return;
    }
    const dotOnly = !NON_DOT.test(line);
    const m = dotOnly ? LOCATED.exec(line) : null;
    if (m) {
      last = {
        path: m[1] as string,
        line: Number(m[2]),
        column: Number(m[3]),
        severity: severity(m[4] as string),
        code: m[5] as string,
        message: m[6] as string,
        source: "tsc",
      };
      diagnostics.push(last);
      return;
    }
    const g = dotOnly ? GLOBAL.exec(line) : null;
    if (g) {
      last = {
        path: null,
        line: null,
        column: null,
        severity: severity(g[1] as string),
        code: g[2] as string,
        message: g[3] as string,
        source: "tsc",
      };
      diagnostics.push(last);
      return;
    }
    last = null;
    unparsed.push({
      line: i + 1,
      pointer: null,
      text: line,
      reason: "not a tsc --pretty false diagnostic line",
    });
  });
  return { diagnostics, unparsed };
};
