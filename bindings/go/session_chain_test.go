package turngate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// docs/cli.md "Gapless turns" (issue 32 item 3): Session.Baseline and SessionOptions.ContinueFrom
// chain sessions across bridge processes, against the real bridge on a real git repository.
func TestRealBridgeContinueFromKeepsAnUnverifiedChangeAcrossBridges(t *testing.T) {
	root := gitWorkspace(t)
	ctx := t.Context()
	first := realClient(t)
	a, err := first.CreateSession(ctx, SessionCreateParams{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ended, err := a.EndTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ended.Ended {
		t.Fatalf("an unverified change ended the turn: %#v", ended)
	}
	baseline, err := a.Baseline(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if baseline["schema"] != "turngate.workspace_snapshot.v1" {
		t.Fatalf("baseline schema %v", baseline["schema"])
	}

	second := realClient(t)
	chained, err := second.CreateSession(ctx, SessionCreateParams{Root: root, Options: &SessionOptions{ContinueFrom: baseline}})
	if err != nil {
		t.Fatal(err)
	}
	observed, err := chained.ObserveWorkspace(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(observed.Changes) != 1 || observed.Changes[0].Path != "README.md" {
		t.Fatalf("the continued session's changes: %#v", observed.Changes)
	}
	fresh, err := second.CreateSession(ctx, SessionCreateParams{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if observed, err := fresh.ObserveWorkspace(ctx); err != nil || len(observed.Changes) != 0 {
		t.Fatalf("a fresh session's changes: %#v %v", observed, err)
	}

	other := gitWorkspace(t)
	_, err = second.CreateSession(ctx, SessionCreateParams{Root: other, Options: &SessionOptions{ContinueFrom: baseline}})
	var re *RemoteError
	if !errors.As(err, &re) || re.Code != "invalid_snapshot" || re.Path != "options.continue_from.root" {
		t.Fatalf("a baseline of another root: %#v", err)
	}
}
