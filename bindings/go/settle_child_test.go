package turngate

import (
	"errors"
	"reflect"
	"testing"
)

// A background workspace child keeps the gate at open_children until the host settles it
// (session.settle_child); the re-read that follows puts the child's writes on the ledger.
// Digests are computed here from the reference rules (a3s-completion-gate.md §2.2).
func TestSessionSettleWorkspaceChild(t *testing.T) {
	ctx := t.Context()
	session, root := realSession(t)
	if _, err := session.ObserveTool(ctx, "bash", 0, map[string]any{"workspace_child": "task-1"}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "hello.txt", "hello\n")
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	outcome, err := session.Decide(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if outcome.Kind != OutcomeIncomplete || outcome.Reason != ReasonOpenChildren || !reflect.DeepEqual(outcome.TaskIDs, []string{"task-1"}) {
		t.Fatalf("before settling: %s", mustJSON(t, outcome))
	}

	settled, err := session.SettleWorkspaceChild(ctx, "task-1")
	if err != nil {
		t.Fatal(err)
	}
	content := sha256Hex("hello\n")
	digest := sha256Hex("workspace|hello.txt|" + content)
	want := &SessionSettleChildResult{
		Settled:      true,
		OpenChildren: []string{},
		EffectDigest: digest,
		Changes:      []WorkspaceChange{{Path: "hello.txt", Change: "added", ContentDigest: content, Scope: ScopeSource}},
		Complete:     true,
		Unreadable:   []string{},
	}
	if !reflect.DeepEqual(settled, want) {
		t.Fatalf("settled %s, want %s", mustJSON(t, settled), mustJSON(t, want))
	}
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	outcome, err = session.Decide(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if outcome.Kind != OutcomeIncomplete || outcome.Reason != ReasonUnverifiedMutation || outcome.EffectDigest == nil || *outcome.EffectDigest != digest {
		t.Fatalf("after settling: %s", mustJSON(t, outcome))
	}

	_, err = session.SettleWorkspaceChild(ctx, " ")
	var invalid *InvalidParamsError
	if !errors.As(err, &invalid) || invalid.Path != "task_id" || invalid.Message != "task_id: must not be blank" {
		t.Fatalf("blank task id: %v", err)
	}
}
