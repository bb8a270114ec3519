package turngate

import (
	"errors"
	"testing"
)

// Issue 21 through the Go binding, on the real bridge: the view of a real session's proof
// (report.turn_view) has the verdict, the bound check with its log's SHA-256 and the file
// with the diff the host computed; a bad field is an *InvalidParamsError naming it.
func TestTurnViewOfARealProof(t *testing.T) {
	ctx := t.Context()
	client := realClient(t, WithEnv("XDG_STATE_HOME="+t.TempDir()))
	root := gitWorkspace(t)
	session, err := client.CreateSession(ctx, SessionCreateParams{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "README.md", "# changed\n")
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	check := VerificationCommand{ID: "t", Kind: "test", Description: "grep", Command: "grep -q changed README.md", Required: true}
	if _, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "host", Commands: []VerificationCommand{check}, Bind: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Decide(ctx); err != nil {
		t.Fatal(err)
	}
	proof, err := session.Proof(ctx)
	if err != nil {
		t.Fatal(err)
	}
	unified := "@@ -1 +1 @@\n-x\n+# changed\n"
	one, no := 1, false
	view, err := client.TurnView(ctx, ReportTurnViewParams{
		Turn:  FactsOfProof(*proof),
		Diffs: []TurnViewFileDiff{{Path: "README.md", Change: "modified", Diff: TurnViewDiff{Kind: "text", Unified: &unified, Additions: &one, Deletions: &one, Truncated: &no}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256Hex("workspace|README.md|" + sha256Hex("# changed\n"))
	if view.Schema != TurnViewSchema || view.Source != "proof" || view.Verdict != "verified" || view.EffectDigest != digest || view.Reason != nil {
		t.Fatalf("summary %s", mustJSON(t, view))
	}
	if len(view.Checks) != 1 || view.Checks[0].ID != "t" || view.Checks[0].Status != "passed" || !view.Checks[0].Required ||
		view.Checks[0].Log == nil || view.Checks[0].Log.SHA256 == nil || len(*view.Checks[0].Log.SHA256) != 64 {
		t.Fatalf("checks %s", mustJSON(t, view.Checks))
	}
	if len(view.Files) != 1 || view.Files[0].Path != "README.md" || view.Files[0].Change != "modified" || view.Files[0].Scope != "source" ||
		view.Files[0].Diff.Kind != "text" || *view.Files[0].Diff.Unified != unified {
		t.Fatalf("files %s", mustJSON(t, view.Files))
	}
	if view.Counts.Files.Modified != 1 || view.Counts.Additions != 1 || view.Counts.Deletions != 1 || !view.Diffs.Available {
		t.Fatalf("counts %s", mustJSON(t, view.Counts))
	}

	bad := FactsOfProof(*proof)
	bad.Outcome.Kind = "maybe"
	_, err = client.TurnView(ctx, ReportTurnViewParams{Turn: bad})
	var ip *InvalidParamsError
	if !errors.As(err, &ip) || ip.Path != "turn.outcome.kind" || ip.Method != "report.turn_view" {
		t.Fatalf("error %v", err)
	}
}
