import { MAX_JSON_DEPTH } from "../../ledger/json.js";
import {
  type ParsedTest,
  type RawTestResults,
  TEST_MESSAGE_MAX_CHARS,
  TestResultsParseError,
  type TestTotals,
  type UnparsedTestInput,
} from "./types.js";

/** A message trimmed of trailing blank space and capped at `TEST_MESSAGE_MAX_CHARS` (ends with `…` when cut); null for empty text. */
export function capMessage(text: string | null | undefined): string | null {
  if (typeof text !== "string") return null;
  const t = text.replace(/\s+$/, "");
  if (t === "") return null;
  return t.length > TEST_MESSAGE_MAX_CHARS ? `${t.slice(0, TEST_MESSAGE_MAX_CHARS - 1)}…` : t;
}

/** Seconds (number or decimal string) to milliseconds rounded to 3 decimals; null when absent, negative or not a number. */
export function secondsToMs(value: unknown): number | null {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n) || n < 0) return null;
  return Math.round(n * 1e6) / 1e3;
}

/** Milliseconds (number) rounded to 3 decimals; null when absent, negative or not a number. */
export function msOrNull(value: unknown): number | null {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) return null;
  return Math.round(value * 1e3) / 1e3;
}

/**
 * Deepest nesting of `{`/`[` in a JSON text (outside strings), stopping as soon as it
 * passes `limit`: JSON.parse itself is not recursive in V8, but walking its result is.
 */
export function jsonDepthExceeds(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Parses a whole JSON document; throws TestResultsParseError (path `""`) when empty, not JSON or nested deeper than `MAX_JSON_DEPTH`. */
export function parseJsonDocument(format: string, text: string): unknown {
  const body = text.replace(/^\uFEFF/, "").trim();
  if (body === "")
    throw new TestResultsParseError(format, "", "empty output (expected a JSON document)");
  if (jsonDepthExceeds(body))
    throw new TestResultsParseError(format, "", `nests deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(body);
  } catch (err) {
    throw new TestResultsParseError(format, "", `not JSON: ${(err as Error).message}`);
  }
}

/**
 * Parses one record of a JSON-lines output. A syntax error or too deep nesting appends an
 * `unparsed` entry (`line`, the line text) and returns `undefined`.
 */
export function parseJsonLine(body: string, line: number, unparsed: UnparsedTestInput[]): unknown {
  if (jsonDepthExceeds(body)) {
    unparsed.push({
      line,
      pointer: null,
      text: body,
      reason: `nests deeper than ${MAX_JSON_DEPTH} levels`,
    });
    return undefined;
  }
  try {
    return JSON.parse(body);
  } catch (err) {
    unparsed.push({
      line,
      pointer: null,
      text: body,
      reason: `not JSON: ${(err as Error).message}`,
    });
    return undefined;
  }
}

/** Calls `fn(line, lineNumber)` for every line of `text` (1-based; `\r\n` and `\n` ends; the last empty line skipped). */
export function eachLine(text: string, fn: (line: string, lineNo: number) => void): void {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) fn((lines[i] as string).replace(/\r$/, ""), i + 1);
}

/** `a::b::c` from the non-empty parts. */
export function joinId(parts: readonly (string | null | undefined)[]): string {
  return parts.filter((p): p is string => typeof p === "string" && p !== "").join("::");
}

/** Counts tests by status. */
export function countTotals(tests: readonly ParsedTest[]): TestTotals {
  const totals: TestTotals = { tests: tests.length, passed: 0, failed: 0, skipped: 0, errored: 0 };
  for (const t of tests) totals[t.status]++;
  return totals;
}

/**
 * Makes test ids unique in order of appearance: the second test with id `x` becomes
 * `x#2`, the third `x#3` (a tool that reports one name twice, e.g. a parametrized test
 * without parameter ids, still gives every run its own entry).
 */
export function uniqueIds(raw: RawTestResults): RawTestResults {
  const seen = new Map<string, number>();
  let tests: ParsedTest[] | null = null;
  for (let i = 0; i < raw.tests.length; i++) {
    const t = raw.tests[i] as ParsedTest;
    const n = (seen.get(t.id) ?? 0) + 1;
    seen.set(t.id, n);
    if (n > 1) {
      tests ??= raw.tests.slice();
      tests[i] = { ...t, id: `${t.id}#${n}` };
    }
  }
  return tests === null ? raw : { ...raw, tests };
}

/**
 * node's test runner reports each test file it ran in a subprocess as one more entry named
 * by the file's absolute path (classname `test`): passing when the file ran (even with no
 * test in it), failing when the subprocess failed. Such an entry is the file, not a test.
 */
export function isNodeFileEntry(name: string): boolean {
  return /^(\/|[A-Za-z]:[\\/]).*\.[cm]?[jt]sx?$/.test(name);
}
