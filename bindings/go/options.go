package turngate

import (
	"encoding/json"
	"io"
	"time"
)

// Option configures a Client; pass options to New or Start.
type Option func(*config)

// Notification is a JSON-RPC notification from the bridge, e.g. a "progress" event
// {request_id, event, …} while session.verify_commands runs.
type Notification struct {
	Method string
	Params json.RawMessage
}

type config struct {
	command       string   // explicit bridge executable; "" means locate it
	args          []string // arguments for command
	node          string   // node executable override
	dir           string   // working directory of the bridge and start of the bin.js search
	env           []string // extra KEY=VALUE entries for the bridge's environment
	stderr        io.Writer
	stderrTail    int
	maxMessage    int
	shutdownGrace time.Duration
	onNotify      func(Notification)
}

func defaultConfig() config {
	return config{stderrTail: 8 << 10, maxMessage: DefaultMaxMessageBytes, shutdownGrace: 3 * time.Second}
}

// WithCommand runs exactly this bridge command (executable and arguments) instead of
// locating one. Useful for a custom build or a test double.
func WithCommand(path string, args ...string) Option {
	return func(c *config) { c.command, c.args = path, append([]string(nil), args...) }
}

// WithNode sets the node executable used to run a JavaScript bridge entry point
// (default: TURNGATE_NODE, else `node` on PATH).
func WithNode(path string) Option { return func(c *config) { c.node = path } }

// WithDir sets the bridge's working directory, which is also where the search for
// packages/cli/dist/bin.js starts (default: the current working directory).
func WithDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithEnv adds KEY=VALUE entries to the bridge's environment (on top of os.Environ()).
func WithEnv(kv ...string) Option { return func(c *config) { c.env = append(c.env, kv...) } }

// WithStderr copies everything the bridge writes to stderr to w as well (default: only the
// tail is kept, for BridgeError). w must be safe to call from another goroutine.
func WithStderr(w io.Writer) Option { return func(c *config) { c.stderr = w } }

// WithStderrTail sets how many trailing bytes of the bridge's stderr are kept for
// BridgeError.Stderr (default 8192).
func WithStderrTail(n int) Option { return func(c *config) { c.stderrTail = n } }

// WithMaxMessageBytes sets the per-line limit in bytes for requests and responses
// (default DefaultMaxMessageBytes, 32 MiB).
func WithMaxMessageBytes(n int) Option { return func(c *config) { c.maxMessage = n } }

// WithShutdownGrace sets how long Close waits for the bridge to exit after the shutdown
// request and closing its stdin before killing it (default 3 s).
func WithShutdownGrace(d time.Duration) Option { return func(c *config) { c.shutdownGrace = d } }

// WithNotificationHandler receives every notification the bridge sends (progress events).
// It runs on the client's reader goroutine: return quickly and do not call the Client
// from it.
func WithNotificationHandler(fn func(Notification)) Option {
	return func(c *config) { c.onNotify = fn }
}
