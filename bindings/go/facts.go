package turngate

// Verification facts (Harn std/verification; harn-verification.md, docs/design.md §4): is a
// failure new, unchanged, advanced, regressed or cleared — and is the evidence still about
// the current bytes? These are the results of the facts.* bridge methods. JSON names keep
// Harn's own spellings, including its camelCase "feedsGates" / "staleFiles" / "rowId";
// where Harn emits a camelCase and a snake_case twin, the snake_case key has the plain Go
// name and the camelCase twin the suffix Camel (same value).

// BindingStatus says whether a diagnostic is bound to the current bytes
// (harn-verification.md §1.2, §1.5).
type BindingStatus string

// The binding statuses.
const (
	BindingUnbound    BindingStatus = "unbound"     // no rung+timestamp+snapshot (or no snapshot)
	BindingBoundFresh BindingStatus = "bound_fresh" // every bound hash equals the current one
	BindingBoundStale BindingStatus = "bound_stale" // some bound file changed or is unverifiable
)

// Values lists every allowed value (the parity test compares it with the schema).
func (BindingStatus) Values() []string { return []string{"unbound", "bound_fresh", "bound_stale"} }

// SnapshotStaleness is harn.verification.snapshot_staleness.v1 (harn-verification.md
// §1.2). StaleFiles, StaleFilesCamel and ChangedFiles list the same stale paths in byte
// order.
type SnapshotStaleness struct {
	Schema          string        `json:"schema"`
	Status          BindingStatus `json:"status"`
	Stale           bool          `json:"stale"`
	Fresh           bool          `json:"fresh"`
	StaleFilesCamel []string      `json:"staleFiles"`
	StaleFiles      []string      `json:"stale_files"`
	ChangedFiles    []string      `json:"changed_files"`
	Advisory        bool          `json:"advisory"`
	Reason          string        `json:"reason"`
}

// DiagnosticClassification is a diagnostic envelope judged against the current hashes
// (harn-verification.md §1.5): Rung (trimmed; nil unless it binds) and RowID (any JSON
// value; nil when absent) are copied from the envelope; FeedsGates is true only for
// bound_fresh.
type DiagnosticClassification struct {
	Rung       *string       `json:"rung,omitempty"`
	RowID      any           `json:"rowId,omitempty"`
	Status     BindingStatus `json:"status"`
	StaleFiles []string      `json:"staleFiles"`
	FeedsGates bool          `json:"feedsGates"`
	Advisory   bool          `json:"advisory"`
	Reason     string        `json:"reason"`
}

// DeltaStatus is the status of a diagnostic delta (harn-verification.md §1.11).
type DeltaStatus string

// The delta statuses.
const (
	DeltaAdvisory    DeltaStatus = "advisory"    // the current side does not feed gates
	DeltaCleared     DeltaStatus = "cleared"     // the current result passes
	DeltaInitialized DeltaStatus = "initialized" // no prior gate-bearing failure to compare
	DeltaAdvanced    DeltaStatus = "advanced"    // a prior signature cleared, or fewer diagnostics
	DeltaRegressed   DeltaStatus = "regressed"   // new signatures only, or more diagnostics
	DeltaUnchanged   DeltaStatus = "unchanged"   // same signatures, same count
)

// Values lists every allowed value (the parity test compares it with the schema).
func (DeltaStatus) Values() []string {
	return []string{"advisory", "cleared", "initialized", "advanced", "regressed", "unchanged"}
}

// DeltaReason names the decision-table row that decided a delta (harn-verification.md
// §1.11, one per row).
type DeltaReason string

// Values lists every allowed value (the parity test compares it with the schema).
func (DeltaReason) Values() []string {
	return []string{
		"current_diagnostic_does_not_feed_gates",
		"current_result_is_passing",
		"current_has_no_gate_bearing_failure_signature",
		"no_prior_gate_bearing_failure",
		"diagnostic_count_decreased",
		"diagnostic_count_increased",
		"same_diagnostic_signature_set",
		"diagnostic_signature_set_changed",
		"new_diagnostics_added_without_clearing_prior_signatures",
	}
}

// DeltaSide is one side of a delta: its diagnostic Count, whether it feeds gates, and
// every normalized signature (deduplicated, byte order), also when it does not feed gates.
type DeltaSide struct {
	Count           int      `json:"count"`
	FeedsGatesCamel bool     `json:"feedsGates"`
	FeedsGates      bool     `json:"feeds_gates"`
	Signatures      []string `json:"signatures"`
}

// DiagnosticDelta is harn.verification.diagnostic_delta.v1 (harn-verification.md §1.11).
// Removed / Added / Persisted are gate signatures (only sides that feed gates contribute);
// CountDelta (current minus previous count) is set only when both sides feed gates.
type DiagnosticDelta struct {
	Schema           string                  `json:"schema"`
	Status           DeltaStatus             `json:"status"`
	ProgressCredit   bool                    `json:"progress_credit"`
	FeedsGatesCamel  bool                    `json:"feedsGates"`
	FeedsGates       bool                    `json:"feeds_gates"`
	Advisory         bool                    `json:"advisory"`
	Reason           DeltaReason             `json:"reason"`
	Previous         DeltaSide               `json:"previous"`
	Current          DeltaSide               `json:"current"`
	Removed          []string                `json:"removed"`
	Added            []string                `json:"added"`
	Persisted        []string                `json:"persisted"`
	SameSignatureSet bool                    `json:"same_signature_set"`
	Normalization    DiagnosticNormalization `json:"normalization"`
	CountDelta       *int                    `json:"count_delta,omitempty"`
}

// GateSide is one side of a gate input: its classification (Harn's classify result, an
// embedded one, or the unclassified shape) and the value the delta compared.
type GateSide struct {
	Classification map[string]any `json:"classification"`
	Value          map[string]any `json:"value"`
}

// RungOutcome is how the rung rule judged a green that would clear a failure (docs/design.md §4).
type RungOutcome string

// The rung outcomes.
const (
	RungNotApplicable RungOutcome = "not_applicable" // nothing to clear, or the failure has no rankable rung
	RungSameOrHigher  RungOutcome = "same_or_higher" // the green clears the failure
	RungLower         RungOutcome = "lower"          // refused: lower_rung_green
	RungUnranked      RungOutcome = "unranked"       // refused: unranked_green
)

// Values lists every allowed value (the parity test compares it with the schema).
func (RungOutcome) Values() []string {
	return []string{"not_applicable", "same_or_higher", "lower", "unranked"}
}

// RungComparison records the rung rule's judgement: ranks are 0–5 (R0–R5), nil when a rung
// is absent or does not rank.
type RungComparison struct {
	PreviousRung *string     `json:"previous_rung"`
	CurrentRung  *string     `json:"current_rung"`
	PreviousRank *int        `json:"previous_rank"`
	CurrentRank  *int        `json:"current_rank"`
	Outcome      RungOutcome `json:"outcome"`
}

// GateInput is harn.verification.gate_input.v1 (harn-verification.md §1.12) plus
// RungComparison. Status is the delta's status when the current side feeds gates, else
// "advisory" — also for a green at a lower rung than the failure it would clear (Reason
// "lower_rung_green", or "unranked_green"). StaleFiles is the current classification's
// staleFiles (any JSON value; a list of paths in practice).
type GateInput struct {
	Schema             string          `json:"schema"`
	Status             string          `json:"status"`
	Reason             string          `json:"reason"`
	FeedsGatesCamel    bool            `json:"feedsGates"`
	FeedsGates         bool            `json:"feeds_gates"`
	Advisory           bool            `json:"advisory"`
	ProgressCredit     bool            `json:"progress_credit"`
	NoProgress         bool            `json:"no_progress"`
	GateBearingFailure bool            `json:"gate_bearing_failure"`
	BlocksCompletion   bool            `json:"blocks_completion"`
	Stale              bool            `json:"stale"`
	StaleFiles         any             `json:"stale_files"`
	Previous           GateSide        `json:"previous"`
	Current            GateSide        `json:"current"`
	Delta              DiagnosticDelta `json:"delta"`
	RungComparison     RungComparison  `json:"rung_comparison"`
}

// DiagnosticFormat is a tool output format ParseDiagnostics reads.
type DiagnosticFormat string

// The formats: tsc --pretty false, eslint -f json, SARIF 2.1.0, cargo --message-format=json,
// ruff --output-format=json, pyright --outputjson, go vet -json, reviewdog rdjson / rdjsonl.
const (
	FormatTsc     DiagnosticFormat = "tsc"
	FormatEslint  DiagnosticFormat = "eslint"
	FormatSarif   DiagnosticFormat = "sarif"
	FormatCargo   DiagnosticFormat = "cargo"
	FormatRuff    DiagnosticFormat = "ruff"
	FormatPyright DiagnosticFormat = "pyright"
	FormatGoVet   DiagnosticFormat = "go_vet"
	FormatRdjson  DiagnosticFormat = "rdjson"
	FormatRdjsonl DiagnosticFormat = "rdjsonl"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (DiagnosticFormat) Values() []string {
	return []string{"tsc", "eslint", "sarif", "cargo", "ruff", "pyright", "go_vet", "rdjson", "rdjsonl"}
}

// DiagnosticSeverity is the normalized severity of a parsed diagnostic.
type DiagnosticSeverity string

// The severities.
const (
	SeverityError   DiagnosticSeverity = "error"
	SeverityWarning DiagnosticSeverity = "warning"
	SeverityInfo    DiagnosticSeverity = "info"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (DiagnosticSeverity) Values() []string { return []string{"error", "warning", "info"} }

// ParsedDiagnostic is one diagnostic from tool output: 1-based Line / Column (nil when the
// tool gives none), the tool's rule or error Code, Source naming the tool; SARIF results
// keep their partialFingerprints as Fingerprints.
type ParsedDiagnostic struct {
	Path         *string            `json:"path"`
	Line         *int               `json:"line"`
	Column       *int               `json:"column"`
	Severity     DiagnosticSeverity `json:"severity"`
	Code         *string            `json:"code"`
	Message      string             `json:"message"`
	Source       string             `json:"source"`
	Fingerprints map[string]string  `json:"fingerprints,omitzero"`
}

// UnparsedInput is input a parser could not read: its 1-based Line (line formats) or JSON
// Pointer (document formats), the Text and the Reason.
type UnparsedInput struct {
	Line    *int    `json:"line"`
	Pointer *string `json:"pointer"`
	Text    string  `json:"text"`
	Reason  string  `json:"reason"`
}

// ParsedDiagnostics is turngate.parsed_diagnostics.v1: pass it as one side of
// Client.DiagnosticDelta. A run whose output could not be read has Unparsed entries and
// may have no diagnostics — pair it with the tool's exit status.
type ParsedDiagnostics struct {
	Schema      string             `json:"schema"`
	Format      DiagnosticFormat   `json:"format"`
	Diagnostics []ParsedDiagnostic `json:"diagnostics"`
	Unparsed    []UnparsedInput    `json:"unparsed"`
}

// FileHashAlgorithm is the hash of a file-hash snapshot: "fnv1a64" (Harn's unsigned
// decimal FNV-1a 64, harn-verification.md §3.1) or "sha256" (lowercase hex). The zero
// value sends nothing: the bridge's default, fnv1a64.
type FileHashAlgorithm string

// The file-hash algorithms.
const (
	HashFNV1a64 FileHashAlgorithm = "fnv1a64"
	HashSHA256  FileHashAlgorithm = "sha256"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (FileHashAlgorithm) Values() []string { return []string{"fnv1a64", "sha256"} }

// HashSource says where a snapshot entry's hash came from: "disk" (read now), "missing"
// (not readable or outside the root) or "indexed" (a code index; the bridge has none).
type HashSource string

// Values lists every allowed value (the parity test compares it with the schema).
func (HashSource) Values() []string { return []string{"indexed", "disk", "missing"} }

// FileHashSnapshotEntry is one Files entry of a file-hash snapshot (harn-verification.md
// §2.1): Size in bytes, MtimeMs in milliseconds; without a code index Known is false and
// the Indexed* fields are nil.
type FileHashSnapshotEntry struct {
	Path           string     `json:"path"`
	Known          bool       `json:"known"`
	Readable       bool       `json:"readable"`
	Hash           *string    `json:"hash"`
	HashSource     HashSource `json:"hash_source"`
	Size           *int64     `json:"size"`
	MtimeMs        *int64     `json:"mtime_ms"`
	IndexedHash    *string    `json:"indexed_hash"`
	IndexedMtimeMs *int64     `json:"indexed_mtime_ms"`
	LastEditSeq    int        `json:"last_edit_seq"`
}

// FileHashSnapshot is a file-hash snapshot (harn-verification.md §1.1, §2.1): Snapshot
// maps root-relative paths to hashes, Missing lists paths that could not be read (or lie
// outside the root), Files has one entry per input path in input order; CapturedAtMs is
// ms since the Unix epoch.
type FileHashSnapshot struct {
	Seq          int                     `json:"seq"`
	CapturedAtMs int64                   `json:"captured_at_ms"`
	Algorithm    FileHashAlgorithm       `json:"algorithm"`
	Snapshot     map[string]string       `json:"snapshot"`
	Missing      []string                `json:"missing"`
	Files        []FileHashSnapshotEntry `json:"files"`
}
