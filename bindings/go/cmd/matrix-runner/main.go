// Command matrix-runner is the Go runtime of the test matrix (test-matrix/README.md): it
// feeds every case of test-matrix/vectors/*.json through the Go binding to the real bridge
// and writes what it got.
//
//	go run ./cmd/matrix-runner --vectors DIR --out FILE
//
// Each case goes through the typed API when it can (see run.go), so a Go type that lost or
// changed a field would show up as a difference from the other runtimes. The bridge is
// found like any Go host finds it (TURNGATE_BRIDGE, the repository's built CLI, `turngate`
// on PATH). Exit status: 0 when FILE was written, whatever the verdicts; 1 when the bridge
// could not run; 2 on bad arguments.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	turngate "github.com/turngate/turngate/bindings/go"
)

func main() {
	vectors := flag.String("vectors", "", "directory of vector groups (*.json)")
	out := flag.String("out", "", "result file to write")
	flag.Parse()
	if *vectors == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: matrix-runner --vectors DIR --out FILE")
		os.Exit(2)
	}
	groups, err := loadVectors(*vectors)
	if err != nil {
		fmt.Fprintln(os.Stderr, "matrix-runner:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	client, err := turngate.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "matrix-runner:", err)
		os.Exit(1)
	}
	results, stats, err := runCases(ctx, client, groups)
	if cerr := client.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "matrix-runner:", err)
		os.Exit(1)
	}
	raw, _ := json.MarshalIndent(results, "", "  ")
	if err := os.WriteFile(*out, append(raw, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "matrix-runner:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "go runner: %d cases (%d through typed params, %d raw params, %d without a Go method)\n",
		stats.total, stats.typed, stats.raw, stats.untyped)
}
