package turngate

// Wire params and results of the bridge methods, one struct per method, named after the
// wire name ("ledger.digest" → LedgerDigestParams / LedgerDigestResult). The typed methods
// of Client and Session build these; the parity test checks each against
// packages/bridge/schema/protocol.json. Session methods leave out session_id: the Session
// adds its own.

// LedgerDigestParams are the params of ledger.digest.
type LedgerDigestParams struct {
	Records []MutationRecord `json:"records"`
}

// LedgerDigestResult is the result of ledger.digest.
type LedgerDigestResult struct {
	EffectDigest string `json:"effect_digest"`
}

// LedgerContentDigestParams are the params of ledger.content_digest.
type LedgerContentDigestParams struct {
	Metadata map[string]any `json:"metadata"`
}

// LedgerContentDigestResult is the result of ledger.content_digest.
type LedgerContentDigestResult struct {
	ContentDigest string `json:"content_digest"`
}

// GateDecideParams are the params of gate.decide: the ledger, host reports, host waivers,
// whether a "continue" outcome may be returned, and external observations.
type GateDecideParams struct {
	Ledger            LedgerState           `json:"ledger"`
	Reports           []VerificationReport  `json:"reports,omitzero"`
	Waivers           []CompletionWaiver    `json:"waivers,omitzero"`
	AllowContinuation bool                  `json:"allow_continuation,omitempty"`
	Observations      []ExternalObservation `json:"observations,omitzero"`
}

// ReportDeriveStatusParams are the params of report.derive_status.
type ReportDeriveStatusParams struct {
	Checks        []VerificationCheck `json:"checks"`
	ResidualRisks []string            `json:"residual_risks,omitzero"`
}

// ReportDeriveStatusResult is the result of report.derive_status.
type ReportDeriveStatusResult struct {
	Status VerificationStatus `json:"status"`
}

// VerificationSummaryParams are the params of verification.summary.
type VerificationSummaryParams struct {
	Reports []VerificationReport `json:"reports"`
}

// VerificationSummaryTextParams are the params of verification.summary_text.
type VerificationSummaryTextParams struct {
	Summary VerificationSummary `json:"summary"`
}

// VerificationSummaryTextResult is the result of verification.summary_text and
// session.summary_text.
type VerificationSummaryTextResult struct {
	Text string `json:"text"`
}

// WaiverValidateParams are the params of waiver.validate. Waiver is any JSON value: it is
// what gets validated.
type WaiverValidateParams struct {
	Waiver any `json:"waiver"`
}

// SessionOptions are the host options of session.create: extra gitignore-style Ignores
// patterns for the workspace observer, UseGit to force (true) or forbid (false) git
// mode (nil: detect), Sandboxed, the host's claim that the agent runs as another OS user
// or in a sandbox (the proof's trust; nil: unsandboxed), and RewritePaths: lockfiles a
// passing check may rewrite, after which the checks run once more (lockfile names only,
// e.g. "Cargo.lock"; issue 10).
type SessionOptions struct {
	Ignores      []string `json:"ignores,omitzero"`
	UseGit       *bool    `json:"use_git,omitempty"`
	Sandboxed    *bool    `json:"sandboxed,omitempty"`
	RewritePaths []string `json:"rewrite_paths,omitzero"`
	// ExistenceEvidence lets an existence check in a bash command (test -f P on a mutated
	// path whose bytes match the ledger) bind the turn's passing reports or synthesise
	// shell:mutation_path_verify:<path> (issue 13); nil/false: off.
	ExistenceEvidence *bool `json:"existence_evidence,omitempty"`
	// VerifierCommand is the read-only verifier (a3s-completion-gate.md §2.18): run once per
	// turn before the gate when the turn mutated the workspace; any change it makes voids its
	// report. VerifierTimeoutMS is its timeout (default 120000, at least 1000).
	VerifierCommand   *string `json:"verifier_command,omitempty"`
	VerifierTimeoutMS *int    `json:"verifier_timeout_ms,omitempty"`
	// AllowContinuation lets the gate answer continue once per turn for an open external
	// observation (never for an unverified mutation).
	AllowContinuation *bool `json:"allow_continuation,omitempty"`
	// Isolation is where bound checks run (clean-room, in-place or auto; default in-place),
	// decided when the session starts (docs/design.md §3b).
	Isolation IsolationMode `json:"isolation,omitempty"`
	// Network lets clean-room checks reach the network (default: loopback only).
	Network *bool `json:"network,omitempty"`
	// Setup is the clean room's dependency setup (docs/design.md §3b): a shell command
	// (string) run in the room with network when a dependency folder changed during the
	// turn, or false to never run one (a changed folder stays hidden); nil: the preset's
	// default (npm ci, pnpm install --frozen-lockfile, pip install -e . into a room venv).
	Setup any `json:"setup,omitempty"`
	// ContinueFrom is the baseline an earlier session's Session.Baseline returned (a
	// turngate.workspace_snapshot.v1 of this root; docs/cli.md "Gapless turns"): the session
	// starts from it instead of the workspace now, so whatever changed since is in its
	// ledger. nil: a fresh baseline. Refused (invalid_snapshot) when malformed or of
	// another root.
	ContinueFrom map[string]any `json:"continue_from,omitzero"`
}

// SessionCreateParams are the params of session.create: the workspace root (absolute, or
// relative to the bridge's working directory), host waivers the gate honours, and options.
type SessionCreateParams struct {
	Root    string             `json:"root"`
	Waivers []CompletionWaiver `json:"waivers,omitzero"`
	Options *SessionOptions    `json:"options,omitempty"`
}

// SessionCreateResult is the result of session.create.
type SessionCreateResult struct {
	SessionID string `json:"session_id"`
}

// SessionObserveToolParams are the params of session.observe_tool (without session_id):
// the tool name, its exit code and its metadata ({"path", "after", …}; nil sends none).
type SessionObserveToolParams struct {
	Tool     string         `json:"tool"`
	ExitCode int            `json:"exit_code"`
	Metadata map[string]any `json:"metadata,omitzero"`
}

// SessionObserveToolResult is the result of session.observe_tool: the ledger rows the
// observation added, the ledger's effect digest afterwards ("" while empty), the reports
// the result contributed (a host/verifier verification_report from its metadata, or the
// shell:<id> report of a bash command covering a preset) and those refused (issue 13).
type SessionObserveToolResult struct {
	EffectDigest   string               `json:"effect_digest"`
	Added          []MutationRecord     `json:"added"`
	Reports        []VerificationReport `json:"reports"`
	RefusedReports []RefusedReport      `json:"refused_reports"`
	Existence      *ExistenceEvidence   `json:"existence,omitempty"`
}

// SessionObserveWorkspaceResult is the result of session.observe_workspace: the paths that
// changed against the baseline, whether every path could be read (Complete false makes
// the gate answer observation_incomplete; Unreadable lists the paths), and the ledger's
// effect digest afterwards.
type SessionObserveWorkspaceResult struct {
	EffectDigest string            `json:"effect_digest"`
	Changes      []WorkspaceChange `json:"changes"`
	Complete     bool              `json:"complete"`
	Unreadable   []string          `json:"unreadable"`
}

// SessionSettleChildParams are the params of session.settle_child (without session_id):
// the workspace_child id of the background task that has finished.
type SessionSettleChildParams struct {
	TaskID string `json:"task_id"`
}

// SessionSettleChildResult is the result of session.settle_child: whether an open child had
// the task id (Settled false: none had it), the task ids still open, and the workspace
// re-read that followed, as in SessionObserveWorkspaceResult.
type SessionSettleChildResult struct {
	Settled      bool              `json:"settled"`
	OpenChildren []string          `json:"open_children"`
	EffectDigest string            `json:"effect_digest"`
	Changes      []WorkspaceChange `json:"changes"`
	Complete     bool              `json:"complete"`
	Unreadable   []string          `json:"unreadable"`
}

// SessionEffectDigestResult is the result of session.effect_digest: the ledger's effect
// digest ("" while the ledger is empty).
type SessionEffectDigestResult struct {
	EffectDigest string `json:"effect_digest"`
}

// SessionBaselineResult is the result of session.baseline: the current turn's baseline as a
// turngate.workspace_snapshot.v1 object, to pass as SessionOptions.ContinueFrom.
type SessionBaselineResult struct {
	Baseline map[string]any `json:"baseline"`
}

// SessionRecordReportsParams are the params of session.record_reports (without session_id).
type SessionRecordReportsParams struct {
	Reports []VerificationReport `json:"reports"`
}

// SessionRecordReportsResult is the result of session.record_reports.
type SessionRecordReportsResult struct {
	Recorded int `json:"recorded"`
}

// SessionReportsResult is the result of session.reports.
type SessionReportsResult struct {
	Reports []VerificationReport `json:"reports"`
}

// SessionPresetsResult is the result of session.presets.
type SessionPresetsResult struct {
	Presets []VerificationPreset `json:"presets"`
}

// SessionVerifyCommandsParams are the params of session.verify_commands (without
// session_id): the report subject, the commands, and whether to bind the report to the
// effect digest (the workspace is snapshotted before and after the checks).
type SessionVerifyCommandsParams struct {
	Subject  string                `json:"subject"`
	Commands []VerificationCommand `json:"commands"`
	Bind     bool                  `json:"bind,omitempty"`
	// Isolation overrides the session's isolation for these bound checks (empty: the session's).
	Isolation IsolationMode `json:"isolation,omitempty"`
}

// SessionVerifyCommandsResult is the result of session.verify_commands: the recorded
// report, whether it was bound to the effect digest, and one run per command.
type SessionVerifyCommandsResult struct {
	Report    VerificationReport `json:"report"`
	Binding   ReportBinding      `json:"binding"`
	Runs      []CommandRun       `json:"runs"`
	Isolation Isolation          `json:"isolation"`
}

// SessionProofResult is the result of session.proof.
type SessionProofResult struct {
	Proof TurnProof `json:"proof"`
}

// Empty is the result of methods that return {} (session.close, shutdown).
type Empty struct{}
