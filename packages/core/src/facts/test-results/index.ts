import { TurngateValidationError } from "../../errors.js";
import { kindOf } from "../../validate.js";
import { parseCtrf } from "./ctrf.js";
import { parseGoTestJson } from "./go-test-json.js";
import { parseJestJson } from "./jest-json.js";
import { parseJunit } from "./junit.js";
import { parseLibtest } from "./libtest.js";
import { parsePytestReportlog } from "./pytest-reportlog.js";
import { parseTap } from "./tap.js";
import {
  type ParsedTestResults,
  TEST_RESULT_FORMATS,
  type TestResultFormat,
  type TestResultParser,
  TestResultsParseError,
} from "./types.js";
import { countTotals, uniqueIds } from "./util.js";

export {
  FAILURE_DIGEST_LINE_CHARS,
  FAILURE_DIGEST_MAX_CHARS,
  FAILURE_DIGEST_MESSAGE_LINES,
  FAILURE_DIGEST_TAIL_LINES,
  FAILURE_DIGEST_TESTS,
  type FailureDigest,
  type FailureDigestEntry,
  type FailureDigestInput,
  failureDigest,
  messageLines,
  plainOutput,
  sniffFailures,
} from "./failure-digest.js";
export { parseMochaSpec, parseRunnerReport, type RunnerTextFailures } from "./runner-text.js";
export type {
  ParsedTest,
  ParsedTestResults,
  TestResultFormat,
  TestStatus,
  TestSuiteError,
  TestTotals,
  UnparsedTestInput,
} from "./types.js";
export { TEST_MESSAGE_MAX_CHARS, TEST_RESULT_FORMATS, TestResultsParseError } from "./types.js";

const PARSERS: Record<TestResultFormat, TestResultParser> = {
  junit: parseJunit,
  tap: parseTap,
  ctrf: parseCtrf,
  go_test_json: parseGoTestJson,
  jest_json: parseJestJson,
  pytest_reportlog: parsePytestReportlog,
  libtest: parseLibtest,
};

/**
 * Parses a test runner's machine-readable results into `{schema:
 * "turngate.parsed_test_results.v1", format, tests: [{id, name, suite, file, status,
 * duration_ms, message}], totals: {tests, passed, failed, skipped, errored}, errors:
 * [{suite, file, message}], unparsed: [{line, pointer, text, reason}]}` (issue #16).
 *
 * `format`: `junit` (surefire, pytest `--junitxml`, jest-junit, gotestsum, node's junit
 * reporter), `tap` (13/14 with subtests and YAML diagnostics), `ctrf`, `go_test_json`
 * (`go test -json`), `jest_json` (Jest `--json`, Vitest `--reporter=json`),
 * `pytest_reportlog` (pytest `--report-log`), `libtest` (cargo test's stable text).
 * Test ids are unique within the result (a repeated id gets `#2`, `#3`, …). `errors` are
 * failures no single test carries (collection/build errors, unhandled errors, failed
 * hooks, counts that do not add up); a consumer must treat them like failed tests.
 * Durations are milliseconds.
 *
 * Throws `TurngateValidationError` (path `format` / `text`) for an unknown format or a
 * non-string text, and `TestResultsParseError` (code `test_results_parse_error`) for empty
 * text, an XML/JSON document that is malformed, truncated, nested deeper than
 * `MAX_JSON_DEPTH` or of the wrong shape at its root. Line formats never throw on a bad
 * line: it is `unparsed`. Pure.
 */
export function parseTestResults(format: TestResultFormat, text: string): ParsedTestResults {
  if (typeof format !== "string" || !Object.hasOwn(PARSERS, format)) {
    throw new TurngateValidationError("test results parse request", [
      {
        path: "format",
        message: `unknown format ${typeof format === "string" ? JSON.stringify(format) : kindOf(format)}; expected one of ${TEST_RESULT_FORMATS.join(", ")}`,
      },
    ]);
  }
  if (typeof text !== "string") {
    throw new TurngateValidationError("test results parse request", [
      { path: "text", message: "must be a string" },
    ]);
  }
  if (!/[^\s\uFEFF]/.test(text))
    throw new TestResultsParseError(format, "", "empty output (the runner wrote no results)");
  const { tests, errors, unparsed } = uniqueIds(PARSERS[format](text));
  return {
    schema: "turngate.parsed_test_results.v1",
    format,
    tests,
    totals: countTotals(tests),
    errors,
    unparsed,
  };
}
