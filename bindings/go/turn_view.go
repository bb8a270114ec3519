package turngate

import "context"

// TurnViewSchema is the schema id of the view model of a turn (issue 21).
const TurnViewSchema = "turngate.turn_view.v1"

// TurnViewSource says what a view was built from: a proof alone, or a turn's result.
type TurnViewSource string

// Values lists every allowed value, in the schema's order.
func (TurnViewSource) Values() []string { return []string{"proof", "result"} }

// TurnViewVerdict is the terminal kind of an allowed turn, else the gate's outcome kind.
type TurnViewVerdict string

// Values lists every allowed value, in the schema's order.
func (TurnViewVerdict) Values() []string {
	return []string{"verified", "waived", "narrative", "distinct", "incomplete", "continue"}
}

// TurnViewChange is what a turn did to one path, as the view names it.
type TurnViewChange string

// Values lists every allowed value, in the schema's order.
func (TurnViewChange) Values() []string {
	return []string{"added", "modified", "deleted", "ignored", "output", "harness", "environment", "changed"}
}

// TurnViewScope is where a changed path lies.
type TurnViewScope string

// Values lists every allowed value, in the schema's order.
func (TurnViewScope) Values() []string {
	return []string{"source", "ignored", "output", "harness", "environment"}
}

// TurnViewObservedChange is the observer's kind of change (input of a view).
type TurnViewObservedChange string

// Values lists every allowed value, in the schema's order.
func (TurnViewObservedChange) Values() []string { return []string{"added", "modified", "deleted"} }

// TurnViewObservedScope is the observer's scope of a changed path (input of a view).
type TurnViewObservedScope string

// Values lists every allowed value, in the schema's order.
func (TurnViewObservedScope) Values() []string {
	return []string{"source", "ignored", "output", "harness"}
}

// TurnViewDiffKind says which fields of a TurnViewDiff are set.
type TurnViewDiffKind string

// Values lists every allowed value, in the schema's order.
func (TurnViewDiffKind) Values() []string {
	return []string{"text", "binary", "too_large", "unavailable"}
}

// TurnViewDiff is one file's diff against the baseline, by Kind: "text" (Unified, the
// Additions/Deletions line counts, Truncated when cut at the view's limit), "binary" and
// "too_large" (OldBytes/NewBytes, LimitBytes, in bytes), "unavailable" (Reason).
type TurnViewDiff struct {
	Kind       TurnViewDiffKind `json:"kind"`
	Unified    *string          `json:"unified,omitempty"`
	Additions  *int             `json:"additions,omitempty"`
	Deletions  *int             `json:"deletions,omitempty"`
	Truncated  *bool            `json:"truncated,omitempty"`
	OldBytes   *int             `json:"old_bytes,omitempty"`
	NewBytes   *int             `json:"new_bytes,omitempty"`
	LimitBytes *int             `json:"limit_bytes,omitempty"`
	Reason     *string          `json:"reason,omitempty"`
}

// TurnViewFileDiff is a diff the host computed for one path (input of a view).
type TurnViewFileDiff struct {
	Path   string                 `json:"path"`
	Change TurnViewObservedChange `json:"change,omitempty"`
	Diff   TurnViewDiff           `json:"diff"`
}

// TurnViewObserved is one change the observer saw (input of a view).
type TurnViewObserved struct {
	Path   string                 `json:"path"`
	Change TurnViewObservedChange `json:"change"`
	Scope  TurnViewObservedScope  `json:"scope"`
}

// TurnViewRun is how one check ran (input of a view): DurationMs in ms, the output, the
// log's path and SHA-256.
type TurnViewRun struct {
	ID           string   `json:"id"`
	Command      string   `json:"command"`
	DurationMs   *float64 `json:"duration_ms"`
	ExitCode     *int     `json:"exit_code"`
	TimedOut     bool     `json:"timed_out"`
	FailureClass *string  `json:"failure_class"`
	Output       string   `json:"output"`
	LogPath      *string  `json:"log_path"`
	LogSHA256    *string  `json:"log_sha256"`
	Hint         *string  `json:"hint,omitempty"`
	// FailureDigest is what `turngate run` printed under a check that did not pass: its
	// failing tests with the first lines of each failure, then the output's last lines.
	FailureDigest []string `json:"failure_digest,omitzero"`
}

// TurnViewOutputs are the files the configuration's "outputs" named that the checks wrote
// in the clean room, copied out to Dir (outside the workspace); Paths are relative to Dir.
type TurnViewOutputs struct {
	Dir   string   `json:"dir"`
	Paths []string `json:"paths"`
}

// TurnViewAffectedTarget is an affected target, passed through from the facts.
type TurnViewAffectedTarget struct {
	Target string   `json:"target"`
	Reason *string  `json:"reason,omitempty"`
	Via    []string `json:"via,omitzero"`
}

// TurnViewFacts are the facts of a turn a view is built from: a TurnProof's fields.
type TurnViewFacts struct {
	EffectDigest string                 `json:"effect_digest"`
	Records      []MutationRecord       `json:"records"`
	Reports      []VerificationReport   `json:"reports"`
	WaiversUsed  []CompletionWaiver     `json:"waivers_used,omitzero"`
	Outcome      GateOutcome            `json:"outcome"`
	Workspace    *TurnProofWorkspace    `json:"workspace,omitempty"`
	EvidenceLogs []TurnProofEvidenceLog `json:"evidence_logs,omitzero"`
	Trust        TurnProofTrust         `json:"trust,omitempty"`
	StartedAt    *string                `json:"started_at,omitempty"`
	FinishedAt   *string                `json:"finished_at,omitempty"`
}

// FactsOfProof are the view facts of a proof (its fields, without schema, terminal and
// tool versions).
func FactsOfProof(p TurnProof) TurnViewFacts {
	started, finished := p.StartedAt, p.FinishedAt
	return TurnViewFacts{
		EffectDigest: p.EffectDigest, Records: p.Records, Reports: p.Reports,
		WaiversUsed: p.WaiversUsed, Outcome: p.Outcome, Workspace: p.Workspace,
		EvidenceLogs: p.EvidenceLogs, Trust: p.Trust, StartedAt: &started, FinishedAt: &finished,
	}
}

// ReportTurnViewParams are the params of report.turn_view: the turn's facts and what the
// host adds (check runs, observer changes, diffs or why there are none, attempts, affected
// targets, HUD text). Source "" sends none (the bridge's default is "proof").
type ReportTurnViewParams struct {
	Turn             TurnViewFacts            `json:"turn"`
	Source           TurnViewSource           `json:"source,omitempty"`
	Runs             []TurnViewRun            `json:"runs,omitzero"`
	Changes          []TurnViewObserved       `json:"changes,omitzero"`
	Diffs            []TurnViewFileDiff       `json:"diffs,omitzero"`
	DiffsUnavailable *string                  `json:"diffs_unavailable,omitempty"`
	Attempts         *int                     `json:"attempts,omitempty"`
	AffectedTargets  []TurnViewAffectedTarget `json:"affected_targets,omitzero"`
	Hud              *string                  `json:"hud,omitempty"`
	Outputs          *TurnViewOutputs         `json:"outputs,omitempty"`
}

// TurnViewLog is a check's log: its local path, file: URL and SHA-256 (nil when unknown).
type TurnViewLog struct {
	Path   *string `json:"path"`
	URI    *string `json:"uri"`
	SHA256 *string `json:"sha256"`
}

// TurnViewCheck is one check of the turn: the report's check joined with how it ran
// (DurationMs in ms; nil for a view built from a proof alone).
type TurnViewCheck struct {
	ID           string             `json:"id"`
	Kind         string             `json:"kind"`
	Description  string             `json:"description"`
	Command      *string            `json:"command"`
	Status       VerificationStatus `json:"status"`
	Required     bool               `json:"required"`
	FailureClass *string            `json:"failure_class"`
	DurationMs   *float64           `json:"duration_ms"`
	ExitCode     *int               `json:"exit_code"`
	ResidualRisk *string            `json:"residual_risk"`
	Hint         *string            `json:"hint"`
	Tests        *CheckTestCounts   `json:"tests"`
	FailingTests []string           `json:"failing_tests"`
	// FailureDigest is the run's failure digest (failing tests with their failures, then
	// the tail) when the view has the run and the check did not pass; empty otherwise.
	FailureDigest []string     `json:"failure_digest"`
	OutputTail    []string     `json:"output_tail"`
	OutputLines   int          `json:"output_lines"`
	Log           *TurnViewLog `json:"log"`
}

// TurnViewFile is a path the turn changed, with its diff against the baseline.
type TurnViewFile struct {
	Path          string         `json:"path"`
	Change        TurnViewChange `json:"change"`
	Scope         TurnViewScope  `json:"scope"`
	Tool          string         `json:"tool"`
	ContentDigest string         `json:"content_digest"`
	Diff          TurnViewDiff   `json:"diff"`
}

// TurnViewCheckCounts are the checks by status.
type TurnViewCheckCounts struct {
	Passed      int `json:"passed"`
	Failed      int `json:"failed"`
	NeedsReview int `json:"needs_review"`
	Skipped     int `json:"skipped"`
}

// TurnViewFileCounts are the files by kind.
type TurnViewFileCounts struct {
	Added        int `json:"added"`
	Modified     int `json:"modified"`
	Deleted      int `json:"deleted"`
	OutsideScope int `json:"outside_scope"`
	Environment  int `json:"environment"`
}

// TurnViewCounts are the summary's counts: checks, files, added and deleted diff lines.
type TurnViewCounts struct {
	Checks    TurnViewCheckCounts `json:"checks"`
	Files     TurnViewFileCounts  `json:"files"`
	Additions int                 `json:"additions"`
	Deletions int                 `json:"deletions"`
}

// TurnViewDiffs says whether diffs are available (else Reason) and which trees they compare.
type TurnViewDiffs struct {
	Available    bool    `json:"available"`
	Reason       *string `json:"reason"`
	BaselineTree *string `json:"baseline_tree"`
	FinalTree    *string `json:"final_tree"`
}

// TurnView is turngate.turn_view.v1 (issue 21): what `turngate show` prints.
type TurnView struct {
	Schema          string                   `json:"schema"`
	Source          TurnViewSource           `json:"source"`
	Verdict         TurnViewVerdict          `json:"verdict"`
	EffectDigest    string                   `json:"effect_digest"`
	Reason          *string                  `json:"reason"`
	Message         *string                  `json:"message"`
	Root            *string                  `json:"root"`
	Trust           *TurnProofTrust          `json:"trust"`
	StartedAt       *string                  `json:"started_at"`
	FinishedAt      *string                  `json:"finished_at"`
	Counts          TurnViewCounts           `json:"counts"`
	Checks          []TurnViewCheck          `json:"checks"`
	Files           []TurnViewFile           `json:"files"`
	Diffs           TurnViewDiffs            `json:"diffs"`
	Waivers         []CompletionWaiver       `json:"waivers"`
	Attempts        *int                     `json:"attempts"`
	AffectedTargets []TurnViewAffectedTarget `json:"affected_targets"`
	Hud             *string                  `json:"hud"`
	// Outputs are the clean room's copied outputs; nil when none or not known (a proof).
	Outputs *TurnViewOutputs `json:"outputs"`
}

// ReportTurnViewResult is the result of report.turn_view.
type ReportTurnViewResult struct {
	View TurnView `json:"view"`
}

// TurnView builds the turngate.turn_view.v1 view model of a turn (report.turn_view; issue
// 21): from its facts (FactsOfProof of a proof, or the same fields) and what the host adds.
// A bad field is an *InvalidParamsError whose Path names it (turn.outcome.kind).
func (c *Client) TurnView(ctx context.Context, params ReportTurnViewParams) (*TurnView, error) {
	var r ReportTurnViewResult
	if err := c.Call(ctx, "report.turn_view", params, &r); err != nil {
		return nil, err
	}
	return &r.View, nil
}
