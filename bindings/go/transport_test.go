package turngate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pendingWithin polls until at least n calls are pending on c (each one registered and on its
// way to the bridge), instead of sleeping a fixed time that a loaded machine can outlast;
// false when that did not happen within 10 s.
func pendingWithin(c *Client, n int) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		c.mu.Lock()
		got := len(c.pending)
		c.mu.Unlock()
		if got >= n {
			return true
		}
	}
	return false
}

// waitPending is pendingWithin for the test goroutine: it fails the test on a timeout.
func waitPending(t *testing.T, c *Client, n int) {
	t.Helper()
	if !pendingWithin(c, n) {
		t.Fatalf("fewer than %d calls became pending within 10 s", n)
	}
}

func TestCallRoundTripAndHandshake(t *testing.T) {
	c := fakeClient(t, nil)
	if got := c.Info(); got.Protocol != "turngate.bridge.v1" || got.Version != "0.0.0-fake" || len(got.Methods) != 1 || got.Methods[0] != "echo" {
		t.Fatalf("Info() = %+v", got)
	}
	var out map[string]string
	if err := c.Call(t.Context(), "echo", map[string]string{"a": "ü\n|"}, &out); err != nil {
		t.Fatal(err)
	}
	if out["a"] != "ü\n|" {
		t.Fatalf("echo = %q", out)
	}
}

func TestConcurrentCalls32Goroutines(t *testing.T) {
	c := fakeClient(t, nil)
	const workers, calls = 32, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers*calls)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				want := fmt.Sprintf("worker-%d-call-%d", w, i)
				if i%4 == 0 { // interleave slow calls so responses arrive out of order
					if err := c.Call(t.Context(), "sleep", map[string]int{"ms": (w * 7 % 5) + 1}, nil); err != nil {
						errs <- err
						return
					}
				}
				var got struct{ V string }
				if err := c.Call(t.Context(), "echo", map[string]string{"V": want}, &got); err != nil {
					errs <- err
					return
				}
				if got.V != want {
					errs <- fmt.Errorf("got %q, want %q", got.V, want)
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
	c.mu.Lock()
	left := len(c.pending)
	c.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d calls still pending after all returned", left)
	}
}

func TestCancellationMidCall(t *testing.T) {
	c := fakeClient(t, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Call(ctx, "sleep", map[string]int{"ms": 5000}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("deadline honoured after %v", d)
	}

	ctx2, cancel2 := context.WithCancel(t.Context())
	go func() { pendingWithin(c, 1); cancel2() }()
	if err := c.Call(ctx2, "sleep", map[string]int{"ms": 5000}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Canceled", err)
	}
	// The client stays usable; the late responses are dropped.
	var out map[string]int
	if err := c.Call(t.Context(), "echo", map[string]int{"x": 1}, &out); err != nil || out["x"] != 1 {
		t.Fatalf("after cancel: %v %v", out, err)
	}
	c.mu.Lock()
	left := len(c.pending)
	c.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d cancelled calls left pending", left)
	}
}

func TestBridgeDeathFailsEveryPendingCall(t *testing.T) {
	c := fakeClient(t, nil)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Call(t.Context(), "sleep", map[string]int{"ms": 10000}, nil)
		}()
	}
	waitPending(t, c, len(errs))
	dieErr := c.Call(t.Context(), "die", map[string]any{"code": 3, "stderr": "fatal: boom\n"}, nil)
	wg.Wait()
	for i, err := range append(errs, dieErr) {
		var be *BridgeError
		if !errors.As(err, &be) {
			t.Fatalf("call %d: err = %v, want *BridgeError", i, err)
		}
		if be.Code != "bridge_exited" || be.ExitCode != 3 || be.Signal != "" || be.Stderr != "fatal: boom\n" {
			t.Fatalf("call %d: %+v", i, be)
		}
		if !strings.Contains(be.Error(), "exited with code 3") || !strings.Contains(be.Error(), "fatal: boom") {
			t.Fatalf("message %q", be.Error())
		}
	}
	// Later calls fail the same way, at once.
	var be *BridgeError
	if err := c.Call(t.Context(), "echo", nil, nil); !errors.As(err, &be) || be.Code != "bridge_exited" {
		t.Fatalf("after death: %v", err)
	}
	if err := c.Close(); !errors.As(err, &be) || be.ExitCode != 3 {
		t.Fatalf("Close after death = %v", err)
	}
}

func TestKilledBridgeFailsPendingCalls(t *testing.T) {
	c := fakeClient(t, nil)
	done := make(chan error, 1)
	go func() { done <- c.Call(t.Context(), "sleep", map[string]int{"ms": 10000}, nil) }()
	waitPending(t, c, 1)
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var be *BridgeError
		if !errors.As(err, &be) || be.Code != "bridge_exited" || be.Signal != "killed" || be.ExitCode != -1 {
			t.Fatalf("err = %#v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending call not failed after the bridge was killed")
	}
	if c.cmd.ProcessState == nil {
		t.Fatal("killed bridge not reaped")
	}
}

func TestStdoutClosedWhileRunningFailsCallsAndKills(t *testing.T) {
	c := fakeClient(t, nil, WithShutdownGrace(300*time.Millisecond))
	err := c.Call(t.Context(), "stdout_close", nil, nil)
	var be *BridgeError
	if !errors.As(err, &be) || be.Code != "bridge_exited" || be.Signal != "killed" {
		t.Fatalf("err = %v", err)
	}
}

func TestMalformedResponses(t *testing.T) {
	fatal := []struct{ method, msg string }{
		{"garbage", `bridge sent a line that is not a JSON object; line: "not json"`},
		{"scalar", `bridge sent a line that is not a JSON object; line: "42"`},
		{"string_id", `bridge sent a response whose id is not one of this client's request ids; line: "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"result\":{}}"`},
		{"null_id_error", `bridge reported an error for an unidentifiable request: parse_error: parse error: bad`},
	}
	for _, tc := range fatal {
		t.Run("fatal/"+tc.method, func(t *testing.T) {
			c := fakeClient(t, nil)
			slow := make(chan error, 1)
			go func() { slow <- c.Call(t.Context(), "sleep", map[string]int{"ms": 10000}, nil) }()
			waitPending(t, c, 1)
			err := c.Call(t.Context(), tc.method, nil, nil)
			var pe *ProtocolError
			if !errors.As(err, &pe) || pe.Code != "protocol_violation" {
				t.Fatalf("err = %v, want *ProtocolError", err)
			}
			if got := strings.TrimPrefix(pe.Error(), "turngate: "); !strings.HasPrefix(got, tc.msg) {
				t.Fatalf("message\n got %s\nwant %s", got, tc.msg)
			}
			if other := <-slow; !errors.Is(other, err) {
				t.Fatalf("pending call got %v, want the same protocol error", other)
			}
			if err := c.Call(t.Context(), "echo", nil, nil); !errors.Is(err, pe) {
				t.Fatalf("client still usable after a framing violation: %v", err)
			}
		})
	}
	perCall := []struct{ method, msg string }{
		{"no_result", "no_result: response has neither result nor error"},
		{"both", "both: response has both result and error"},
		{"bad_version", `bad_version: response has jsonrpc "1.0", want "2.0"`},
	}
	c := fakeClient(t, nil)
	for _, tc := range perCall {
		t.Run("call/"+tc.method, func(t *testing.T) {
			err := c.Call(t.Context(), tc.method, nil, nil)
			var pe *ProtocolError
			if !errors.As(err, &pe) || pe.Code != "protocol_violation" {
				t.Fatalf("err = %v", err)
			}
			if got := strings.TrimPrefix(pe.Error(), "turngate: "); !strings.HasPrefix(got, tc.msg) {
				t.Fatalf("message\n got %s\nwant %s", got, tc.msg)
			}
			var out map[string]int
			if err := c.Call(t.Context(), "echo", map[string]int{"ok": 1}, &out); err != nil || out["ok"] != 1 {
				t.Fatalf("client unusable after a bad response: %v", err)
			}
		})
	}
	t.Run("unknown id is dropped", func(t *testing.T) {
		if err := c.Call(t.Context(), "unknown_id", nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("wrong result type", func(t *testing.T) {
		var out struct {
			EffectDigest string `json:"effect_digest"`
		}
		err := c.Call(t.Context(), "bad_digest", nil, &out)
		var pe *ProtocolError
		if !errors.As(err, &pe) || pe.Code != "bad_result" || pe.Field != "effect_digest" {
			t.Fatalf("err = %#v", err)
		}
		if pe.Error() != `turngate: bad_digest: result field is a JSON number, want Go string (field effect_digest); line: "{\"effect_digest\":42}"` {
			t.Fatalf("message %s", pe.Error())
		}
	})
}

func TestErrorCodesMapToTypes(t *testing.T) {
	c := fakeClient(t, nil)
	err := c.Call(t.Context(), "fail", map[string]any{"err": "invalid_params", "rpc": -32602, "path": "reports.0.status", "message": "reports.0.status: Invalid option"}, nil)
	var ip *InvalidParamsError
	if !errors.As(err, &ip) || ip.Path != "reports.0.status" || ip.Method != "fail" || ip.RPCCode != -32602 || ip.Message != "reports.0.status: Invalid option" {
		t.Fatalf("invalid_params → %#v", err)
	}
	err = c.Call(t.Context(), "fail", map[string]any{"err": "session_not_found", "rpc": -32602, "path": "session_id", "message": "no session s9"}, nil)
	var re *RemoteError
	if !errors.As(err, &re) || re.Code != "session_not_found" || re.Path != "session_id" || re.Error() != "turngate: fail: no session s9" {
		t.Fatalf("session_not_found → %#v", err)
	}
	err = c.Call(t.Context(), "no.such.method", nil, nil)
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Code != "method_not_found" {
		t.Fatalf("method_not_found → %#v", err)
	}
}

func TestLargeMessages(t *testing.T) {
	c := fakeClient(t, nil)
	var out struct{ Blob string }
	const n = 4 << 20 // 4 MiB in one line, far over bufio.Scanner's 64 KiB default
	if err := c.Call(t.Context(), "big", map[string]int{"n": n}, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Blob) != n || strings.Trim(out.Blob, "x") != "" {
		t.Fatalf("blob of %d bytes", len(out.Blob))
	}

	small := fakeClient(t, nil, WithMaxMessageBytes(4096))
	err := small.Call(t.Context(), "echo", map[string]string{"s": strings.Repeat("y", 5000)}, nil)
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Code != "too_large" || pe.Message != "request is 5058 bytes, over the 4096-byte message limit" {
		t.Fatalf("oversized request → %v", err)
	}
	if err := small.Call(t.Context(), "echo", nil, nil); err != nil {
		t.Fatalf("client unusable after refusing an oversized request: %v", err)
	}
	// The limit is inclusive: a response line of exactly the limit is accepted, one byte
	// more is a fatal violation.
	if err := small.Call(t.Context(), "big", map[string]int{"total": 4096}, &out); err != nil || len(out.Blob) != 4096-len(`{"jsonrpc":"2.0","id":4,"result":{"blob":""}}`) {
		t.Fatalf("response of exactly the limit: %d bytes, %v", len(out.Blob), err)
	}
	err = small.Call(t.Context(), "big", map[string]int{"total": 4097}, nil)
	if !errors.As(err, &pe) || pe.Code != "protocol_violation" || !strings.HasPrefix(pe.Message, "bridge sent a line over the 4096-byte message limit") {
		t.Fatalf("oversized response → %v", err)
	}
}

func TestWrongProtocolIsRefusedAtStart(t *testing.T) {
	c, err := New(WithCommand(os.Args[0], "-test.run=^$"), WithEnv("TURNGATE_GO_FAKE_BRIDGE=1", "GORACE=atexit_sleep_ms=0", "FAKE_PROTOCOL=other.v9"))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Start(t.Context())
	var pe *ProtocolError
	if !errors.As(err, &pe) || pe.Message != `bridge speaks protocol "other.v9", want "turngate.bridge.v1"` {
		t.Fatalf("err = %v", err)
	}
	if c.cmd.ProcessState == nil {
		t.Fatal("bridge left running after a refused handshake")
	}
}

func TestCloseShutsDownCleanly(t *testing.T) {
	c := fakeClient(t, nil)
	if err := c.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if st := c.cmd.ProcessState; st == nil || st.ExitCode() != 0 {
		t.Fatalf("bridge not reaped with exit 0: %v", st)
	}
	if err := c.Call(t.Context(), "echo", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after Close = %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

func TestCloseFailsPendingCallsWithErrClosed(t *testing.T) {
	c := fakeClient(t, nil)
	done := make(chan error, 1)
	go func() { done <- c.Call(t.Context(), "sleep", map[string]int{"ms": 10000}, nil) }()
	waitPending(t, c, 1)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("pending call = %v", err)
	}
}

func TestCloseKillsABridgeThatIgnoresShutdown(t *testing.T) {
	c := fakeClient(t, []string{"FAKE_IGNORE_SHUTDOWN=1"}, WithShutdownGrace(300*time.Millisecond))
	start := time.Now()
	err := c.Close()
	var be *BridgeError
	if !errors.As(err, &be) || be.Signal != "killed" {
		t.Fatalf("Close = %v, want killed", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Close took %v with a 300ms grace", d)
	}
	if c.cmd.ProcessState == nil {
		t.Fatal("bridge not reaped")
	}
}

func TestProgressNotificationsRouteToTheirCall(t *testing.T) {
	var mu sync.Mutex
	var global, mine []string
	c := fakeClient(t, nil, WithNotificationHandler(func(n Notification) {
		mu.Lock()
		global = append(global, n.Method)
		mu.Unlock()
	}))
	ctx := WithProgress(t.Context(), func(n Notification) {
		mu.Lock()
		mine = append(mine, string(n.Params))
		mu.Unlock()
	})
	if err := c.Call(ctx, "progress", map[string]int{"n": 2}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(t.Context(), "progress", map[string]int{"n": 1}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	id := c.nextID.Load() - 1
	want := []string{
		fmt.Sprintf(`{"request_id":%d,"event":"tick","i":0}`, id),
		fmt.Sprintf(`{"request_id":%d,"event":"tick","i":1}`, id),
	}
	if strings.Join(mine, "\n") != strings.Join(want, "\n") {
		t.Fatalf("per-call progress = %q, want %q", mine, want)
	}
	if len(global) != 1 || global[0] != "progress" {
		t.Fatalf("client-wide notifications = %q", global)
	}
}

func TestNotStarted(t *testing.T) {
	c, _ := New()
	if err := c.Call(t.Context(), "echo", nil, nil); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("err = %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close on unstarted = %v", err)
	}
}
