/**
 * The failure digest (issue 34 items 1 and 2): what every channel says about a check that
 * did not pass — `run`, `verify`, every hook adapter, `show`, `--json` and the bridge. The
 * failing tests' names, each with the first lines of its failure (the assertion: expected
 * and got, not only a `panicked at file:line:` header), then the last lines of the output,
 * bounded to a number of characters the reader's channel shows.
 *
 * Pure: no I/O. The failing tests come from the check's structured results when it has
 * them; otherwise from the output itself, read as the stream it is (TAP, `go test -json`,
 * cargo's libtest text, mocha's, vitest's or jest's default report; `sniffFailures`).
 */

import { parseTestResults } from "./index.js";
import { parseMochaSpec, parseRunnerReport } from "./runner-text.js";
import type { ParsedTest, ParsedTestResults, TestResultFormat, TestSuiteError } from "./types.js";

/**
 * Characters a failure digest may take by default: Claude Code injects hook output into the
 * model's context up to 10,000 characters and replaces a longer one by a file path and a
 * 2 KB preview (code.claude.com/docs/en/hooks, "Hook output"); no other harness turngate
 * plugs into documents a smaller bound. docs/hooks.md cites it.
 */
export const FAILURE_DIGEST_MAX_CHARS = 10_000;

/** Failing tests listed at most; the rest are counted (`… N more failing tests`). */
export const FAILURE_DIGEST_TESTS = 20;

/** Lines of one test's failure quoted at most (its first lines, blank ones dropped). */
export const FAILURE_DIGEST_MESSAGE_LINES = 8;

/** Lines of output quoted after the failing tests, and when no test is named. */
export const FAILURE_DIGEST_TAIL_LINES = { named: 10, unnamed: 20 } as const;

/** Longest quoted line, in characters (a longer one ends with `…`). */
export const FAILURE_DIGEST_LINE_CHARS = 400;

/** One failing test or suite error as the digest names it. */
export interface FailureDigestEntry {
  /** `test` (a failed test), `errored` (a test that could not reach a verdict), `suite` (a suite error). */
  kind: "test" | "errored" | "suite";
  /** The test id, or the suite / file a suite error belongs to (`suite` when unknown). */
  id: string;
  /** The first lines of its failure (at most `FAILURE_DIGEST_MESSAGE_LINES`), dedented. */
  message: string[];
}

/** Input of `failureDigest`. */
export interface FailureDigestInput {
  /** The check's structured results, when it declared them and they were read. */
  results?: ParsedTestResults | null | undefined;
  /** The check's captured output (stdout and stderr together). */
  output: string;
  /** Where the full log is, as the reader should see it (a relative path), or null. */
  logPath?: string | null | undefined;
  /** Bound on the joined lines (`lines.join("\n").length`), in characters; default `FAILURE_DIGEST_MAX_CHARS`. */
  maxChars?: number | undefined;
  /** Applied to every quoted line (test ids, messages, tail lines), e.g. a terminal-safety filter. Default: controls escaped, capped at `FAILURE_DIGEST_LINE_CHARS`. */
  safeLine?: ((line: string) => string) | undefined;
}

/** Result of `failureDigest`. */
export interface FailureDigest {
  /** `results`: from the check's structured results; `output`: read from the output stream; `none`: no test named. */
  source: "results" | "output" | "none";
  /** The format the failing tests were read in, null when none. */
  format: TestResultFormat | "mocha_spec" | "runner_report" | null;
  /** Every failing test and suite error found (not only those listed). */
  entries: FailureDigestEntry[];
  /** Failing tests in the results (`entries` of kind test/errored). */
  failing: number;
  /** All tests in the results, when known. */
  total: number | null;
  /** The lines to print, unindented; their joined length is at most `maxChars`. */
  lines: string[];
}

const ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/gu;

function defaultSafe(line: string): string {
  const clean = line
    // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are removed
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(ESCAPES, (c) => {
      // Controls, and characters invisible in a terminal that a model still reads (tags).
      const cp = c.codePointAt(0) as number;
      return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, "0")}`;
    });
  return clean.length > FAILURE_DIGEST_LINE_CHARS
    ? `${clean.slice(0, FAILURE_DIGEST_LINE_CHARS)}…`
    : clean;
}

const STACK_FRAME = /^\s*at\s.*(:\d+:\d+\)?|\(<anonymous>\)|\(native\))$/;

/**
 * The first `max` non-blank lines of a failure message, right-trimmed and dedented by their
 * common indent; of a stack trace only its first frame is kept (the rest is the runner's),
 * and Rust's `RUST_BACKTRACE` hint is dropped. Pure.
 */
export function messageLines(text: string | null, max: number = FAILURE_DIGEST_MESSAGE_LINES) {
  const lines = (text ?? "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .filter((l) => l.trim() !== "" && !/^note: run with `RUST_BACKTRACE=1`/.test(l.trim()));
  // The first stack frame says where; the frames below it are the runner's own.
  const firstFrame = lines.findIndex((l) => STACK_FRAME.test(l));
  const kept =
    firstFrame < 0 ? lines : lines.filter((l, i) => i <= firstFrame || !STACK_FRAME.test(l));
  const shown = kept.slice(0, max);
  const indent = Math.min(...shown.map((l) => l.length - l.trimStart().length));
  return shown.map((l) => (Number.isFinite(indent) ? l.slice(indent) : l));
}

/** The text of a `go test -json` stream as the tests printed it (each event's `Output`); other lines as they are. */
export function plainOutput(format: TestResultFormat | null, output: string): string {
  if (format !== "go_test_json") return output;
  let text = "";
  for (const line of output.split("\n")) {
    if (!line.trimStart().startsWith("{")) {
      text += `${line}\n`;
      continue;
    }
    try {
      const event = JSON.parse(line) as { Action?: unknown; Output?: unknown };
      if (typeof event.Output === "string") text += event.Output;
    } catch {
      text += `${line}\n`;
    }
  }
  return text;
}

function entriesOf(tests: readonly ParsedTest[], errors: readonly TestSuiteError[]) {
  const entries: FailureDigestEntry[] = [];
  for (const t of tests) {
    if (t.status !== "failed" && t.status !== "errored") continue;
    entries.push({
      kind: t.status === "errored" ? "errored" : "test",
      id: t.id,
      message: messageLines(t.message),
    });
  }
  for (const e of errors)
    entries.push({
      kind: "suite",
      id: e.suite ?? e.file ?? "suite",
      message: messageLines(e.message),
    });
  return entries;
}

/** The TAP reader's suite errors about the stream's shape, not the code (a truncated tail). */
const TAP_STRUCTURE_ERROR =
  /^(?:no plan line \(1\.\.N\)|plan 1\.\.\d+ but \d+ test points arrived|subtest .* ended without a test point)/;

function tryParse(format: TestResultFormat, text: string): ParsedTestResults | null {
  try {
    return parseTestResults(format, text);
  } catch {
    return null;
  }
}

/**
 * The failing tests a runner's output names, read as the stream it is, or null when it names
 * none. Tried in order: TAP (a `not ok` line: tape, node-tap, mocha's tap reporter — other
 * lines, such as nyc's coverage table after the failures, are skipped), `go test -json`
 * (a `{"Action":` event), cargo's libtest text (`test … ... FAILED`), mocha's default
 * report (`N failing`), vitest's and jest's default reports (`FAIL  file > test`,
 * `● suite › test`). When more than one reading names failing tests, all of them are listed
 * (the first reading's format, the total unknown), so a stray `not ok` line cannot hide the
 * runner's own report. Pure; never throws.
 */
export function sniffFailures(output: string): {
  format: FailureDigest["format"];
  entries: FailureDigestEntry[];
  failing: number;
  total: number | null;
} | null {
  type Found = NonNullable<ReturnType<typeof sniffFailures>>;
  const found: Found[] = [];
  const structured: Array<[TestResultFormat, RegExp]> = [
    ["tap", /^\s*not ok\b/m],
    ["go_test_json", /^\s*\{.*"Action":/m],
    ["libtest", /^test .+ \.\.\. FAILED$/m],
  ];
  for (const [format, marker] of structured) {
    if (!marker.test(output)) continue;
    const parsed = tryParse(format, output);
    if (parsed === null) continue;
    // A stream that is only partly TAP (a tail after a failed build) names its suite errors
    // only as "no plan": those say nothing about the code. Its other suite errors do (a test
    // file that failed to load, with the error node printed for it).
    const entries = entriesOf(
      parsed.tests,
      format === "tap"
        ? parsed.errors.filter((e) => !TAP_STRUCTURE_ERROR.test(e.message))
        : parsed.errors,
    );
    if (entries.length === 0) continue;
    found.push({
      format,
      entries,
      failing: entries.filter((e) => e.kind !== "suite").length,
      total: parsed.totals.tests,
    });
  }
  for (const read of [parseMochaSpec, parseRunnerReport]) {
    const report = read(output);
    if (report === null || report.tests.length === 0) continue;
    const entries = entriesOf(report.tests, []);
    found.push({ format: report.format, entries, failing: entries.length, total: null });
  }
  const [first, ...others] = found;
  if (first === undefined) return null;
  if (others.length === 0) return first;
  // Several readings name failing tests (e.g. one stray `not ok` line logged inside a vitest
  // report): every one is listed, so a line the check printed cannot hide the real failure,
  // and the total is unknown.
  const seen = new Set<string>();
  const entries = found
    .flatMap((f) => f.entries)
    .filter((e) => {
      const key = `${e.kind}\u0000${e.id}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  return {
    format: first.format,
    entries,
    failing: entries.filter((e) => e.kind !== "suite").length,
    total: null,
  };
}

interface Shape {
  tests: number;
  messageLines: number;
  tailLines: number;
}

/**
 * The failure digest of one check that did not pass (issue 34): a header with the counts
 * and the log, one `✗ id` line per failing test (`✗ id (errored)`; `! suite: …` per suite
 * error) followed by the first lines of its failure indented by four spaces, then `last N
 * lines:` (with the log when no test is named) and one `| line` per line. The failing tests come from `results` when they
 * name any, else from the output (`sniffFailures`); with none, the digest is the last
 * `FAILURE_DIGEST_TAIL_LINES.unnamed` lines (with the log). A `go test -json` output's tail
 * is the tests' own text (`plainOutput`), not the JSON events.
 *
 * Bounded: when the joined lines exceed `maxChars` the tail shrinks first (10 → 5 → 0
 * lines), then each failure's lines (8 → 3 → 1), then tests are dropped from the end and
 * counted (`… N more failing tests; full log: …`); a last resort cuts the lines. Every
 * quoted line passes through `safeLine`. Input: see `FailureDigestInput`. Pure; never
 * throws.
 */
export function failureDigest(input: FailureDigestInput): FailureDigest {
  const maxChars = Math.max(200, Math.floor(input.maxChars ?? FAILURE_DIGEST_MAX_CHARS));
  const safe = input.safeLine ?? defaultSafe;
  const results = input.results ?? null;
  let source: FailureDigest["source"] = "none";
  let format: FailureDigest["format"] = null;
  let entries: FailureDigestEntry[] = [];
  let total: number | null = null;
  if (results !== null) {
    entries = entriesOf(results.tests, results.errors);
    if (entries.length > 0) {
      source = "results";
      format = results.format;
      total = results.totals.tests;
    }
  }
  const text = plainOutput(results?.format ?? null, input.output);
  if (entries.length === 0) {
    const sniffed = sniffFailures(input.output);
    if (sniffed !== null) {
      source = "output";
      format = sniffed.format;
      entries = sniffed.entries;
      total = sniffed.total;
    }
  }
  const failing = entries.filter((e) => e.kind !== "suite").length;
  const suites = entries.length - failing;
  const outputLines = text.replace(/\s+$/, "").split("\n");
  const hasOutput = !(outputLines.length === 1 && outputLines[0] === "");
  const log = input.logPath ? `full log: ${input.logPath}` : null;

  const render = (shape: Shape): string[] => {
    const lines: string[] = [];
    if (entries.length > 0) {
      const counts = [
        `${failing}${total !== null ? ` of ${total}` : ""}`,
        ...(suites > 0 ? [`${suites} suite ${suites === 1 ? "error" : "errors"}`] : []),
        ...(log !== null ? [log] : []),
      ];
      lines.push(`failing tests (${counts.join("; ")}):`);
      for (const entry of entries.slice(0, shape.tests)) {
        const head =
          entry.kind === "suite"
            ? `! ${entry.id}:`
            : `✗ ${entry.id}${entry.kind === "errored" ? " (errored)" : ""}`;
        lines.push(`  ${safe(head)}`);
        for (const m of entry.message.slice(0, shape.messageLines)) lines.push(`      ${safe(m)}`);
      }
      if (entries.length > shape.tests)
        lines.push(
          `  … ${entries.length - shape.tests} more failing ${entries.length - shape.tests === 1 ? "test" : "tests"}${log !== null ? ` (${log})` : ""}`,
        );
    }
    if (hasOutput && shape.tailLines > 0) {
      const tail = outputLines.slice(-shape.tailLines);
      const where = entries.length === 0 && log !== null ? ` (${log})` : "";
      lines.push(`last ${tail.length} ${tail.length === 1 ? "line" : "lines"}${where}:`);
      for (const line of tail) lines.push(`| ${safe(line.replace(/\r$/, ""))}`);
    }
    return lines;
  };
  const fits = (lines: string[]) => lines.join("\n").length <= maxChars;

  const named = entries.length > 0;
  const tailSteps = named
    ? [FAILURE_DIGEST_TAIL_LINES.named, 5, 0]
    : [FAILURE_DIGEST_TAIL_LINES.unnamed, 10, 5, 0];
  const shape: Shape = {
    tests: Math.min(entries.length, FAILURE_DIGEST_TESTS),
    messageLines: FAILURE_DIGEST_MESSAGE_LINES,
    tailLines: tailSteps[0] as number,
  };
  let lines = render(shape);
  for (const tail of tailSteps.slice(1)) {
    if (fits(lines)) break;
    shape.tailLines = tail;
    lines = render(shape);
  }
  for (const count of [3, 1]) {
    if (fits(lines)) break;
    shape.messageLines = count;
    lines = render(shape);
  }
  while (!fits(lines) && shape.tests > 1) {
    shape.tests -= 1;
    lines = render(shape);
  }
  if (!fits(lines)) {
    const kept: string[] = [];
    let used = 0;
    for (const line of lines) {
      if (used + line.length + 1 > maxChars - 40) break;
      kept.push(line);
      used += line.length + 1;
    }
    kept.push("… (cut to fit)");
    lines = kept;
  }
  return { source, format, entries, failing, total, lines };
}
