package turngate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Benchmarks (go test -run '^$' -bench . ): the per-call round trip of ledger.digest and
// gate.decide through the real bridge, against the same payload through a trivial Node
// echo child with the same framing (testdata/echo-bridge.mjs) — the floor that stdio,
// JSON encoding and one Node event-loop turn cost. Calls alternate between the two in one
// loop, so both see the same machine load; each benchmark reports bridge-ns/call,
// floor-ns/call and x-floor (their ratio; the target is ≤ 2).

// echoClient starts the echo floor child through the same Client.
func echoClient(b *testing.B) *Client {
	b.Helper()
	cfg := defaultConfig()
	node, args, err := withNode(&cfg, filepath.Join("testdata", "echo-bridge.mjs"))
	if err != nil {
		b.Fatal(err)
	}
	c, err := Start(b.Context(), WithCommand(node, args[0]))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// roundTrips times bridgeCall and floorCall alternately b.N times after a warm-up and
// reports both per-call means and their ratio.
func roundTrips(b *testing.B, bridgeCall, floorCall func() error) {
	for range 300 { // JIT and connection warm-up, untimed
		if err := bridgeCall(); err != nil {
			b.Fatal(err)
		}
		if err := floorCall(); err != nil {
			b.Fatal(err)
		}
	}
	var bridgeTotal, floorTotal time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := bridgeCall(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := floorCall(); err != nil {
			b.Fatal(err)
		}
		floorTotal += time.Since(t1)
		bridgeTotal += t1.Sub(t0)
	}
	n := float64(b.N)
	ratio := float64(bridgeTotal) / float64(floorTotal)
	b.ReportMetric(float64(bridgeTotal.Nanoseconds())/n, "bridge-ns/call")
	b.ReportMetric(float64(floorTotal.Nanoseconds())/n, "floor-ns/call")
	b.ReportMetric(ratio, "x-floor")
	b.Logf("%d calls: bridge %.1f µs/call, echo floor %.1f µs/call, ratio %.2f× (target ≤ 2×)",
		b.N, float64(bridgeTotal.Microseconds())/n, float64(floorTotal.Microseconds())/n, ratio)
}

func benchRecords() []MutationRecord {
	records := make([]MutationRecord, 3)
	for i := range records {
		path := fmt.Sprintf("src/file%d.go", i)
		records[i] = MutationRecord{Tool: "write", Path: path, ContentDigest: sha256Hex(path)}
	}
	return records
}

func BenchmarkLedgerDigestVsEchoFloor(b *testing.B) {
	bridge, echo, ctx := realClient(b), echoClient(b), context.Background()
	records := benchRecords()
	params := LedgerDigestParams{Records: records}
	// The answer is checked on every call (issue #11 §5): SHA-256 of the escaped rows
	// tool|path|content_digest sorted by path, joined by "\n" (A3S §2.2).
	rows := make([]string, len(records))
	for i, r := range records {
		rows[i] = r.Tool + "|" + r.Path + "|" + r.ContentDigest
	}
	want := sha256Hex(strings.Join(rows, "\n"))
	roundTrips(b,
		func() error {
			got, err := bridge.EffectDigest(ctx, records)
			if err == nil && got != want {
				err = fmt.Errorf("effect digest %s, want %s", got, want)
			}
			return err
		},
		func() error { var out json.RawMessage; return echo.Call(ctx, "ledger.digest", params, &out) })
}

func BenchmarkGateDecideVsEchoFloor(b *testing.B) {
	bridge, echo, ctx := realClient(b), echoClient(b), context.Background()
	records := benchRecords()
	digest, err := bridge.EffectDigest(ctx, records)
	if err != nil {
		b.Fatal(err)
	}
	params := GateDecideParams{
		Ledger: LedgerState{Records: records},
		Reports: []VerificationReport{{
			Subject: "unit tests",
			Status:  StatusPassed,
			Checks: []VerificationCheck{
				{ID: "unit", Kind: "test", Description: "go test ./...", Status: StatusPassed, Required: true},
				{ID: "lint", Kind: "lint", Description: "go vet ./...", Status: StatusPassed},
			},
			EffectDigest: &digest,
		}},
	}
	roundTrips(b,
		func() error {
			out, err := bridge.DecideCompletion(ctx, params)
			if err == nil && out.Kind != OutcomeAllow {
				err = fmt.Errorf("outcome %s, want allow", out.Kind)
			}
			return err
		},
		func() error { var out json.RawMessage; return echo.Call(ctx, "gate.decide", params, &out) })
}
