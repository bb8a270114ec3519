package turngate

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The error model mirrors the Python binding (bindings/python/src/turngate/errors.py):
//
//	*BridgeError         the bridge process could not start, exited, or the client is closed
//	*ProtocolError       the conversation broke JSON-RPC / turngate.bridge.v1
//	*InvalidParamsError  the bridge rejected a parameter; Path names it
//	*RemoteError         the bridge answered with another stable code (session_not_found, …)
//
// Wire codes (error.data.code, docs/design.md §5) map: "invalid_params" → *InvalidParamsError;
// "parse_error", "invalid_request", "method_not_found", "too_large" → *ProtocolError; any
// other code → *RemoteError. A cancelled or expired context comes back wrapped, so
// errors.Is(err, context.Canceled) / context.DeadlineExceeded work.

// ErrClosed is returned by calls made after Close began and by calls still pending when
// Close shut the bridge down. It is a *BridgeError with Code "closed"; test with errors.Is.
var ErrClosed = &BridgeError{Code: "closed", Message: "the turngate client is closed"}

// ErrNotStarted is returned by calls on a Client from New whose Start has not succeeded.
var ErrNotStarted = &BridgeError{Code: "not_started", Message: "the turngate client is not started"}

// protocolCodes are the wire codes that mean the conversation itself was wrong.
var protocolCodes = map[string]bool{"parse_error": true, "invalid_request": true, "method_not_found": true, "too_large": true}

// BridgeError reports the bridge process itself: it could not be found ("bridge_not_found")
// or started ("bridge_spawn"), it exited or closed stdout ("bridge_exited"; every call
// pending at that moment fails with the same error), or the client was closed ("closed",
// ErrClosed). Stderr holds the last bytes the bridge wrote to stderr (WithStderrTail,
// default 8 KiB), which usually explain a crash.
type BridgeError struct {
	Code     string // "bridge_not_found", "bridge_spawn", "bridge_exited", "closed", "not_started"
	Message  string
	ExitCode int    // exit code when Code is "bridge_exited"; -1 when ended by a signal
	Signal   string // signal name ("killed", "terminated", …) or ""
	Stderr   string // tail of the bridge's stderr
	Err      error  // underlying cause (exec or lookup error), if any
}

// Error renders "turngate: <message>" plus the stderr tail, when there is one.
func (e *BridgeError) Error() string {
	msg := "turngate: " + e.Message
	if tail := strings.TrimSpace(e.Stderr); tail != "" {
		msg += "\n--- bridge stderr (tail) ---\n" + tail
	}
	return msg
}

// Unwrap returns the underlying cause, if any.
func (e *BridgeError) Unwrap() error { return e.Err }

// ProtocolError reports a conversation that broke the wire contract: a line that is not a
// JSON object or is over the message limit, a response with neither result nor error, a
// wrong "jsonrpc" version or protocol id ("protocol_violation"); a result that does not
// decode into the Go type ("bad_result", Field names the JSON field); a request over the
// limit ("too_large"); or a bridge error with a protocol code ("parse_error",
// "invalid_request", "method_not_found", "too_large"). Stream-level violations are fatal:
// the client kills the bridge and every pending call fails with the same error.
type ProtocolError struct {
	Code    string // see above
	Method  string // the call it belongs to, "" for a stream-level violation
	Message string
	Field   string          // JSON field that failed to decode ("bad_result"), else ""
	Line    string          // the offending line, at most 200 bytes
	Data    json.RawMessage // error.data as received, for a bridge error; else nil
	Err     error           // underlying decode error, if any
}

// Error renders "turngate: [<method>: ]<message>" with the field and line when known.
func (e *ProtocolError) Error() string {
	var b strings.Builder
	b.WriteString("turngate: ")
	if e.Method != "" {
		b.WriteString(e.Method + ": ")
	}
	b.WriteString(e.Message)
	if e.Field != "" {
		fmt.Fprintf(&b, " (field %s)", e.Field)
	}
	if e.Line != "" {
		fmt.Fprintf(&b, "; line: %q", e.Line)
	}
	return b.String()
}

// Unwrap returns the underlying decode error, if any.
func (e *ProtocolError) Unwrap() error { return e.Err }

// InvalidParamsError is the bridge's "invalid_params": the request's params did not match
// the method's schema. Path is the dotted path of the offending field relative to params,
// e.g. "reports.0.checks.1.status" ("" when the params object itself is wrong).
// Data keeps error.data as received.
type InvalidParamsError struct {
	Method  string
	Path    string
	Message string
	RPCCode int             // JSON-RPC error.code (-32602)
	Data    json.RawMessage // error.data as received ({code, path?, message})
}

// Error renders "turngate: <method>: <message>" (the message names the path).
func (e *InvalidParamsError) Error() string { return "turngate: " + e.Method + ": " + e.Message }

// RemoteError is any other stable error code from the bridge: "session_not_found",
// "session_closed", "report_status_mismatch", "report_author_rejected",
// "internal_error", …. Path is the field path when the bridge named one.
type RemoteError struct {
	Method  string
	Code    string // error.data.code
	Path    string // error.data.path, "" when absent (Data tells the two apart)
	Message string
	RPCCode int             // JSON-RPC error.code
	Data    json.RawMessage // error.data as received ({code, path?, message})
}

// Error renders "turngate: <method>: <message>".
func (e *RemoteError) Error() string { return "turngate: " + e.Method + ": " + e.Message }
