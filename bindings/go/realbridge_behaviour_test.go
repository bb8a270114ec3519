package turngate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"
)

// 32 goroutines share one client to the real bridge; each digest is checked against the
// reference formula (a3s-completion-gate.md §2.2), so a response delivered to the wrong
// caller fails.
func TestRealBridgeConcurrentCallsFrom32Goroutines(t *testing.T) {
	c := realClient(t)
	const workers, calls = 32, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*calls)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				path := fmt.Sprintf("w%02d/f%d.txt", w, i)
				content := sha256Hex(path)
				got, err := c.EffectDigest(t.Context(), []MutationRecord{{Tool: "write", Path: path, ContentDigest: content}})
				if err != nil {
					errs <- err
					return
				}
				if want := sha256Hex("write|" + path + "|" + content); got != want {
					errs <- fmt.Errorf("%s: digest %s, want %s", path, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A deadline expires while session.verify_commands runs `sleep 5`: the call returns
// context.DeadlineExceeded promptly and the same client keeps working.
func TestRealBridgeCancellationMidCall(t *testing.T) {
	c := realClient(t)
	session, err := c.CreateSession(t.Context(), SessionCreateParams{Root: gitWorkspace(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "slow", Commands: []VerificationCommand{{ID: "sleep", Kind: "command", Description: "sleeps", Command: "sleep 5"}}, Bind: false})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("returned after %v", d)
	}
	got, err := c.EffectDigest(t.Context(), nil)
	if err != nil || got != "" {
		t.Fatalf("client after cancellation: %q, %v", got, err)
	}
	if err := session.Close(t.Context()); err != nil { // kills the running sleep
		t.Fatal(err)
	}
}

// The real bridge is killed while calls are pending: every pending call fails at once
// with *BridgeError "bridge_exited" naming the signal, and later calls fail the same way.
func TestRealBridgeKilledMidCall(t *testing.T) {
	c, err := Start(t.Context())
	if err != nil {
		t.Fatalf("starting the turngate bridge (build the CLI first or set TURNGATE_BRIDGE): %v", err)
	}
	session, err := c.CreateSession(t.Context(), SessionCreateParams{Root: gitWorkspace(t)})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = session.VerifyCommands(t.Context(), SessionVerifyCommandsParams{Subject: "slow", Commands: []VerificationCommand{{ID: "sleep", Kind: "command", Description: "sleeps", Command: "sleep 30"}}})
		}()
	}
	waitPending(t, c, len(errs))
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, err := range errs {
		var be *BridgeError
		if !errors.As(err, &be) || be.Code != "bridge_exited" || be.Signal != "killed" {
			t.Fatalf("pending call %d: %v", i, err)
		}
	}
	var be *BridgeError
	if _, err := c.EffectDigest(t.Context(), nil); !errors.As(err, &be) || be.Code != "bridge_exited" {
		t.Fatalf("call after the kill: %v", err)
	}
	if err := c.Close(); !errors.As(err, &be) || be.Signal != "killed" {
		t.Fatalf("Close = %v", err)
	}
}

// Bad input comes back typed, naming the field.
func TestRealBridgeTypedErrors(t *testing.T) {
	c := realClient(t)
	ctx := t.Context()
	_, err := c.DeriveReportStatus(ctx, []VerificationCheck{{ID: "a", Kind: "test", Description: "d", Status: "done"}}, nil)
	var ip *InvalidParamsError
	if !errors.As(err, &ip) || ip.Path != "checks.0.status" || ip.Method != "report.derive_status" {
		t.Fatalf("bad status: %#v", err)
	}
	session, err := c.CreateSession(ctx, SessionCreateParams{Root: gitWorkspace(t)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = session.RecordVerificationReports(ctx, []VerificationReport{{Subject: "s", Status: StatusPassed,
		Checks: []VerificationCheck{{ID: "a", Kind: "test", Description: "d", Status: StatusFailed, Required: true}}}})
	var re *RemoteError
	if !errors.As(err, &re) || re.Code != "report_status_mismatch" || re.Path != "reports.0.status" {
		t.Fatalf("status mismatch: %#v", err)
	}
	if err := session.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := session.EffectDigest(ctx); !errors.As(err, &re) || re.Code != "session_not_found" {
		t.Fatalf("closed session: %#v", err)
	}
}
