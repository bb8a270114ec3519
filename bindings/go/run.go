package turngate

// BindingReason says why session.verify_commands left its report unbound.
type BindingReason string

// Reasons for an unbound report (docs/design.md §3 "verifyCommands can bind").
const (
	BindingWorkspaceChanged      BindingReason = "workspace_changed_during_check" // see ChangedPaths
	BindingObservationIncomplete BindingReason = "observation_incomplete"
	BindingNoEffect              BindingReason = "no_effect"     // the ledger was empty
	BindingNotRequested          BindingReason = "not_requested" // bind was false
	// The session required clean-room checks and the sandbox cannot start: no check ran.
	BindingIsolationUnavailable BindingReason = "isolation_unavailable"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (BindingReason) Values() []string {
	return []string{"workspace_changed_during_check", "observation_incomplete", "isolation_unavailable", "no_effect", "not_requested"}
}

// ReportBinding tells whether session.verify_commands bound its report: Bound with the
// EffectDigest, or not Bound with a Reason — for workspace_changed_during_check also the
// ChangedPaths and Unreadable paths seen between the before and after snapshots, and
// Changes (pre-existing source files) / Created (new source files) when there are any.
// Hint says what to do (workspace_changed_during_check, observation_incomplete);
// CheckOutputs lists ignored and output-location files the checks changed (never
// unbinding; nil when none); Rewrites the lockfiles a "rewrite_paths" re-run adopted
// (issue 10, docs/design.md §3a).
type ReportBinding struct {
	Bound        bool           `json:"bound"`
	EffectDigest *string        `json:"effect_digest,omitempty"`
	Reason       BindingReason  `json:"reason,omitempty"`
	ChangedPaths []string       `json:"changed_paths,omitzero"`
	Unreadable   []string       `json:"unreadable,omitzero"`
	Hint         *string        `json:"hint,omitempty"`
	Changes      []SourceChange `json:"changes,omitzero"`
	Created      []string       `json:"created,omitzero"`
	CheckOutputs *CheckOutputs  `json:"check_outputs,omitempty"`
	Rewrites     []CheckRewrite `json:"rewrites,omitzero"`
	// ChangedAfter (clean room) lists source paths the workspace changed while the checks
	// ran; the report stays bound to the bytes that were checked.
	ChangedAfter []string `json:"changed_after,omitzero"`
}

// IsolationMode is where bound checks run (docs/design.md §3b).
type IsolationMode string

// The isolation modes, and "auto" (clean-room where the sandbox starts).
const (
	IsolationCleanRoom IsolationMode = "clean-room"
	IsolationInPlace   IsolationMode = "in-place"
	IsolationAuto      IsolationMode = "auto"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (IsolationMode) Values() []string { return []string{"clean-room", "in-place", "auto"} }

// IsolationRunMode is the isolation that ran: "clean-room" or "in-place" (never "auto").
type IsolationRunMode string

// Values lists every allowed value (the parity test compares it with the schema).
func (IsolationRunMode) Values() []string { return []string{"clean-room", "in-place"} }

// Isolation is where a session's checks ran, as the session decided it (never a claim):
// Mode "clean-room" or "in-place", Requested what was asked for, Available false when a
// required clean room could not start (no check ran), Reason why the sandbox was not used.
type Isolation struct {
	Mode      IsolationRunMode `json:"mode"`
	Requested IsolationMode    `json:"requested"`
	Available bool             `json:"available"`
	Reason    *string          `json:"reason,omitempty"`
}

// OutputScope is where a check output lies: an ignored file or an output location.
type OutputScope string

// The two scopes of a check output.
const (
	OutputScopeIgnored OutputScope = "ignored"
	OutputScopeOutput  OutputScope = "output"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (OutputScope) Values() []string { return []string{"ignored", "output"} }

// CheckOutput is one ignored or output-location file the checks changed.
type CheckOutput struct {
	Path   string      `json:"path"`
	Change ChangeKind  `json:"change"`
	Scope  OutputScope `json:"scope"`
}

// CheckOutputs are the check outputs of a binding: the first 100 Paths by path and the
// exact Count.
type CheckOutputs struct {
	Count int           `json:"count"`
	Paths []CheckOutput `json:"paths"`
}

// CheckRewrite is a lockfile a passing first run rewrote ("rewrite_paths") and the ID of
// the check after which it had first changed.
type CheckRewrite struct {
	Path    string `json:"path"`
	CheckID string `json:"check_id"`
}

// SourceChangeKind is how a pre-existing source file changed while the checks ran;
// metadata: same bytes, but size, mtime, ctime or inode changed.
type SourceChangeKind string

// The three kinds of source change during the checks.
const (
	SourceModified SourceChangeKind = "modified"
	SourceDeleted  SourceChangeKind = "deleted"
	SourceMetadata SourceChangeKind = "metadata"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (SourceChangeKind) Values() []string { return []string{"modified", "deleted", "metadata"} }

// SourceChange is one pre-existing source file the checks changed.
type SourceChange struct {
	Path   string           `json:"path"`
	Change SourceChangeKind `json:"change"`
}

// CommandRun is how one verification command ran: its check Status, ExitCode (128 +
// signal number when killed; nil if it never ran), Signal name, whether it TimedOut or was
// Aborted, the timeout and wall time in milliseconds, the combined stdout+stderr Output
// (first 64 KiB, a notice, last 36 KiB when longer; TotalBytes counts all of it), the
// LogURI of the full log when one was written, SpawnError when it could not start, and
// FailureDigest: for a check that did not pass, its failing tests each with the first lines
// of its failure, then the output's last lines (the lines `turngate run` prints); empty when
// it passed.
type CommandRun struct {
	ID            string             `json:"id"`
	Status        VerificationStatus `json:"status"`
	ExitCode      *int               `json:"exit_code"`
	Signal        *string            `json:"signal"`
	TimedOut      bool               `json:"timed_out"`
	Aborted       bool               `json:"aborted"`
	TimeoutMS     float64            `json:"timeout_ms"`
	DurationMS    float64            `json:"duration_ms"`
	Output        string             `json:"output"`
	TotalBytes    int64              `json:"total_bytes"`
	Truncated     bool               `json:"truncated"`
	LogURI        *string            `json:"log_uri,omitempty"`
	SpawnError    *string            `json:"spawn_error,omitempty"`
	FailureDigest []string           `json:"failure_digest"`
}
