package turngate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Clean-room checks (docs/design.md §3b) through the Go binding against the real bridge:
// the session's Isolation and a per-call override pass through, and the result says where
// the checks ran. The fail-closed case forces the sandbox off (TURNGATE_BWRAP=none in the
// bridge's environment) so it runs on every machine.

func TestIsolationCleanRoomRequiredFailsClosedWhenTheSandboxCannotStart(t *testing.T) {
	t.Setenv("TURNGATE_BWRAP", "none")
	ctx := t.Context()
	root := gitWorkspace(t)
	session, err := realClient(t).CreateSession(ctx, SessionCreateParams{Root: root, Options: &SessionOptions{Isolation: IsolationCleanRoom}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "a.txt", "a\n")
	cmd := VerificationCommand{ID: "t", Kind: "test", Description: "t", Command: "true", Required: true}
	result, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "unit", Commands: []VerificationCommand{cmd}, Bind: true})
	if err != nil {
		t.Fatal(err)
	}
	reason := "TURNGATE_BWRAP=none"
	got := result.Isolation
	if got.Mode != "clean-room" || got.Requested != IsolationCleanRoom || got.Available || got.Reason == nil || *got.Reason != reason {
		t.Fatalf("isolation %s", mustJSON(t, result.Isolation))
	}
	if result.Binding.Bound || result.Binding.Reason != BindingIsolationUnavailable || len(result.Runs) != 0 {
		t.Fatalf("binding %s runs %d", mustJSON(t, result.Binding), len(result.Runs))
	}
	outcome, err := session.Decide(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if outcome.Kind != "incomplete" || outcome.Reason != ReasonIsolationUnavailable {
		t.Fatalf("outcome %s", mustJSON(t, outcome))
	}
}

func TestIsolationPerCallOverrideRunsInPlaceAndSaysSo(t *testing.T) {
	ctx := t.Context()
	root := gitWorkspace(t)
	session, err := realClient(t).CreateSession(ctx, SessionCreateParams{Root: root, Options: &SessionOptions{Isolation: IsolationCleanRoom}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "a.txt", "a\n")
	cmd := VerificationCommand{ID: "t", Kind: "test", Description: "t", Command: "test -f a.txt", Required: true}
	result, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "unit", Commands: []VerificationCommand{cmd}, Bind: true, Isolation: IsolationInPlace})
	if err != nil {
		t.Fatal(err)
	}
	if result.Isolation.Mode != "in-place" || result.Isolation.Requested != IsolationInPlace || !result.Isolation.Available {
		t.Fatalf("isolation %s", mustJSON(t, result.Isolation))
	}
	if !result.Binding.Bound {
		t.Fatalf("binding %s", mustJSON(t, result.Binding))
	}
}

func TestIsolationCleanRoomRunsTheChecksOnACopy(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("clean-room test skipped: bubblewrap (bwrap) is not installed")
	}
	t.Setenv("TURNGATE_ROOM_DIR", t.TempDir())
	ctx := t.Context()
	root := gitWorkspace(t)
	session, err := realClient(t).CreateSession(ctx, SessionCreateParams{Root: root, Options: &SessionOptions{Isolation: IsolationAuto}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "a.txt", "a\n")
	// The check writes a file: in the clean room it lands in the copy, so the report binds.
	cmd := VerificationCommand{ID: "t", Kind: "test", Description: "t", Command: "grep -q a a.txt && echo out > new.txt", Required: true}
	result, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "unit", Commands: []VerificationCommand{cmd}, Bind: true})
	if err != nil {
		t.Fatal(err)
	}
	if result.Isolation.Mode != "clean-room" {
		t.Skipf("clean-room test skipped: the sandbox cannot start here (%s)", mustJSON(t, result.Isolation))
	}
	digest := sha256Hex("workspace|a.txt|" + sha256Hex("a\n"))
	if !result.Binding.Bound || *result.Binding.EffectDigest != digest || result.Report.Status != StatusPassed {
		t.Fatalf("binding %s report %s", mustJSON(t, result.Binding), mustJSON(t, result.Report))
	}
}

func TestIsolationSetupOptionRunsTheConfiguredSetupWhenADependencyFolderChanged(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("clean-room test skipped: bubblewrap (bwrap) is not installed")
	}
	t.Setenv("TURNGATE_ROOM_DIR", t.TempDir())
	ctx := t.Context()
	root := gitWorkspace(t)
	writeFile(t, root, ".gitignore", "node_modules/\n")
	setup := "echo setting up; exit 3"
	session, err := realClient(t).CreateSession(ctx, SessionCreateParams{Root: root, Options: &SessionOptions{Isolation: IsolationAuto, Setup: setup}})
	if err != nil {
		t.Fatal(err)
	}
	// The turn changes a dependency folder: the configured setup runs in the room, fails,
	// and no check runs.
	if err := os.MkdirAll(filepath.Join(root, "node_modules", "dep"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "node_modules/dep/index.js", "module.exports = 1;\n")
	cmd := VerificationCommand{ID: "t", Kind: "test", Description: "t", Command: "true", Required: true}
	result, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "unit", Commands: []VerificationCommand{cmd}, Bind: true})
	if err != nil {
		t.Fatal(err)
	}
	if result.Isolation.Mode != "clean-room" {
		t.Skipf("clean-room test skipped: the sandbox cannot start here (%s)", mustJSON(t, result.Isolation))
	}
	if len(result.Runs) != 1 || result.Runs[0].ID != "setup" || result.Runs[0].Status != StatusFailed {
		t.Fatalf("runs %s", mustJSON(t, result.Runs))
	}
	outcome, err := session.Decide(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "completion gate: the dependency setup `" + setup + "` failed in the clean room (it ran because node_modules changed during the turn), so no check ran"
	if outcome.Kind != "incomplete" || outcome.Message == nil || !strings.HasPrefix(*outcome.Message, prefix) {
		t.Fatalf("outcome %s", mustJSON(t, outcome))
	}
}

func TestIsolationSetupOptionOtherThanACommandOrFalseIsRefusedNamingTheField(t *testing.T) {
	root := gitWorkspace(t)
	_, err := realClient(t).CreateSession(t.Context(), SessionCreateParams{Root: root, Options: &SessionOptions{Setup: true}})
	if err == nil || !strings.Contains(err.Error(), "options.setup") {
		t.Fatalf("err %v", err)
	}
}
