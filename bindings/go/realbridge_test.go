package turngate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// realClient starts the real bridge the way a Go host would: TURNGATE_BRIDGE, else the
// repository's built CLI (packages/cli/dist/bin.js above this directory), else `turngate`
// on PATH. A missing bridge FAILS the test with instructions — CI builds before testing,
// so a skip would hide a broken build.
func realClient(t testing.TB, opts ...Option) *Client {
	t.Helper()
	c, err := Start(t.Context(), opts...)
	var be *BridgeError
	if errors.As(err, &be) && be.Code == "bridge_not_found" {
		t.Fatalf("the turngate bridge is required: build the CLI first (pnpm install && pnpm exec turbo run build, as ./scripts/dev test does) or set TURNGATE_BRIDGE\n%v", err)
	}
	if err != nil {
		t.Fatalf("starting the turngate bridge: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("bridge did not shut down cleanly: %v", err)
		}
	})
	return c
}

// gitWorkspace makes a temporary git repository with one committed file (README.md).
func gitWorkspace(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	writeFile(t, dir, "README.md", "# fixture\n")
	run("add", "README.md")
	run("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
	return dir
}

// realSession starts the real bridge (realClient) and creates a session on a fresh
// gitWorkspace; it returns the session and the workspace root. The bridge is closed when
// the test ends; closing the session is left to the test.
func realSession(t testing.TB) (*Session, string) {
	t.Helper()
	root := gitWorkspace(t)
	session, err := realClient(t).CreateSession(t.Context(), SessionCreateParams{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	return session, root
}

func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sha256Hex is the lowercase hex SHA-256 of s.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
