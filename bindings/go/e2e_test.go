package turngate

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"
)

// The "done when": a Go host creates a session on a git repository, observes a
// write, records a bound report and gets `verified`. Expected digests are computed here
// from the reference rules (a3s-completion-gate.md §2.2), not taken from the bridge.
func TestEndToEndObserveWriteRecordBoundReportVerified(t *testing.T) {
	ctx := t.Context()
	session, root := realSession(t)

	writeFile(t, root, "hello.txt", "hello\n")
	observed, err := session.ObserveTool(ctx, "Write", 0, map[string]any{"file_path": "hello.txt", "after": "hello\n"})
	if err != nil {
		t.Fatal(err)
	}
	content := sha256Hex("hello\n")
	digest := sha256Hex("write|hello.txt|" + content)
	if observed.EffectDigest != digest {
		t.Fatalf("effect digest %s, want %s", observed.EffectDigest, digest)
	}
	if want := []MutationRecord{{Tool: "write", Path: "hello.txt", ContentDigest: content}}; !reflect.DeepEqual(observed.Added, want) {
		t.Fatalf("added %+v, want %+v", observed.Added, want)
	}

	outcome, err := session.Decide(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if outcome.Kind != OutcomeIncomplete || outcome.Reason != ReasonUnverifiedMutation || outcome.EffectDigest == nil || *outcome.EffectDigest != digest || !reflect.DeepEqual(outcome.Paths, []string{"hello.txt"}) {
		t.Fatalf("before the report: %s", mustJSON(t, outcome))
	}

	report := VerificationReport{
		Subject:      "unit tests",
		Status:       StatusPassed,
		Checks:       []VerificationCheck{{ID: "unit", Kind: "test", Description: "go test ./...", Status: StatusPassed, Required: true}},
		EffectDigest: &digest,
	}
	n, err := session.RecordVerificationReports(ctx, []VerificationReport{report})
	if err != nil || n != 1 {
		t.Fatalf("recorded %d, %v", n, err)
	}
	outcome, err = session.Decide(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := outcome.Verified(); !ok || got != digest {
		t.Fatalf("after the bound report: %s, want allow/verified %s", mustJSON(t, outcome), digest)
	}

	reports, err := session.VerificationReports(ctx)
	if err != nil {
		t.Fatal(err)
	}
	report.Schema = ReportSchemaV1
	if len(reports) != 1 || !reflect.DeepEqual(reports[0], report) {
		t.Fatalf("reports read back %s, want %s", mustJSON(t, reports), mustJSON(t, []VerificationReport{report}))
	}
	text, err := session.VerificationSummaryText(ctx)
	if err != nil || text != "Verification passed: 1 report, 1 required check." {
		t.Fatalf("summary text %q, %v", text, err)
	}
	proof, err := session.Proof(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if proof.Schema != TurnProofSchema || proof.EffectDigest != digest || proof.Terminal.Kind != TerminalVerified ||
		len(proof.Reports) != 1 || *proof.Reports[0].EffectDigest != digest || len(proof.Records) != 1 {
		t.Fatalf("proof %s", mustJSON(t, proof))
	}
	if err := session.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// VerifyCommands with bind: the workspace is observed (rows carry the SHA-256 of the file
// bytes), the command's expect_exit 3 makes `exit 3` pass, the report is bound to the
// digest, progress events arrive for the call, and the gate answers verified.
func TestEndToEndVerifyCommandsBindsAndReportsProgress(t *testing.T) {
	ctx := t.Context()
	session, root := realSession(t)
	defer func() { _ = session.Close(ctx) }()
	writeFile(t, root, "main.go", "package main\n")
	ws, err := session.ObserveWorkspace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	content := sha256Hex("package main\n")
	if !ws.Complete || len(ws.Changes) != 1 || ws.Changes[0] != (WorkspaceChange{Path: "main.go", Change: ChangeAdded, ContentDigest: content, Scope: ScopeSource}) {
		t.Fatalf("observe_workspace %s", mustJSON(t, ws))
	}
	digest := ws.EffectDigest
	if digest != sha256Hex("workspace|main.go|"+content) {
		t.Fatalf("workspace digest %s, want sha256 of %q", digest, "workspace|main.go|"+content)
	}

	var mu sync.Mutex
	var events []ProgressEvent
	pctx := WithProgress(ctx, func(n Notification) {
		ev, err := n.Progress()
		if err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		events = append(events, *ev)
		mu.Unlock()
	})
	res, err := session.VerifyCommands(pctx, SessionVerifyCommandsParams{Subject: "exit code", Commands: []VerificationCommand{
		{ID: "exit3", Kind: "command", Description: "exits 3 on purpose", Command: "exit 3", Required: true, ExpectExit: 3},
	}, Bind: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Status != StatusPassed || res.Report.EffectDigest == nil || *res.Report.EffectDigest != digest {
		t.Fatalf("report %s", mustJSON(t, res.Report))
	}
	if !res.Binding.Bound || res.Binding.EffectDigest == nil || *res.Binding.EffectDigest != digest {
		t.Fatalf("binding %s", mustJSON(t, res.Binding))
	}
	if len(res.Runs) != 1 || res.Runs[0].ExitCode == nil || *res.Runs[0].ExitCode != 3 || res.Runs[0].Status != StatusPassed {
		t.Fatalf("runs %s", mustJSON(t, res.Runs))
	}
	mu.Lock()
	if len(events) != 2 || events[0].Event != ProgressCheckStarted || events[1].Event != ProgressCheckFinished ||
		events[1].CheckID != "exit3" || events[1].Total != 1 || *events[1].ExitCode != 3 || events[1].Status != StatusPassed {
		t.Fatalf("progress events %s", mustJSON(t, events))
	}
	mu.Unlock()
	outcome, err := session.Decide(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := outcome.Verified(); !ok || got != digest {
		t.Fatalf("outcome %s", mustJSON(t, outcome))
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
