package turngate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// cliEntry is the built CLI inside a turngate checkout, relative to its root.
var cliEntry = filepath.Join("packages", "cli", "dist", "bin.js")

// bridgeArgs are the CLI arguments that start the stdio bridge.
var bridgeArgs = []string{"bridge", "--stdio"}

// resolveCommand picks the bridge command line, in this order:
//  1. WithCommand, verbatim;
//  2. $TURNGATE_BRIDGE, the turngate CLI to run: a path ending in .js/.mjs/.cjs runs with
//     node, anything else is split like a shell command line (as the Python binding does);
//     `bridge --stdio` is appended either way;
//  3. packages/cli/dist/bin.js in the start directory or the nearest ancestor holding one;
//  4. `turngate` on PATH.
//
// node comes from WithNode, else $TURNGATE_NODE, else `node` on PATH. It returns
// a *BridgeError with Code "bridge_not_found" when nothing is found.
func resolveCommand(cfg *config) (string, []string, error) {
	if cfg.command != "" {
		return cfg.command, cfg.args, nil
	}
	var tried []string
	if b := os.Getenv("TURNGATE_BRIDGE"); b != "" {
		if isJS(b) {
			return withNode(cfg, b)
		}
		argv, err := splitCommandLine(b)
		if err != nil || len(argv) == 0 {
			return "", nil, notFound([]string{"$TURNGATE_BRIDGE (" + b + ")"}, err)
		}
		return argv[0], append(argv[1:], bridgeArgs...), nil
	}
	tried = append(tried, "$TURNGATE_BRIDGE (unset)")
	start := cfg.dir
	if start == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", nil, notFound(tried, err)
		}
		start = wd
	}
	if entry, ok := findUp(start, cliEntry); ok {
		return withNode(cfg, entry)
	}
	tried = append(tried, cliEntry+" in "+start+" or above")
	path, err := exec.LookPath("turngate")
	if err == nil {
		return path, append([]string(nil), bridgeArgs...), nil
	}
	tried = append(tried, "turngate on PATH")
	return "", nil, notFound(tried, err)
}

// isJS reports whether path names a JavaScript file (run with node).
func isJS(path string) bool {
	for _, ext := range []string{".js", ".mjs", ".cjs"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}

// withNode returns the command that runs a JavaScript CLI entry with node.
func withNode(cfg *config, entry string) (string, []string, error) {
	node := cfg.node
	if node == "" {
		node = os.Getenv("TURNGATE_NODE")
	}
	if node == "" {
		p, err := exec.LookPath("node")
		if err != nil {
			return "", nil, notFound([]string{"$TURNGATE_NODE (unset)", "node on PATH"}, err)
		}
		node = p
	}
	return node, append([]string{entry}, bridgeArgs...), nil
}

// findUp looks for rel in dir and each of its ancestors; it returns the first match.
func findUp(dir, rel string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		candidate := filepath.Join(dir, rel)
		if st, err := os.Stat(candidate); err == nil && !st.IsDir() {
			return candidate, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// notFound is the *BridgeError ("bridge_not_found") listing what was tried, in order.
func notFound(tried []string, err error) *BridgeError {
	return &BridgeError{Code: "bridge_not_found", Message: "could not find the turngate bridge; tried " + strings.Join(tried, ", "), Err: err}
}
