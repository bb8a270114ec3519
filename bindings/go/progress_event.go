package turngate

import (
	"encoding/json"
	"fmt"
)

// ProgressEventKind is the event of a "progress" notification.
type ProgressEventKind string

// Progress events of session.verify_commands.
const (
	ProgressCheckStarted  ProgressEventKind = "check_started"
	ProgressCheckFinished ProgressEventKind = "check_finished"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (ProgressEventKind) Values() []string { return []string{"check_started", "check_finished"} }

// ProgressEvent is the params of a "progress" notification sent while
// session.verify_commands runs: check_started before a check (Index is its 0-based
// position among Total commands), check_finished after it with Status, ExitCode (nil when the
// command could not run) and DurationMS (wall time in milliseconds). RequestID is the JSON
// id of the request it belongs to.
type ProgressEvent struct {
	Event      ProgressEventKind  `json:"event"`
	RequestID  json.RawMessage    `json:"request_id"`
	Index      int                `json:"index"`
	Total      int                `json:"total"`
	CheckID    string             `json:"check_id"`
	Command    string             `json:"command"`
	Status     VerificationStatus `json:"status,omitempty"`
	ExitCode   *int               `json:"exit_code,omitempty"`
	DurationMS *float64           `json:"duration_ms,omitempty"`
}

// Progress decodes a "progress" notification's params. It returns a *ProtocolError
// ("bad_result") for another method or params of the wrong shape.
func (n Notification) Progress() (*ProgressEvent, error) {
	if n.Method != "progress" {
		return nil, &ProtocolError{Code: "bad_result", Method: n.Method, Message: fmt.Sprintf("notification %q is not progress", n.Method)}
	}
	var ev ProgressEvent
	if err := decodeResult("progress", n.Params, &ev); err != nil {
		return nil, err
	}
	return &ev, nil
}
