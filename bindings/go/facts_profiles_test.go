package turngate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Verification facts II through the real bridge (issue 14): exact values from
// harn-verification.md §1.4, §1.6, §1.9, §4.1.

var goProfiles = map[string]any{
	"schemaVersion": 1,
	"rows": []any{
		map[string]any{"id": "lint", "check": map[string]any{"rung": "R1", "command": "tx lint", "resourceClass": "cheap"},
			"timings": map[string]any{"warmMs": map[string]any{"p50": 900, "p95": 1500, "p99": 1600}}},
		map[string]any{"id": "test", "check": map[string]any{"rung": 4, "command": "tx test"},
			"timings": map[string]any{"warmMs": map[string]any{"p95": 61000}}},
	},
}

func TestFactsLadderPlanAndHudText(t *testing.T) {
	c := realClient(t)
	ctx := context.Background()
	plan, err := c.LadderPlan(ctx, nil, LadderPlanOptions{Profiles: goProfiles, MaxRung: "3"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Selected) != 1 || plan.Selected[0].RowID != "lint" || plan.Selected[0].P95Ms != 1500 {
		t.Fatalf("selected %+v", plan.Selected)
	}
	if len(plan.Skipped) != 1 || plan.Skipped[0].Reason != "above_max_rung" {
		t.Fatalf("skipped %+v", plan.Skipped)
	}
	text, err := c.HudText(ctx, map[string]any{"started_ms": 0}, HudOptions{Profiles: goProfiles, NowMs: 61000}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "[verification]\nelapsed: 1m1s\nnext check: R1 tx lint - est 1s (p95 warm)\nfull verify: R4 tx test - est 1m1s (p95 warm)"
	if text != want {
		t.Fatalf("hud text %q, want %q", text, want)
	}
}

// issue 35 item 4: with a store dir, the ladder, profile matches and HUD read the profile
// store RunCheck records into, seen from options.Dir (the HUD: else the state's dir).
func TestFactsLadderMatchesAndHudReadTheStore(t *testing.T) {
	c := realClient(t)
	ctx := context.Background()
	root := t.TempDir()
	store := filepath.Join(root, "store")
	core := filepath.Join(store, "verification-profiles.d", "packages", "core")
	if err := os.MkdirAll(core, 0o755); err != nil {
		t.Fatal(err)
	}
	rootSet := `{"schemaVersion":1,"rows":[{"id":"lint","check":{"rung":"R1","command":"tx lint"}}]}`
	coreSet := `{"schemaVersion":1,"rows":[{"id":"core-unit","scope":{"language":"go"},"check":{"rung":"R0","command":"tx core"}}]}`
	if err := os.WriteFile(filepath.Join(store, "verification-profiles.json"), []byte(rootSet), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(core, "verification-profiles.json"), []byte(coreSet), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RunCheck(ctx, root, store, "lint", []string{"true"}, RunCheckOptions{}); err != nil {
		t.Fatal(err)
	}
	plan, err := c.LadderPlan(ctx, nil, LadderPlanOptions{}, store)
	if err != nil {
		t.Fatal(err)
	}
	timings, _ := plan.Selected[0].Row["timings"].(map[string]any)
	if len(plan.Selected) != 1 || plan.Selected[0].RowID != "lint" || timings["samples"] != float64(1) {
		t.Fatalf("selected %+v", plan.Selected)
	}
	dir := "packages/core"
	deeper, err := c.LadderPlan(ctx, &ProfileQuery{Language: "go"}, LadderPlanOptions{Dir: &dir}, store)
	if err != nil {
		t.Fatal(err)
	}
	if len(deeper.Selected) != 1 || deeper.Selected[0].RowID != "core-unit" {
		t.Fatalf("deeper %+v", deeper.Selected)
	}
	matches, err := c.ProfileMatches(ctx, &ProfileQuery{Language: "GO"}, ProfileMatchesOptions{Dir: &dir}, store)
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) != 1 || matches[0].Row["id"] != "core-unit" || matches[0].Specificity != 4 {
		t.Fatalf("matches %+v", matches)
	}
	state := map[string]any{"started_ms": 0, "dir": "packages/core", "language": "go"}
	text, err := c.HudText(ctx, state, HudOptions{NowMs: 61000}, store)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[verification]\nelapsed: 1m1s\nnext check: R0 tx core - est 16m39s (p95 warm)"; !strings.HasPrefix(text, want) {
		t.Fatalf("hud text %q, want prefix %q", text, want)
	}
	model, err := c.HudModel(ctx, state, HudOptions{NowMs: 61000}, store)
	if err != nil {
		t.Fatal(err)
	}
	if model.NextCheck == nil || model.NextCheck.RowID != "core-unit" {
		t.Fatalf("hud model next check %+v", model.NextCheck)
	}
	up := "../outside"
	_, err = c.LadderPlan(ctx, nil, LadderPlanOptions{Dir: &up}, store)
	var invalid *InvalidParamsError
	if !errors.As(err, &invalid) || invalid.Path != "options.dir" {
		t.Fatalf("a dir with .. must be invalid_params naming options.dir, got %v", err)
	}
}

func TestFactsRunCheckToolchainWarmState(t *testing.T) {
	c := realClient(t)
	ctx := context.Background()
	root := t.TempDir()
	store := filepath.Join(root, "store")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, "verification-profiles.json"), []byte(`{"rows":[{"id":"unit"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := c.RunCheck(ctx, root, store, "unit", []any{"sh", "-c", "echo E2; exit 5"}, RunCheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Status != "failed" || out.Observation.Exit == nil || *out.Observation.Exit != 5 ||
		out.Observation.FailureSignature == nil || *out.Observation.FailureSignature != "E2" || out.Row == nil {
		t.Fatalf("run_check %+v", out)
	}
	bg := true
	_, err = c.RunCheck(ctx, root, store, "unit", []any{"true"}, RunCheckOptions{CommandOptions: &RunCheckCommandOptions{Background: &bg}})
	var remote *RemoteError
	if !errors.As(err, &remote) || remote.Code != "background_not_supported" {
		t.Fatalf("background: %v", err)
	}
	facts, err := c.Toolchain(ctx, root, []map[string]any{
		{"id": "go", "versionProbe": []any{"go", "version"}},
		{"id": "ghost", "probe": []any{"turngate-no-such-binary-xyz"}},
	}, ToolchainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	if !facts[0].Available || facts[0].Version == nil || *facts[0].Version != goVersion || facts[1].Available || facts[1].Version != nil {
		t.Fatalf("toolchain %+v", facts)
	}
	warm, err := c.WarmState(ctx, root, []map[string]any{{"id": "w", "warmMode": map[string]any{"warm": true}}}, WarmStateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warm) != 1 || !warm[0].Ready || warm[0].TimingKind != "warm" {
		t.Fatalf("warm state %+v", warm)
	}
}

func pidAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

func TestFactsBackgroundCheckAndWarmStateLifecycle(t *testing.T) {
	c := realClient(t)
	ctx := context.Background()
	root := t.TempDir()
	store := filepath.Join(root, "store")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, "verification-profiles.json"), []byte(`{"rows":[{"id":"bg"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	started, err := c.StartCheck(ctx, root, "bg", []any{"sh", "-c", "sleep 0.2; echo late; exit 6"}, StartCheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	receipt, err := AsMap(started)
	if err != nil {
		t.Fatal(err)
	}
	done, err := c.FinishCheck(ctx, store, receipt, FinishCheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if done.Observation == nil || done.Observation.Exit == nil || *done.Observation.Exit != 6 || done.Row == nil {
		t.Fatalf("finish_check %+v", done)
	}

	row := map[string]any{"id": "srv", "warmMode": map[string]any{
		"readyProbe":   []any{"test", "-f", "never"},
		"startCommand": map[string]any{"mode": "shell", "command": "sleep 60 & echo $! > child.pid; wait"},
	}}
	warm, err := c.StartWarmState(ctx, root, row, StartWarmStateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if warm.Status != "starting" || warm.Started == nil {
		t.Fatalf("start_warm_state %+v", warm)
	}
	var child int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if raw, err := os.ReadFile(filepath.Join(root, "child.pid")); err == nil && len(strings.TrimSpace(string(raw))) > 0 {
			child, _ = strconv.Atoi(strings.TrimSpace(string(raw)))
			break
		}
	}
	if child == 0 || !pidAlive(warm.Started.PID) || !pidAlive(child) {
		t.Fatalf("warm-state processes not running (shell %d, child %d)", warm.Started.PID, child)
	}
	wr, err := AsMap(warm)
	if err != nil {
		t.Fatal(err)
	}
	down, err := c.TeardownWarmState(ctx, root, wr, TeardownWarmStateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !down.Cancelled || down.Status != "torn_down" {
		t.Fatalf("teardown %+v", down)
	}
	for deadline := time.Now().Add(5 * time.Second); (pidAlive(warm.Started.PID) || pidAlive(child)) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if pidAlive(warm.Started.PID) || pidAlive(child) {
		t.Fatalf("a warm-state process survived teardown (shell %d, child %d)", warm.Started.PID, child)
	}
	again, err := c.TeardownWarmState(ctx, root, wr, TeardownWarmStateOptions{})
	if err != nil || again.Cancelled {
		t.Fatalf("second teardown: %+v %v", again, err)
	}
}
