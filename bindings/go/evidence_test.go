package turngate

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Issue 13 through the real bridge: a verifier report carried in tool metadata verifies the
// turn and EndTurn gives A3S's result fields; an editor report is refused, kept, and leaves
// the turn open; the next turn starts from a fresh ledger. Digests from the §2.2 formula.
func TestSessionToolReportsAndEndTurn(t *testing.T) {
	c := realClient(t)
	ctx := t.Context()
	root := gitWorkspace(t)
	session, err := c.CreateSession(ctx, SessionCreateParams{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "hello.txt", "hello\n")
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	digest := sha256Hex("workspace|hello.txt|" + sha256Hex("hello\n"))
	report := map[string]any{
		"schema": "verification_report.v1", "subject": "ci", "status": "passed", "effect_digest": digest,
		"checks": []any{map[string]any{"id": "c", "kind": "test", "description": "tests", "required": true, "status": "passed"}},
	}
	refused, err := session.ObserveTool(ctx, "edit", 0, map[string]any{"verification_report": report, "verification_author": "editor"})
	if err != nil {
		t.Fatal(err)
	}
	editor := "editor"
	wantRefused := []RefusedReport{{
		Tool: "edit", Reason: RefusedAuthorEditor, Code: "report_author_rejected", Author: &editor, Report: report,
		Message: `verification report refused: author "editor" cannot verify its own edits; only host or verifier reports count`,
	}}
	if len(refused.Reports) != 0 || !reflect.DeepEqual(refused.RefusedReports, wantRefused) {
		t.Fatalf("editor report: %s", mustJSON(t, refused))
	}
	open, err := session.EndTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if open.Ended || open.Result != nil || open.Outcome.Reason != ReasonUnverifiedMutation {
		t.Fatalf("refused turn: %s", mustJSON(t, open))
	}

	if _, err := session.ObserveTool(ctx, "review", 0, map[string]any{"verification_report": report, "verification_author": "verifier"}); err != nil {
		t.Fatal(err)
	}
	end, err := session.EndTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := end.Result
	if !end.Ended || r == nil || r.Turn != 1 || r.Completion.Kind != TerminalVerified || *r.Completion.EffectDigest != digest ||
		r.VerificationStatus != StatusPassed || r.VerificationReportCount != 1 || r.PendingVerificationCount != 0 ||
		r.FailedVerificationCount != 0 || r.VerificationSummaryText != "Verification passed: 1 report, 1 required check." ||
		r.Proof.EffectDigest != digest || !reflect.DeepEqual(r.RefusedReports, wantRefused) {
		t.Fatalf("verified turn: %s", mustJSON(t, end))
	}
	next, err := session.EndTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !next.Ended || next.Result.Turn != 2 || next.Result.Completion.Kind != TerminalNarrative || next.Result.VerificationReportCount != 0 {
		t.Fatalf("next turn: %s", mustJSON(t, next))
	}
	all, err := session.RefusedReports(ctx)
	if err != nil || !reflect.DeepEqual(all, wantRefused) {
		t.Fatalf("refused reports: %v %s", err, mustJSON(t, all))
	}
}

// Goal criteria, goal gating, existence evidence (opt-in) and gate.fold through the bridge.
func TestSessionGoalsExistenceAndFold(t *testing.T) {
	c := realClient(t)
	ctx := t.Context()
	root := gitWorkspace(t)
	if err := os.MkdirAll(filepath.Join(root, ".turngate", "goals", "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, ".turngate/goals/docs/STATE.md", "Status: running\n")
	writeFile(t, root, ".turngate/goals/docs/ACCEPTANCE.md", "- [ ] kind:command assert:`grep -q x README.md` expect:exit=1\n")
	on := true
	session, err := c.CreateSession(ctx, SessionCreateParams{Root: root, Options: &SessionOptions{ExistenceEvidence: &on}})
	if err != nil {
		t.Fatal(err)
	}
	criteria, err := session.GoalCriteria(ctx)
	if err != nil || len(criteria.Commands) != 1 || criteria.Commands[0].ID != "acceptance:docs:1" || criteria.Commands[0].ExpectExit != 1 {
		t.Fatalf("criteria: %v %s", err, mustJSON(t, criteria))
	}
	if _, err := session.ObserveTool(ctx, "bash", 1, map[string]any{"command": "grep -q x README.md"}); err != nil {
		t.Fatal(err)
	}
	goal, err := session.GoalAchievement(ctx, true)
	if err != nil || !goal.Achieved || goal.Reason != "achieved" {
		t.Fatalf("goal: %v %s", err, mustJSON(t, goal))
	}
	writeFile(t, root, "hello.txt", "hello\n")
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	seen, err := session.ObserveTool(ctx, "bash", 0, map[string]any{"command": "test -f hello.txt"})
	if err != nil || seen.Existence == nil || len(seen.Existence.Checks) != 1 || seen.Existence.Checks[0].Status != "match" {
		t.Fatalf("existence: %v %s", err, mustJSON(t, seen))
	}
	// The acceptance report was recorded before hello.txt changed the digest: not bound.
	if len(seen.Existence.Bound) != 0 || len(seen.Existence.Synthesized) != 1 ||
		*seen.Existence.Synthesized[0].EffectDigest != sha256Hex("workspace|hello.txt|"+sha256Hex("hello\n")) {
		t.Fatalf("existence reports: %s", mustJSON(t, seen.Existence))
	}

	d := strings.Repeat("a", 64)
	folded, err := c.FoldStepCompletions(ctx, []CompletionTerminal{{Kind: TerminalWaived, EffectDigest: &d}, {Kind: TerminalVerified, EffectDigest: &d}})
	if err != nil || folded.Kind != TerminalVerified || *folded.EffectDigest != d {
		t.Fatalf("fold: %v %s", err, mustJSON(t, folded))
	}
	policy, err := c.VerifierToolPolicy(ctx, "git", map[string]any{"command": "checkout"})
	if err != nil || policy.Allowed || policy.Rule == nil || *policy.Rule != "git_checkout" {
		t.Fatalf("policy: %v %s", err, mustJSON(t, policy))
	}
}

// A verifier command and an external observation through the bridge: the observation
// continues once, is closed by a newer one of its subject, and the verifier binds.
func TestSessionVerifierAndObservation(t *testing.T) {
	c := realClient(t)
	ctx := t.Context()
	root := gitWorkspace(t)
	verifier, on := "grep -q hello hello.txt", true
	session, err := c.CreateSession(ctx, SessionCreateParams{Root: root, Options: &SessionOptions{VerifierCommand: &verifier, AllowContinuation: &on}})
	if err != nil {
		t.Fatal(err)
	}
	obs := ExternalObservation{Kind: "ci", Subject: "ci:main", Digest: "obs-1", Payload: "red", RequiredAction: "workspace_change"}
	if _, err := session.RecordObservation(ctx, obs); err != nil {
		t.Fatal(err)
	}
	first, err := session.EndTurn(ctx)
	if err != nil || first.Ended || first.Outcome.Kind != OutcomeContinue {
		t.Fatalf("first: %v %s", err, mustJSON(t, first))
	}
	obs.Digest, obs.RequiredAction = "obs-2", "none"
	if _, err := session.RecordObservation(ctx, obs); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "hello.txt", "hello\n")
	end, err := session.EndTurn(ctx)
	if err != nil || !end.Ended || end.Result.Completion.Kind != TerminalVerified {
		t.Fatalf("end: %v %s", err, mustJSON(t, end))
	}
	run, err := session.VerifierRun(ctx)
	if err != nil || run != nil {
		t.Fatalf("the next turn has no verifier run yet: %v %s", err, mustJSON(t, run))
	}
	obs.Payload = strings.Repeat("x", 8193)
	_, err = session.RecordObservation(ctx, obs)
	var invalid *InvalidParamsError
	if !errors.As(err, &invalid) || invalid.Path != "observation.payload" {
		t.Fatalf("oversized payload: %v", err)
	}
}
