import { TurngateError } from "../../errors.js";

/** Normalized outcome of one test. `errored`: the test could not run to a verdict (a setup/fixture error, a JUnit `<error>`). */
export type TestStatus = "passed" | "failed" | "skipped" | "errored";

/**
 * One test as every parser returns it (wire keys). `id` is unique within one result and
 * stable across runs of the same suite (it is what vanished-test tracking compares):
 * the tool's own id where it has one (pytest node id, `package::Test/sub` for go, the
 * libtest path), else the suite path and name joined by `::`. `suite` is the enclosing
 * suite path (`" > "`-joined for nested suites), `file` the source file when the tool
 * names it, `duration_ms` milliseconds (null when the tool gives none), `message` the
 * failure/error/skip text (capped at `TEST_MESSAGE_MAX_CHARS`), null when none.
 */
export interface ParsedTest {
  id: string;
  name: string;
  suite: string | null;
  file: string | null;
  status: TestStatus;
  duration_ms: number | null;
  message: string | null;
}

/** Counts over `tests` by status; `tests` is their number. */
export interface TestTotals {
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
  errored: number;
}

/**
 * A failure that belongs to no single test: a collection or build error, an unhandled
 * error after a test ended, a suite hook that failed, a run the tool itself flagged as
 * unsuccessful without a failing test. `suite`/`file` locate it when the tool does.
 */
export interface TestSuiteError {
  suite: string | null;
  file: string | null;
  message: string;
}

/** Input a parser could not read: the 1-based line (line formats) or the JSON pointer (document formats). */
export interface UnparsedTestInput {
  line: number | null;
  pointer: string | null;
  text: string;
  reason: string;
}

/** Formats `parseTestResults` reads. */
export const TEST_RESULT_FORMATS = [
  "junit",
  "tap",
  "ctrf",
  "go_test_json",
  "jest_json",
  "pytest_reportlog",
  "libtest",
] as const;

export type TestResultFormat = (typeof TEST_RESULT_FORMATS)[number];

/** Result of `parseTestResults` (`turngate.parsed_test_results.v1`). */
export interface ParsedTestResults {
  schema: "turngate.parsed_test_results.v1";
  format: TestResultFormat;
  tests: ParsedTest[];
  totals: TestTotals;
  errors: TestSuiteError[];
  unparsed: UnparsedTestInput[];
}

/** What one format's parser returns before ids are made unique and totals counted. */
export interface RawTestResults {
  tests: ParsedTest[];
  errors: TestSuiteError[];
  unparsed: UnparsedTestInput[];
}

/** Parser contract: raw text in, tests, suite errors and unparsed input out. */
export type TestResultParser = (text: string) => RawTestResults;

/** Longest `message` kept per test or suite error, in UTF-16 code units (longer ones end with `…`). */
export const TEST_MESSAGE_MAX_CHARS = 4000;

/**
 * A results document that cannot be read at all: not XML/JSON, truncated, nested deeper
 * than `MAX_JSON_DEPTH`, or not the expected shape at its root. `code` is
 * `"test_results_parse_error"`; `path` is the JSON pointer of the offending value (`""` for
 * the whole text; `line:N` for an XML error); `format` names the parser.
 */
export class TestResultsParseError extends TurngateError {
  readonly path: string;
  readonly format: string;
  constructor(format: string, path: string, message: string) {
    super(
      "test_results_parse_error",
      `cannot parse ${format} test results${path === "" ? "" : ` at ${path}`}: ${message}`,
    );
    this.name = "TestResultsParseError";
    this.path = path;
    this.format = format;
  }
}
