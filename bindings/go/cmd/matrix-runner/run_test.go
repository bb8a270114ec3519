package main

import (
	"os"
	"path/filepath"
	"testing"

	turngate "github.com/turngate/turngate/bindings/go"
)

// TestGoColumnMatchesEveryVector runs the shared conformance vectors through the Go
// binding against the real bridge (as test-matrix/run does) and requires every case to
// match its vector, with most cases going through the typed API rather than raw params.
func TestGoColumnMatchesEveryVector(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "test-matrix", "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("test-matrix vectors not found: %v", err)
	}
	groups, err := loadVectors(dir)
	if err != nil {
		t.Fatal(err)
	}
	client, err := turngate.Start(t.Context())
	if err != nil {
		t.Fatalf("the turngate bridge is required: build the CLI first (pnpm exec turbo run build) or set TURNGATE_BRIDGE\n%v", err)
	}
	defer func() { _ = client.Close() }()
	res, stats, err := runCases(t.Context(), client, groups)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cases {
		if c["ok"] != true {
			t.Errorf("%s/%s: %v", c["group"], c["id"], c)
		}
	}
	if stats.total != len(res.Cases) || stats.typed*2 < stats.total {
		t.Errorf("only %d of %d cases went through the typed API (%d raw, %d untyped)", stats.typed, stats.total, stats.raw, stats.untyped)
	}
}
