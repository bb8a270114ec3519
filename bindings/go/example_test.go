package turngate_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	turngate "github.com/turngate/turngate/bindings/go"
)

// A Go host ends an agent's turn only when a passing report is bound to the bytes the turn
// changed. This is the "Go" example of docs/bindings.md (docs_example_test.go keeps the two
// identical).
func Example_verifiedTurn() {
	ctx := context.Background()
	// Finds the bridge: $TURNGATE_BRIDGE, the repository's built CLI, or `turngate` on PATH.
	client, err := turngate.Start(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	root, err := os.MkdirTemp("", "turngate-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	session, err := client.CreateSession(ctx, turngate.SessionCreateParams{Root: root})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close(ctx)

	// The agent's write tool created hello.txt; the host observes the tool result.
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	observed, err := session.ObserveTool(ctx, "write", 0, map[string]any{"file_path": "hello.txt", "after": "hello\n"})
	if err != nil {
		log.Fatal(err)
	}

	// The host's checks passed on exactly these bytes: bind the report to the effect digest.
	report := turngate.VerificationReport{
		Subject: "unit tests",
		Status:  turngate.StatusPassed,
		Checks: []turngate.VerificationCheck{
			{ID: "unit", Kind: "test", Description: "go test ./...", Status: turngate.StatusPassed, Required: true},
		},
		EffectDigest: &observed.EffectDigest,
	}
	if _, err := session.RecordVerificationReports(ctx, []turngate.VerificationReport{report}); err != nil {
		log.Fatal(err)
	}

	outcome, err := session.Decide(ctx)
	if err != nil {
		log.Fatal(err)
	}
	digest, verified := outcome.Verified()
	fmt.Println(outcome.Kind, outcome.Terminal.Kind, verified)
	fmt.Println(digest)
	// Output:
	// allow verified true
	// 53d354dbc485e76334c73aebdea5f24d82c06572a91325bdab0e3e01c14b96ac
}
