import { positionOf } from "./json-util.js";
import {
  type DiagnosticParser,
  type ParsedDiagnostic,
  severityOfWord,
  type UnparsedInput,
} from "./types.js";

const LOCATED = /^(.+?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$/;
const GLOBAL = /^(error|warning|message) (TS\d+): (.*)$/;
// `.` stops at these; a line holding one cannot match either pattern. Checking first keeps
// the lazy `(.+?)` from retrying `(.*)$` at every `(` — quadratic in the line length.
const NON_DOT = /[\r\u2028\u2029]/;

/** A tsc diagnostic from its location and the `[severity word, code, message]` captures. */
function diagnostic(
  path: string | null,
  line: number | null,
  column: number | null,
  [word, code, message]: string[],
): ParsedDiagnostic {
  return {
    path,
    line,
    column,
    severity: severityOfWord(word as string),
    code: code as string,
    message: message as string,
    source: "tsc",
  };
}

/**
 * `tsc --pretty false` text: `path(line,col): error TS2322: message` (a line or column
 * of 0 or beyond 2^53−1 becomes null) and location-less
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
    const g = dotOnly && !m ? GLOBAL.exec(line) : null;
    if (m || g) {
      last = m
        ? diagnostic(m[1] as string, positionOf(m[2]), positionOf(m[3]), m.slice(4))
        : diagnostic(null, null, null, (g as RegExpExecArray).slice(1));
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
