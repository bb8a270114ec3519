package turngate

import (
	"reflect"
	"strings"
	"testing"
)

// A failing check's FailureDigest through the Go binding against the real bridge (issue 34
// item 1: every channel names the failing test with its assertion, then a tail).
func TestFailureDigestNamesTheFailingTest(t *testing.T) {
	ctx := t.Context()
	session, root := realSession(t)
	writeFile(t, root, "tap.txt", strings.Join([]string{
		"TAP version 13", "ok 1 - adds", "not ok 2 - subtracts", "  ---",
		"    expected: 1", "    actual:   2", "  ...", "1..2",
	}, "\n")+"\n")
	commands := []VerificationCommand{
		{ID: "ok", Kind: "test", Description: "passes", Command: "true", Required: true},
		{ID: "tape", Kind: "test", Description: "tape", Command: "cat tap.txt; exit 1", Required: true},
	}
	result, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "unit", Commands: commands})
	if err != nil {
		t.Fatal(err)
	}
	if len(result.Runs) != 2 {
		t.Fatalf("runs %s", mustJSON(t, result.Runs))
	}
	if got := result.Runs[0].FailureDigest; len(got) != 0 {
		t.Fatalf("a passing check has no failure digest, got %q", got)
	}
	digest := result.Runs[1].FailureDigest
	if len(digest) == 0 || !strings.HasPrefix(digest[0], "failing tests (1 of 2; full log: file://") {
		t.Fatalf("header: %q", digest)
	}
	want := []string{
		"  ✗ subtracts", "      expected: 1", "      actual: 2", "last 8 lines:",
		"| TAP version 13", "| ok 1 - adds", "| not ok 2 - subtracts", "|   ---",
		"|     expected: 1", "|     actual:   2", "|   ...", "| 1..2",
	}
	if !reflect.DeepEqual(digest[1:], want) {
		t.Fatalf("failure digest %q, want %q", digest[1:], want)
	}
}
