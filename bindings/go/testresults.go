package turngate

import "context"

// TestResultFormat is a results format ParseTestResults reads.
type TestResultFormat string

// The formats: JUnit XML (surefire, pytest --junitxml, jest-junit, gotestsum, node's junit
// reporter), TAP 13/14, CTRF JSON, go test -json, Jest --json / Vitest --reporter=json,
// pytest --report-log and cargo test's libtest text.
const (
	FormatJunit           TestResultFormat = "junit"
	FormatTap             TestResultFormat = "tap"
	FormatCtrf            TestResultFormat = "ctrf"
	FormatGoTestJSON      TestResultFormat = "go_test_json"
	FormatJestJSON        TestResultFormat = "jest_json"
	FormatPytestReportlog TestResultFormat = "pytest_reportlog"
	FormatLibtest         TestResultFormat = "libtest"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (TestResultFormat) Values() []string {
	return []string{"junit", "tap", "ctrf", "go_test_json", "jest_json", "pytest_reportlog", "libtest"}
}

// TestStatus is the outcome of one parsed test; "errored": it could not run to a verdict
// (a setup or fixture error, a JUnit <error>).
type TestStatus string

// The test statuses.
const (
	TestPassed  TestStatus = "passed"
	TestFailed  TestStatus = "failed"
	TestSkipped TestStatus = "skipped"
	TestErrored TestStatus = "errored"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (TestStatus) Values() []string { return []string{"passed", "failed", "skipped", "errored"} }

// ParsedTest is one test: ID is unique within the result and stable across runs (the tool's
// own id where it has one, else "suite::name"); Suite the enclosing suites (" > "-joined),
// File when the tool names it, DurationMs in milliseconds (nil when the tool gives none),
// Message the failure, error or skip text (capped at 4,000 characters).
type ParsedTest struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Suite      *string    `json:"suite"`
	File       *string    `json:"file"`
	Status     TestStatus `json:"status"`
	DurationMs *float64   `json:"duration_ms"`
	Message    *string    `json:"message"`
}

// TestTotals counts the parsed tests by status; Tests is their number.
type TestTotals struct {
	Tests   int `json:"tests"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errored int `json:"errored"`
}

// TestSuiteError is a failure no single test carries (a collection or build error, an
// unhandled error, a failed hook, counts that do not add up): treat it like a failed test.
type TestSuiteError struct {
	Suite   *string `json:"suite"`
	File    *string `json:"file"`
	Message string  `json:"message"`
}

// ParsedTestResults is turngate.parsed_test_results.v1: the tests, their totals, suite-level
// Errors and the Unparsed input. A run is clean only with no failed or errored test, no
// Errors and at least one test — pair it with the runner's exit status.
type ParsedTestResults struct {
	Schema   string           `json:"schema"`
	Format   TestResultFormat `json:"format"`
	Tests    []ParsedTest     `json:"tests"`
	Totals   TestTotals       `json:"totals"`
	Errors   []TestSuiteError `json:"errors"`
	Unparsed []UnparsedInput  `json:"unparsed"`
}

// FactsParseTestResultsParams are the params of facts.parse_test_results.
type FactsParseTestResultsParams struct {
	Format TestResultFormat `json:"format"`
	Text   string           `json:"text"`
}

// ParseTestResults parses a test runner's results file or output (facts.parse_test_results,
// issue #16). An unknown format is an *InvalidParamsError with Path "format"; empty text or
// a malformed, truncated or too deeply nested XML/JSON document is a *RemoteError with Code
// "test_results_parse_error" and Path "text".
func (c *Client) ParseTestResults(ctx context.Context, format TestResultFormat, text string) (*ParsedTestResults, error) {
	var r ParsedTestResults
	if err := c.Call(ctx, "facts.parse_test_results", FactsParseTestResultsParams{Format: format, Text: text}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
