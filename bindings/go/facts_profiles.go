package turngate

import (
	"context"
	"encoding/json"
)

// Verification facts II (harn-verification.md §1.4, §1.5, §1.9, §1.10, §3.2–3.6): which
// checks apply to an edit, cheapest trustworthy first (the ladder plan), what the HUD
// shows, and check results as profile observations. Field names are the wire keys,
// including Harn's camelCase durationMs, failureSignature and staleFiles. Profile rows and
// record sets are map[string]any (they carry any extra keys a caller stores); their shape
// is packages/core/schema/profile-row.json and profile-record-set.json. A bad field is a
// *RemoteError "invalid_params" whose Path names it ("options.min_rung",
// "options.profiles.rows.0.scope.dir", "result.exit_code", "row_id").

// LadderSkipReason says why a matching row is not runnable (§1.9; the first failing check decides).
type LadderSkipReason string

// Values lists the skip reasons.
func (LadderSkipReason) Values() []string {
	return []string{"missing_or_invalid_rung", "below_min_rung", "above_max_rung", "resource_class_filtered", "stale_prone_filtered", "missing_command"}
}

// LadderReason says why a ladder plan selected what it did.
type LadderReason string

// Values lists the plan reasons.
func (LadderReason) Values() []string {
	return []string{"no_profile_rows", "no_matching_runnable_rows", "profile_rows_selected"}
}

// FreshnessStatus is the HUD's view of the last check's snapshot binding.
type FreshnessStatus string

// Values lists the freshness statuses.
func (FreshnessStatus) Values() []string {
	return []string{"unbound", "bound_fresh", "bound_stale", "unknown_current_hashes"}
}

// HudReason says whether the HUD has anything to show.
type HudReason string

// Values lists the HUD reasons.
func (HudReason) Values() []string {
	return []string{"missing_state", "verification_facts_available", "no_verification_facts"}
}

// ProfileQuery selects profile rows: each value a string (or a number, read as its
// decimal text); nil = absent. A row's scope.dir is a glob matched against Path.
type ProfileQuery struct {
	Repo     any `json:"repo,omitempty"`
	Path     any `json:"path,omitempty"`
	Language any `json:"language,omitempty"`
	Task     any `json:"task,omitempty"`
}

// ProfileMatchesOptions: the record set to read (nil = no store) and the store directory
// (Harn's dir relative to the call's store_dir; without a store_dir it changes nothing).
type ProfileMatchesOptions struct {
	Profiles map[string]any `json:"profiles,omitzero"`
	Dir      *string        `json:"dir,omitempty"`
}

// LadderPlanOptions are the options of facts.ladder_plan (§1.9). MinRung / MaxRung: "R2",
// "2" or 2. ResourceClasses: a string or []string. TimingKind: warm | cold | any | auto.
// WarmStateFacts: a list of facts with row_id / id, or a map keyed by row id.
// UnknownP95Ms defaults to 999999 ms.
type LadderPlanOptions struct {
	Profiles               map[string]any `json:"profiles,omitzero"`
	Dir                    *string        `json:"dir,omitempty"`
	MinRung                any            `json:"min_rung,omitempty"`
	MaxRung                any            `json:"max_rung,omitempty"`
	ResourceClasses        any            `json:"resource_classes,omitempty"`
	AllowedResourceClasses any            `json:"allowed_resource_classes,omitempty"`
	TimingKind             *string        `json:"timing_kind,omitempty"`
	WarmStateFacts         any            `json:"warm_state_facts,omitempty"`
	WarmStates             any            `json:"warm_states,omitempty"`
	UnknownP95Ms           *int           `json:"unknown_p95_ms,omitempty"`
	AllowStaleProne        *bool          `json:"allow_stale_prone,omitempty"`
	Limit                  *int           `json:"limit,omitempty"`
}

// HudOptions are the options of facts.hud_model / facts.hud_text (§1.10). NowMs (ms since
// the epoch) makes the answer deterministic.
type HudOptions struct {
	Profiles        map[string]any `json:"profiles,omitzero"`
	NowMs           any            `json:"now_ms,omitempty"`
	Dir             any            `json:"dir,omitempty"`
	Query           map[string]any `json:"query,omitzero"`
	PlanOptions     map[string]any `json:"plan_options,omitzero"`
	FullPlanOptions map[string]any `json:"full_plan_options,omitzero"`
	NextLimit       any            `json:"next_limit,omitempty"`
	FullMinRung     any            `json:"full_min_rung,omitempty"`
	FullMaxRung     any            `json:"full_max_rung,omitempty"`
	CurrentHashes   map[string]any `json:"current_hashes,omitzero"`
	CurrentSnapshot map[string]any `json:"current_snapshot,omitzero"`
	ResourceClasses any            `json:"resource_classes,omitempty"`
	AllowStaleProne *bool          `json:"allow_stale_prone,omitempty"`
	TimingKind      *string        `json:"timing_kind,omitempty"`
	WarmStateFacts  any            `json:"warm_state_facts,omitempty"`
}

// CheckCommandResult is the part of a command result the observation rules read (§2.5).
type CheckCommandResult struct {
	Ok                  *bool    `json:"ok,omitempty"`
	Success             *bool    `json:"success,omitempty"`
	Status              *string  `json:"status,omitempty"`
	ExitCode            any      `json:"exit_code,omitempty"`
	TimedOut            *bool    `json:"timed_out,omitempty"`
	Stdout              *string  `json:"stdout,omitempty"`
	Stderr              *string  `json:"stderr,omitempty"`
	Combined            *string  `json:"combined,omitempty"`
	DurationMs          *float64 `json:"duration_ms,omitempty"`
	ExecutionDurationMs *float64 `json:"execution_duration_ms,omitempty"`
}

// ObservationOptions are the options of facts.observation_from_command_result (§1.4).
// FailureSignatureFrom: combined (default) | stdout | stderr | none.
type ObservationOptions struct {
	Warm                     *bool          `json:"warm,omitempty"`
	Cold                     *bool          `json:"cold,omitempty"`
	DurationMs               *float64       `json:"duration_ms,omitempty"`
	Exit                     any            `json:"exit,omitempty"`
	Snapshot                 map[string]any `json:"snapshot,omitzero"`
	FailureSignature         any            `json:"failure_signature,omitempty"`
	FailureSignatureFrom     *string        `json:"failure_signature_from,omitempty"`
	MaxFailureSignatureChars *int           `json:"max_failure_signature_chars,omitempty"`
	At                       any            `json:"at,omitempty"`
	NowMs                    *int           `json:"now_ms,omitempty"`
}

// RecordCheckOptions are ObservationOptions plus the record set to record into.
type RecordCheckOptions struct {
	Warm                     *bool          `json:"warm,omitempty"`
	Cold                     *bool          `json:"cold,omitempty"`
	DurationMs               *float64       `json:"duration_ms,omitempty"`
	Exit                     any            `json:"exit,omitempty"`
	Snapshot                 map[string]any `json:"snapshot,omitzero"`
	FailureSignature         any            `json:"failure_signature,omitempty"`
	FailureSignatureFrom     *string        `json:"failure_signature_from,omitempty"`
	MaxFailureSignatureChars *int           `json:"max_failure_signature_chars,omitempty"`
	At                       any            `json:"at,omitempty"`
	NowMs                    *int           `json:"now_ms,omitempty"`
	Profiles                 map[string]any `json:"profiles,omitzero"`
}

// FactsProfileMatchesParams are the params of facts.profile_matches. StoreDir (optional,
// "" = none): the root of the profile store RunCheck records into; the rows seen from
// Options.Dir there replace Options.Profiles (which must then be nil).
type FactsProfileMatchesParams struct {
	Query    *ProfileQuery         `json:"query,omitempty"`
	Options  ProfileMatchesOptions `json:"options,omitzero"`
	StoreDir string                `json:"store_dir,omitempty"`
}

// FactsLadderPlanParams are the params of facts.ladder_plan; StoreDir as for
// FactsProfileMatchesParams.
type FactsLadderPlanParams struct {
	Query    *ProfileQuery     `json:"query,omitempty"`
	Options  LadderPlanOptions `json:"options,omitzero"`
	StoreDir string            `json:"store_dir,omitempty"`
}

// FactsHudModelParams are the params of facts.hud_model (State: any JSON; not an object
// gives the missing_state model). StoreDir: the rows seen from Options.Dir, else the
// state's dir, in that profile store.
type FactsHudModelParams struct {
	State    any        `json:"state"`
	Options  HudOptions `json:"options,omitzero"`
	StoreDir string     `json:"store_dir,omitempty"`
}

// FactsHudTextParams are the params of facts.hud_text: a HUD model or a HUD state;
// StoreDir as for FactsHudModelParams.
type FactsHudTextParams struct {
	ModelOrState any        `json:"model_or_state"`
	Options      HudOptions `json:"options,omitzero"`
	StoreDir     string     `json:"store_dir,omitempty"`
}

// FactsObservationParams are the params of facts.observation_from_command_result.
type FactsObservationParams struct {
	Result  CheckCommandResult `json:"result"`
	Options ObservationOptions `json:"options,omitzero"`
}

// FactsRecordCheckResultParams are the params of facts.record_check_result (RowID: a
// string or a number).
type FactsRecordCheckResultParams struct {
	RowID   any                `json:"row_id"`
	Result  CheckCommandResult `json:"result"`
	Options RecordCheckOptions `json:"options,omitzero"`
}

// ProfileMatch is a row that applies to a query: Specificity is the bit set of its
// declared selectors (repo 1, dir 2, language 4, task 8), Index its position in rows.
type ProfileMatch struct {
	Row         map[string]any `json:"row"`
	Specificity int            `json:"specificity"`
	Index       int            `json:"index"`
}

// FactsProfileMatchesResult is the result of facts.profile_matches.
type FactsProfileMatchesResult struct {
	Matches []ProfileMatch `json:"matches"`
}

// LadderEntry is a runnable row: P95Ms the expected duration in ms, SortKey
// [rung, resource rank, p95, -specificity, index].
type LadderEntry struct {
	RowID         string         `json:"row_id"`
	Row           map[string]any `json:"row"`
	Rung          string         `json:"rung"`
	RungRank      int            `json:"rung_rank"`
	Command       any            `json:"command"`
	Runnable      bool           `json:"runnable"`
	Granularity   any            `json:"granularity"`
	Trust         any            `json:"trust"`
	ResourceClass string         `json:"resource_class"`
	P95Ms         int            `json:"p95_ms"`
	TimingKind    string         `json:"timing_kind"`
	WarmState     any            `json:"warm_state"`
	Specificity   int            `json:"specificity"`
	Index         int            `json:"index"`
	SortKey       []int          `json:"sort_key"`
	Background    any            `json:"background"`
}

// LadderSkip is a matching row that was not selected, and why.
type LadderSkip struct {
	RowID       string           `json:"row_id"`
	Reason      LadderSkipReason `json:"reason"`
	Specificity int              `json:"specificity"`
	Index       int              `json:"index"`
}

// LadderPlan is harn.verification.ladder_plan.v1.
type LadderPlan struct {
	Schema   string         `json:"schema"`
	Query    any            `json:"query"`
	Matches  []ProfileMatch `json:"matches"`
	Selected []LadderEntry  `json:"selected"`
	Skipped  []LadderSkip   `json:"skipped"`
	Fallback bool           `json:"fallback"`
	Reason   LadderReason   `json:"reason"`
}

// HudFreshness is the last check's bound snapshot against the current hashes.
type HudFreshness struct {
	Schema          string          `json:"schema"`
	Status          FreshnessStatus `json:"status"`
	Stale           bool            `json:"stale"`
	Fresh           bool            `json:"fresh"`
	StaleFiles      []string        `json:"staleFiles"`
	StaleFilesSnake []string        `json:"stale_files"`
	ChangedFiles    []string        `json:"changed_files"`
	Advisory        bool            `json:"advisory"`
	Reason          string          `json:"reason"`
}

// HudLastCheck is the last check: AtMs in ms since the epoch, AgeMs and its label Age.
type HudLastCheck struct {
	Rung      string       `json:"rung"`
	Verdict   string       `json:"verdict"`
	AtMs      int          `json:"at_ms"`
	AgeMs     int          `json:"age_ms"`
	Age       string       `json:"age"`
	Freshness HudFreshness `json:"freshness"`
}

// HudEntry is a ladder entry as the HUD shows it (Command is a label, P95 a duration label).
type HudEntry struct {
	RowID         string `json:"row_id"`
	Rung          string `json:"rung"`
	Command       string `json:"command"`
	Label         string `json:"label"`
	P95Ms         int    `json:"p95_ms"`
	P95           string `json:"p95"`
	TimingKind    string `json:"timing_kind"`
	ResourceClass string `json:"resource_class"`
	Granularity   any    `json:"granularity"`
	Trust         any    `json:"trust"`
	Row           any    `json:"row"`
}

// HudPlans are the two plans a HUD model was built from.
type HudPlans struct {
	Next LadderPlan `json:"next"`
	Full LadderPlan `json:"full"`
}

// HudModel is harn.verification.hud_model.v1. For a state that is not an object only
// Schema, Visible (false), Reason (missing_state) and Lines are set.
type HudModel struct {
	Schema          string         `json:"schema"`
	Visible         bool           `json:"visible"`
	Reason          HudReason      `json:"reason"`
	Lines           []any          `json:"lines,omitzero"`
	Dir             *string        `json:"dir,omitempty"`
	Query           map[string]any `json:"query,omitzero"`
	ElapsedMs       *int           `json:"elapsed_ms,omitempty"`
	Elapsed         *string        `json:"elapsed,omitempty"`
	SinceLastEditMs *int           `json:"since_last_edit_ms"`
	SinceLastEdit   *string        `json:"since_last_edit"`
	LastCheck       *HudLastCheck  `json:"last_check"`
	NextCheck       *HudEntry      `json:"next_check"`
	FullCheck       *HudEntry      `json:"full_check"`
	Plans           *HudPlans      `json:"plans,omitempty"`
}

// MarshalJSON writes the missing-state model with its four members only, and a full model
// with its null members kept (as the bridge sends them).
func (m HudModel) MarshalJSON() ([]byte, error) {
	type plain HudModel
	if m.Reason == "missing_state" {
		lines := m.Lines
		if lines == nil {
			lines = []any{}
		}
		return json.Marshal(struct {
			Schema  string    `json:"schema"`
			Visible bool      `json:"visible"`
			Reason  HudReason `json:"reason"`
			Lines   []any     `json:"lines"`
		}{m.Schema, m.Visible, m.Reason, lines})
	}
	return json.Marshal(plain(m))
}

// FactsHudTextResult is the result of facts.hud_text.
type FactsHudTextResult struct {
	Text string `json:"text"`
}

// CheckObservation is a profile observation (§2.7): DurationMs in ms, Exit (124 when the
// check timed out), FailureSignature (none when the check passed).
type CheckObservation struct {
	DurationMs       *int           `json:"durationMs,omitempty"`
	Warm             *bool          `json:"warm,omitempty"`
	At               *string        `json:"at,omitempty"`
	Exit             *int           `json:"exit,omitempty"`
	FailureSignature *string        `json:"failureSignature,omitempty"`
	Snapshot         map[string]any `json:"snapshot,omitzero"`
}

// RecordedCheck is the result of facts.record_check_result: the observation, the updated
// row (nil for an unknown row id) and the record set after recording (Profiles).
type RecordedCheck struct {
	Result      any              `json:"result"`
	Observation CheckObservation `json:"observation"`
	Row         map[string]any   `json:"row"`
	Snapshot    any              `json:"snapshot"`
	Profiles    map[string]any   `json:"profiles"`
}

// ProfileMatches lists the rows of options.Profiles (or, with storeDir, of the profile store
// RunCheck records into, seen from options.Dir) that apply to query, most specific first
// (facts.profile_matches; §1.5, §3.5). storeDir "" reads no store. A bad options.Dir is an
// *InvalidParamsError with Path "options.dir".
func (c *Client) ProfileMatches(ctx context.Context, query *ProfileQuery, options ProfileMatchesOptions, storeDir string) ([]ProfileMatch, error) {
	var r FactsProfileMatchesResult
	if err := c.Call(ctx, "facts.profile_matches", FactsProfileMatchesParams{Query: query, Options: options, StoreDir: storeDir}, &r); err != nil {
		return nil, err
	}
	return r.Matches, nil
}

// LadderPlan plans the check ladder for query (facts.ladder_plan; §1.9): matching rows
// filtered by rung bounds, resource classes, stale-proneness and a present command, sorted
// by [rung, resource rank, p95, -specificity, index]. With storeDir (else ""), the rows
// are those of the profile store RunCheck records into, seen from options.Dir.
func (c *Client) LadderPlan(ctx context.Context, query *ProfileQuery, options LadderPlanOptions, storeDir string) (*LadderPlan, error) {
	var r LadderPlan
	if err := c.Call(ctx, "facts.ladder_plan", FactsLadderPlanParams{Query: query, Options: options, StoreDir: storeDir}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// HudModel builds the HUD model of state (facts.hud_model; §1.10). With storeDir (else ""),
// the rows come from the profile store, seen from options.Dir, else the state's dir.
func (c *Client) HudModel(ctx context.Context, state any, options HudOptions, storeDir string) (*HudModel, error) {
	var r HudModel
	if err := c.Call(ctx, "facts.hud_model", FactsHudModelParams{State: state, Options: options, StoreDir: storeDir}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// HudText renders the HUD as terminal text (facts.hud_text; §4.1), "" when nothing is known.
// storeDir as for HudModel.
func (c *Client) HudText(ctx context.Context, modelOrState any, options HudOptions, storeDir string) (string, error) {
	var r FactsHudTextResult
	if err := c.Call(ctx, "facts.hud_text", FactsHudTextParams{ModelOrState: modelOrState, Options: options, StoreDir: storeDir}, &r); err != nil {
		return "", err
	}
	return r.Text, nil
}

// ObservationFromCommandResult is the profile observation of a command result
// (facts.observation_from_command_result; §1.4, §2.2–2.4).
func (c *Client) ObservationFromCommandResult(ctx context.Context, result CheckCommandResult, options ObservationOptions) (*CheckObservation, error) {
	var r CheckObservation
	if err := c.Call(ctx, "facts.observation_from_command_result", FactsObservationParams{Result: result, Options: options}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// RecordCheckResult records result into row rowID of options.Profiles, as a pure reducer
// (facts.record_check_result; §1.4, §3.2, §3.3).
func (c *Client) RecordCheckResult(ctx context.Context, rowID any, result CheckCommandResult, options RecordCheckOptions) (*RecordedCheck, error) {
	var r RecordedCheck
	if err := c.Call(ctx, "facts.record_check_result", FactsRecordCheckResultParams{RowID: rowID, Result: result, Options: options}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// CheckProbe is a probe's run: Status "not_configured" without a probe, Exit 124 when it
// timed out, DurationMs in ms; Error when the probe spec could not be run.
type CheckProbe struct {
	Status     string  `json:"status"`
	Exit       *int    `json:"exit"`
	DurationMs *int    `json:"durationMs"`
	Stdout     string  `json:"stdout"`
	Stderr     string  `json:"stderr"`
	Error      *string `json:"error,omitempty"`
}

// ToolchainFact is one row's toolchain identity (facts.toolchain; §1.6).
type ToolchainFact struct {
	ID            string         `json:"id"`
	Name          string         `json:"name"`
	Available     bool           `json:"available"`
	Version       *string        `json:"version"`
	RawVersion    string         `json:"raw_version"`
	CacheIdentity map[string]any `json:"cache_identity"`
	Probe         CheckProbe     `json:"probe"`
}

// WarmTimingKind is the timing kind a warm-state fact implies.
type WarmTimingKind string

// Values lists the timing kinds.
func (WarmTimingKind) Values() []string { return []string{"warm", "cold"} }

// WarmStateFact is one row's warm-state readiness (facts.warm_state; §1.7); ms fields in ms.
type WarmStateFact struct {
	ID                  string         `json:"id"`
	Name                string         `json:"name"`
	Configured          bool           `json:"configured"`
	Available           bool           `json:"available"`
	Ready               bool           `json:"ready"`
	Warm                bool           `json:"warm"`
	TimingKind          WarmTimingKind `json:"timing_kind"`
	Mode                string         `json:"mode"`
	ExpectedWarmDeltaMs *int           `json:"expected_warm_delta_ms"`
	WarmMs              *int           `json:"warm_ms"`
	ColdMs              *int           `json:"cold_ms"`
	CacheIdentity       map[string]any `json:"cache_identity"`
	Probe               CheckProbe     `json:"probe"`
}

// CheckStatus is the status of a check the bridge ran.
type CheckStatus string

// Values lists the check statuses.
func (CheckStatus) Values() []string {
	return []string{"completed", "failed", "timed_out", "cancelled"}
}

// CheckRunResult is the command result of a check the bridge ran (DurationMs in ms).
type CheckRunResult struct {
	Ok         bool        `json:"ok"`
	Success    bool        `json:"success"`
	Status     CheckStatus `json:"status"`
	ExitCode   *int        `json:"exit_code"`
	TimedOut   bool        `json:"timed_out"`
	Stdout     string      `json:"stdout"`
	Stderr     string      `json:"stderr"`
	Combined   string      `json:"combined"`
	DurationMs int         `json:"duration_ms"`
	OutputPath *string     `json:"output_path,omitempty"`
	SpawnError *string     `json:"spawn_error,omitempty"`
}

// RunCheckResult is the result of facts.run_check.
type RunCheckResult struct {
	Result      CheckRunResult    `json:"result"`
	Observation CheckObservation  `json:"observation"`
	Row         map[string]any    `json:"row"`
	Snapshot    *FileHashSnapshot `json:"snapshot"`
}

// RunCheckCommandOptions: TimeoutMs bounds the check; Background true is refused.
type RunCheckCommandOptions struct {
	TimeoutMs  *int  `json:"timeout_ms,omitempty"`
	Background *bool `json:"background,omitempty"`
}

// RunCheckOptions are the options of facts.run_check.
type RunCheckOptions struct {
	SnapshotPaths            []string                `json:"snapshot_paths,omitzero"`
	Snapshot                 map[string]any          `json:"snapshot,omitzero"`
	CommandOptions           *RunCheckCommandOptions `json:"command_options,omitempty"`
	Record                   *bool                   `json:"record,omitempty"`
	Warm                     *bool                   `json:"warm,omitempty"`
	Cold                     *bool                   `json:"cold,omitempty"`
	FailureSignatureFrom     *string                 `json:"failure_signature_from,omitempty"`
	MaxFailureSignatureChars *int                    `json:"max_failure_signature_chars,omitempty"`
}

// FactsRunCheckParams are the params of facts.run_check.
type FactsRunCheckParams struct {
	Root     string          `json:"root"`
	StoreDir string          `json:"store_dir"`
	RowID    string          `json:"row_id"`
	Spec     any             `json:"spec"`
	Options  RunCheckOptions `json:"options,omitzero"`
}

// ToolchainOptions are the options of facts.toolchain (TimeoutMs bounds each probe).
type ToolchainOptions struct {
	TimeoutMs      *int           `json:"timeout_ms,omitempty"`
	VersionPattern *string        `json:"version_pattern,omitempty"`
	CacheIdentity  map[string]any `json:"cache_identity,omitzero"`
}

// FactsToolchainParams are the params of facts.toolchain.
type FactsToolchainParams struct {
	Root    string           `json:"root"`
	Rows    []map[string]any `json:"rows"`
	Options ToolchainOptions `json:"options,omitzero"`
}

// WarmStateOptions are the options of facts.warm_state.
type WarmStateOptions struct {
	TimeoutMs     *int           `json:"timeout_ms,omitempty"`
	CacheIdentity map[string]any `json:"cache_identity,omitzero"`
}

// FactsWarmStateParams are the params of facts.warm_state.
type FactsWarmStateParams struct {
	Root    string           `json:"root"`
	Rows    []map[string]any `json:"rows"`
	Options WarmStateOptions `json:"options,omitzero"`
}

// FactsToolchainResult is the result of facts.toolchain.
type FactsToolchainResult struct {
	Facts []ToolchainFact `json:"facts"`
}

// FactsWarmStateResult is the result of facts.warm_state.
type FactsWarmStateResult struct {
	Facts []WarmStateFact `json:"facts"`
}

// RunCheck runs one check and records its timing into <storeDir>/verification-profiles.json
// (facts.run_check; §1.4): snapshot paths are hashed before it starts. A *RemoteError
// "background_not_supported" or "profile_store_invalid" for those conditions.
func (c *Client) RunCheck(ctx context.Context, root, storeDir, rowID string, spec any, options RunCheckOptions) (*RunCheckResult, error) {
	var r RunCheckResult
	params := FactsRunCheckParams{Root: root, StoreDir: storeDir, RowID: rowID, Spec: spec, Options: options}
	if err := c.Call(ctx, "facts.run_check", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Toolchain runs every row's version probe (facts.toolchain; §1.6); a missing binary is
// Available false, never an error.
func (c *Client) Toolchain(ctx context.Context, root string, rows []map[string]any, options ToolchainOptions) ([]ToolchainFact, error) {
	var r FactsToolchainResult
	if err := c.Call(ctx, "facts.toolchain", FactsToolchainParams{Root: root, Rows: orEmptyRows(rows), Options: options}, &r); err != nil {
		return nil, err
	}
	return r.Facts, nil
}

// WarmState reports each row's warm-state readiness (facts.warm_state; §1.7).
func (c *Client) WarmState(ctx context.Context, root string, rows []map[string]any, options WarmStateOptions) ([]WarmStateFact, error) {
	var r FactsWarmStateResult
	if err := c.Call(ctx, "facts.warm_state", FactsWarmStateParams{Root: root, Rows: orEmptyRows(rows), Options: options}, &r); err != nil {
		return nil, err
	}
	return r.Facts, nil
}

func orEmptyRows(rows []map[string]any) []map[string]any {
	if rows == nil {
		return []map[string]any{}
	}
	return rows
}

// BackgroundStarted is a background command the bridge started: PID leads its process
// group; HandleID is valid in that bridge process only.
type BackgroundStarted struct {
	HandleID    string `json:"handle_id"`
	PID         int    `json:"pid"`
	Command     string `json:"command"`
	StartedAtMs int    `json:"started_at_ms"`
	Background  bool   `json:"background"`
}

// StartedCheck is the receipt of facts.start_check; pass it to FinishCheck.
type StartedCheck struct {
	RowID              string            `json:"row_id"`
	Started            BackgroundStarted `json:"started"`
	ObservationOptions map[string]any    `json:"observation_options"`
	Snapshot           *FileHashSnapshot `json:"snapshot"`
}

// FinishedCheck is the result of facts.finish_check: Result is {"status": "running", …}
// when the wait ran out (Observation and Row nil, nothing recorded).
type FinishedCheck struct {
	Result      map[string]any    `json:"result"`
	Observation *CheckObservation `json:"observation"`
	Row         map[string]any    `json:"row"`
	Snapshot    *FileHashSnapshot `json:"snapshot"`
}

// WarmStatus is the status of a warm-state receipt.
type WarmStatus string

// Values lists the receipt statuses.
func (WarmStatus) Values() []string { return []string{"ready", "starting", "not_configured"} }

// WarmStateReceipt is the result of facts.start_warm_state (§1.8).
type WarmStateReceipt struct {
	ID          string             `json:"id"`
	Name        string             `json:"name"`
	Status      WarmStatus         `json:"status"`
	Reused      bool               `json:"reused"`
	HandleID    *string            `json:"handle_id"`
	Started     *BackgroundStarted `json:"started"`
	InitialFact WarmStateFact      `json:"initial_fact"`
	Fact        WarmStateFact      `json:"fact"`
	Row         any                `json:"row"`
}

// WarmStateCancel says how the background process group was stopped.
type WarmStateCancel struct {
	Cancelled bool           `json:"cancelled"`
	HandleID  string         `json:"handle_id"`
	Result    map[string]any `json:"result"`
}

// WarmStateTeardown is the result of facts.teardown_warm_state: Cancelled is true only the
// first time.
type WarmStateTeardown struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Status    string           `json:"status"`
	HandleID  *string          `json:"handle_id"`
	Cancelled bool             `json:"cancelled"`
	Cancel    *WarmStateCancel `json:"cancel"`
	Teardown  *CheckRunResult  `json:"teardown"`
	Fact      *WarmStateFact   `json:"fact"`
	Row       any              `json:"row"`
}

// StartCheckCommandOptions bounds a background check (TimeoutMs).
type StartCheckCommandOptions struct {
	TimeoutMs *int `json:"timeout_ms,omitempty"`
}

// StartCheckOptions are the options of facts.start_check.
type StartCheckOptions struct {
	SnapshotPaths  []string                  `json:"snapshot_paths,omitzero"`
	Snapshot       map[string]any            `json:"snapshot,omitzero"`
	CommandOptions *StartCheckCommandOptions `json:"command_options,omitempty"`
}

// FactsStartCheckParams are the params of facts.start_check.
type FactsStartCheckParams struct {
	Root    string            `json:"root"`
	RowID   string            `json:"row_id"`
	Spec    any               `json:"spec"`
	Options StartCheckOptions `json:"options,omitzero"`
}

// WaitOptions bound a wait (TimeoutMs, default 60000).
type WaitOptions struct {
	TimeoutMs *int `json:"timeout_ms,omitempty"`
}

// FinishCheckOptions are the options of facts.finish_check.
type FinishCheckOptions struct {
	RowID       *string      `json:"row_id,omitempty"`
	WaitOptions *WaitOptions `json:"wait_options,omitempty"`
	Record      *bool        `json:"record,omitempty"`
}

// FactsFinishCheckParams are the params of facts.finish_check (Receipt: a StartedCheck as a map).
type FactsFinishCheckParams struct {
	StoreDir string             `json:"store_dir"`
	Receipt  map[string]any     `json:"receipt"`
	Options  FinishCheckOptions `json:"options,omitzero"`
}

// StartWarmStateOptions are the options of facts.start_warm_state.
type StartWarmStateOptions struct {
	Existing      map[string]any `json:"existing,omitzero"`
	Receipt       map[string]any `json:"receipt,omitzero"`
	ReuseExisting *bool          `json:"reuse_existing,omitempty"`
	TimeoutMs     *int           `json:"timeout_ms,omitempty"`
	CacheIdentity map[string]any `json:"cache_identity,omitzero"`
}

// FactsStartWarmStateParams are the params of facts.start_warm_state.
type FactsStartWarmStateParams struct {
	Root    string                `json:"root"`
	Row     map[string]any        `json:"row"`
	Options StartWarmStateOptions `json:"options,omitzero"`
}

// TeardownWarmStateOptions are the options of facts.teardown_warm_state.
type TeardownWarmStateOptions struct {
	Row          map[string]any `json:"row,omitzero"`
	HandleID     *string        `json:"handle_id,omitempty"`
	WaitResultMs *int           `json:"wait_result_ms,omitempty"`
	ProbeAfter   *bool          `json:"probe_after,omitempty"`
	TimeoutMs    *int           `json:"timeout_ms,omitempty"`
}

// FactsTeardownWarmStateParams are the params of facts.teardown_warm_state.
type FactsTeardownWarmStateParams struct {
	Root    string                   `json:"root"`
	Receipt map[string]any           `json:"receipt"`
	Options TeardownWarmStateOptions `json:"options,omitzero"`
}

// StartCheck starts one check in the background (facts.start_check; §1.4).
func (c *Client) StartCheck(ctx context.Context, root, rowID string, spec any, options StartCheckOptions) (*StartedCheck, error) {
	var r StartedCheck
	if err := c.Call(ctx, "facts.start_check", FactsStartCheckParams{Root: root, RowID: rowID, Spec: spec, Options: options}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// FinishCheck waits for a started check and records it (facts.finish_check; §1.4). Pass
// the receipt as a map (AsMap converts a *StartedCheck).
func (c *Client) FinishCheck(ctx context.Context, storeDir string, receipt map[string]any, options FinishCheckOptions) (*FinishedCheck, error) {
	var r FinishedCheck
	if err := c.Call(ctx, "facts.finish_check", FactsFinishCheckParams{StoreDir: storeDir, Receipt: receipt, Options: options}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// StartWarmState starts a row's warm state unless it is ready or already warming
// (facts.start_warm_state; §1.8).
func (c *Client) StartWarmState(ctx context.Context, root string, row map[string]any, options StartWarmStateOptions) (*WarmStateReceipt, error) {
	var r WarmStateReceipt
	if err := c.Call(ctx, "facts.start_warm_state", FactsStartWarmStateParams{Root: root, Row: row, Options: options}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// TeardownWarmState stops a warm state's process group, then runs its stop command
// (facts.teardown_warm_state; §1.8).
func (c *Client) TeardownWarmState(ctx context.Context, root string, receipt map[string]any, options TeardownWarmStateOptions) (*WarmStateTeardown, error) {
	var r WarmStateTeardown
	if err := c.Call(ctx, "facts.teardown_warm_state", FactsTeardownWarmStateParams{Root: root, Receipt: receipt, Options: options}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// AsMap converts a receipt (or any result struct) to the map form the finish and teardown
// methods take, through its JSON encoding.
func AsMap(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}
