package turngate

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// What the checks changed (issue 10) through the Go binding against the real bridge: check
// outputs in a bound binding, the hint of an unbound one, and RewritePaths.

func TestBindingCheckOutputsListedAndBound(t *testing.T) {
	ctx := t.Context()
	session, root := realSession(t)
	writeFile(t, root, "a.txt", "a\n")
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	cmd := VerificationCommand{ID: "cov", Kind: "test", Description: "coverage", Command: "mkdir -p coverage && echo x > coverage/lcov.info", Required: true}
	result, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "unit", Commands: []VerificationCommand{cmd}, Bind: true})
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256Hex("workspace|a.txt|" + sha256Hex("a\n"))
	want := ReportBinding{
		Bound:        true,
		EffectDigest: &digest,
		CheckOutputs: &CheckOutputs{Count: 1, Paths: []CheckOutput{{Path: "coverage/lcov.info", Change: ChangeAdded, Scope: OutputScopeOutput}}},
	}
	if !reflect.DeepEqual(result.Binding, want) {
		t.Fatalf("binding %s, want %s", mustJSON(t, result.Binding), mustJSON(t, want))
	}
}

func TestBindingUnboundHintNamesTheOutputsPattern(t *testing.T) {
	ctx := t.Context()
	session, root := realSession(t)
	writeFile(t, root, "a.txt", "a\n")
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	cmd := VerificationCommand{ID: "gen", Kind: "test", Description: "gen", Command: "mkdir -p build && echo x > build/gen.txt", Required: true}
	result, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "unit", Commands: []VerificationCommand{cmd}, Bind: true})
	if err != nil {
		t.Fatal(err)
	}
	hint := `the checks created build/gen.txt: add "build/" to "outputs" in turngate.config.json, or to .gitignore`
	want := ReportBinding{
		Bound:        false,
		Reason:       BindingWorkspaceChanged,
		ChangedPaths: []string{"build/gen.txt"},
		Unreadable:   []string{},
		Hint:         &hint,
		Created:      []string{"build/gen.txt"},
	}
	if !reflect.DeepEqual(result.Binding, want) {
		t.Fatalf("binding %s, want %s", mustJSON(t, result.Binding), mustJSON(t, want))
	}
}

func TestBindingRewritePathsRerunsOnceAndBinds(t *testing.T) {
	ctx := t.Context()
	root := gitWorkspace(t)
	writeFile(t, root, "go.sum", "v1\n")
	session, err := realClient(t).CreateSession(ctx, SessionCreateParams{Root: root, Options: &SessionOptions{RewritePaths: []string{"go.sum"}}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "a.txt", "a\n")
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "settle.sh")
	if err := os.WriteFile(script, []byte("grep -qx v2 go.sum || echo v2 > go.sum\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := VerificationCommand{ID: "sum", Kind: "test", Description: "settle", Command: "sh " + script, Required: true}
	result, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "unit", Commands: []VerificationCommand{cmd}, Bind: true})
	if err != nil {
		t.Fatal(err)
	}
	if !result.Binding.Bound || !reflect.DeepEqual(result.Binding.Rewrites, []CheckRewrite{{Path: "go.sum", CheckID: "sum"}}) {
		t.Fatalf("binding %s, want bound with the go.sum rewrite by sum", mustJSON(t, result.Binding))
	}
	if _, err := realClient(t).CreateSession(ctx, SessionCreateParams{Root: root, Options: &SessionOptions{RewritePaths: []string{"main.go"}}}); err == nil {
		t.Fatal("rewrite_paths [main.go] was accepted")
	}
}
