package turngate

// BindingReason says why session.verify_commands left its report unbound.
type BindingReason string

// Reasons for an unbound report (DESIGN.md §3 "verifyCommands can bind").
const (
	BindingWorkspaceChanged      BindingReason = "workspace_changed_during_check" // see ChangedPaths
	BindingObservationIncomplete BindingReason = "observation_incomplete"
	BindingNoEffect              BindingReason = "no_effect"     // the ledger was empty
	BindingNotRequested          BindingReason = "not_requested" // bind was false
)

// Values lists every allowed value (the parity test compares it with the schema).
func (BindingReason) Values() []string {
	return []string{"workspace_changed_during_check", "observation_incomplete", "no_effect", "not_requested"}
}

// ReportBinding tells whether session.verify_commands bound its report: Bound with the
// EffectDigest, or not Bound with a Reason — for workspace_changed_during_check also the
// ChangedPaths and Unreadable paths seen between the before and after snapshots.
type ReportBinding struct {
	Bound        bool          `json:"bound"`
	EffectDigest *string       `json:"effect_digest,omitempty"`
	Reason       BindingReason `json:"reason,omitempty"`
	ChangedPaths []string      `json:"changed_paths,omitzero"`
	Unreadable   []string      `json:"unreadable,omitzero"`
}

// CommandRun is how one verification command ran: its check Status, ExitCode (128 +
// signal number when killed; nil if it never ran), Signal name, whether it TimedOut or was
// Aborted, the timeout and wall time in milliseconds, the combined stdout+stderr Output
// (first 64 KiB, a notice, last 36 KiB when longer; TotalBytes counts all of it), the
// LogURI of the full log when one was written, and SpawnError when it could not start.
type CommandRun struct {
	ID         string             `json:"id"`
	Status     VerificationStatus `json:"status"`
	ExitCode   *int               `json:"exit_code"`
	Signal     *string            `json:"signal"`
	TimedOut   bool               `json:"timed_out"`
	Aborted    bool               `json:"aborted"`
	TimeoutMS  float64            `json:"timeout_ms"`
	DurationMS float64            `json:"duration_ms"`
	Output     string             `json:"output"`
	TotalBytes int64              `json:"total_bytes"`
	Truncated  bool               `json:"truncated"`
	LogURI     *string            `json:"log_uri,omitempty"`
	SpawnError *string            `json:"spawn_error,omitempty"`
}
