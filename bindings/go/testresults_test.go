package turngate

import (
	"errors"
	"strings"
	"testing"
)

// facts.parse_test_results through the real bridge (issue #16), with exact values worked
// out from the parser rules: a TAP stream with a subtest, a skip and a Bail out!.
func TestParseTestResults(t *testing.T) {
	c := realClient(t)
	text := strings.Join([]string{
		"TAP version 14",
		"# Subtest: größe",
		"    ok 1 - inner",
		"    1..1",
		"ok 1 - größe",
		"not ok 2 - broken",
		"  ---",
		"  message: expected 1",
		"  duration_ms: 2.5",
		"  ...",
		"ok 3 - later # SKIP offline",
		"1..3",
		"Bail out! db gone",
	}, "\n")
	got, err := c.ParseTestResults(t.Context(), FormatTap, text)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "tap", *got, ParsedTestResults{
		Schema: "turngate.parsed_test_results.v1",
		Format: FormatTap,
		Tests: []ParsedTest{
			{ID: "größe::inner", Name: "inner", Suite: ptr("größe"), Status: TestPassed},
			{ID: "broken", Name: "broken", Status: TestFailed, DurationMs: ptr(2.5), Message: ptr("expected 1")},
			{ID: "later", Name: "later", Status: TestSkipped, Message: ptr("offline")},
		},
		Totals:   TestTotals{Tests: 3, Passed: 1, Failed: 1, Skipped: 1},
		Errors:   []TestSuiteError{{Message: "Bail out! db gone"}},
		Unparsed: []UnparsedInput{},
	})

	var re *RemoteError
	_, err = c.ParseTestResults(t.Context(), FormatJunit, "<testsuite>")
	if !errors.As(err, &re) || re.Code != "test_results_parse_error" || re.Path != "text" {
		t.Errorf("junit: err = %v, want test_results_parse_error at text", err)
	}
	var ip *InvalidParamsError
	_, err = c.ParseTestResults(t.Context(), TestResultFormat("xunit"), "x")
	if !errors.As(err, &ip) || ip.Path != "format" {
		t.Errorf("xunit: err = %v, want invalid_params at format", err)
	}
}

// A check declaring structured results through Session.VerifyCommands: the report's check
// carries the counts and the failing test ids (issue #16), exit 0 notwithstanding.
func TestVerifyCommandsWithTestResults(t *testing.T) {
	c := realClient(t)
	session, err := c.CreateSession(t.Context(), SessionCreateParams{Root: gitWorkspace(t)})
	if err != nil {
		t.Fatal(err)
	}
	cmd := VerificationCommand{
		ID: "unit", Kind: "test", Description: "unit tests", Required: true,
		Command: `printf 'ok 1 - one\nnot ok 2 - größe\n1..2\n' > {results}`,
		Results: &TestResultsDeclaration{Format: FormatTap},
	}
	got, err := session.VerifyCommands(t.Context(), SessionVerifyCommandsParams{Subject: "tests", Commands: []VerificationCommand{cmd}})
	if err != nil {
		t.Fatal(err)
	}
	check := got.Report.Checks[0]
	mustEqual(t, "check", []any{check.Status, *check.ResidualRisk, *check.Tests, check.FailingTests},
		[]any{StatusFailed, "exit 0 but 1 test failed", CheckTestCounts{Passed: 1, Failed: 1}, []string{"größe"}})
}
