package turngate

import "context"

// The facts.* bridge methods (harn-verification.md §1.1, §1.2, §1.5, §1.11, §1.12, §3.7;
// docs/design.md §4), named as the Python binding's (snapshot_staleness → SnapshotStaleness, …).
// Besides the errors described on Client.Call, the delta methods return a *RemoteError
// "invalid_regex" for a normalization pattern Rust's regex crate would reject (Path under
// "options", e.g. "options.replacements.0.pattern"), and ParseDiagnostics a *RemoteError
// "diagnostic_parse_error" (Path "text") when a JSON-document format's text is not JSON or
// not the expected shape at its root.

// FactsSnapshotStalenessParams are the params of facts.snapshot_staleness: the bound
// snapshot and the current hashes, each a {path: hash} map or a whole file-hash snapshot
// as a map. A nil BoundSnapshot means no binding; a nil CurrentHashes, unavailable.
type FactsSnapshotStalenessParams struct {
	BoundSnapshot map[string]any `json:"bound_snapshot"`
	CurrentHashes map[string]any `json:"current_hashes"`
}

// FactsDiagnosticClassifyParams are the params of facts.diagnostic_classify: the envelope
// {rung, at, snapshot, rowId?} (nil is unbound) and the current {path: hash} map (nil sends
// nothing: {}).
type FactsDiagnosticClassifyParams struct {
	Envelope      map[string]any `json:"envelope"`
	CurrentHashes map[string]any `json:"current_hashes,omitzero"`
}

// FactsDiagnosticDeltaParams are the params of facts.diagnostic_delta. Previous and
// Current are diagnostic results: nil, a string, a list of strings or diagnostic objects,
// a check result ({ok|success|exit_code|status, …}), or {diagnostics: […]} such as a
// *ParsedDiagnostics.
type FactsDiagnosticDeltaParams struct {
	Previous any                    `json:"previous"`
	Current  any                    `json:"current"`
	Options  DiagnosticDeltaOptions `json:"options,omitzero"`
}

// FactsGateInputParams are the params of facts.gate_input: the two diagnostics, the
// current hashes (nil: unavailable, each side keeps its own gate status; an empty map is
// available and matches nothing) and the normalization options.
type FactsGateInputParams struct {
	Previous      any                    `json:"previous"`
	Current       any                    `json:"current"`
	CurrentHashes map[string]any         `json:"current_hashes,omitzero"`
	Options       DiagnosticDeltaOptions `json:"options,omitzero"`
}

// FactsParseDiagnosticsParams are the params of facts.parse_diagnostics.
type FactsParseDiagnosticsParams struct {
	Format DiagnosticFormat `json:"format"`
	Text   string           `json:"text"`
}

// FactsFileHashSnapshotParams are the params of facts.file_hash_snapshot: the workspace
// root (absolute, or relative to the bridge's working directory), 1 to 4096 paths
// (relative to Root, or absolute) and the algorithm ("" = fnv1a64).
type FactsFileHashSnapshotParams struct {
	Root      string            `json:"root"`
	Paths     []string          `json:"paths"`
	Algorithm FileHashAlgorithm `json:"algorithm,omitempty"`
}

// SnapshotStaleness judges a bound file-hash snapshot against the current hashes
// (facts.snapshot_staleness; harn-verification.md §1.2): "unbound" for a nil or empty
// binding, "bound_stale" when a bound path's current hash differs or is absent, else
// "bound_fresh". Pass FileHashSnapshot.Snapshot values converted to map[string]any.
func (c *Client) SnapshotStaleness(ctx context.Context, boundSnapshot, currentHashes map[string]any) (*SnapshotStaleness, error) {
	var r SnapshotStaleness
	params := FactsSnapshotStalenessParams{BoundSnapshot: boundSnapshot, CurrentHashes: currentHashes}
	if err := c.Call(ctx, "facts.snapshot_staleness", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// DiagnosticClassify classifies a diagnostic envelope against the current {path: hash}
// map (facts.diagnostic_classify; harn-verification.md §1.5): bound only with a non-blank
// string rung, a string or number "at" and a non-empty snapshot; hashes compare as typed
// JSON ("1" differs from 1).
func (c *Client) DiagnosticClassify(ctx context.Context, envelope, currentHashes map[string]any) (*DiagnosticClassification, error) {
	var r DiagnosticClassification
	params := FactsDiagnosticClassifyParams{Envelope: envelope, CurrentHashes: currentHashes}
	if err := c.Call(ctx, "facts.diagnostic_classify", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// DiagnosticDelta compares two diagnostic results as normalized signature sets
// (facts.diagnostic_delta; harn-verification.md §1.11, §3.7): the status, progress credit
// and decision-table reason, with the removed / added / persisted signatures. Line and
// column numbers are stripped from signatures by default, so a line shift is "unchanged".
func (c *Client) DiagnosticDelta(ctx context.Context, previous, current any, options DiagnosticDeltaOptions) (*DiagnosticDelta, error) {
	var r DiagnosticDelta
	params := FactsDiagnosticDeltaParams{Previous: previous, Current: current, Options: options}
	if err := c.Call(ctx, "facts.diagnostic_delta", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// GateInput reduces a previous and a current diagnostic to what gate policy consumes
// (facts.gate_input; harn-verification.md §1.12): each side is classified against
// currentHashes, so a stale or unbound previous is never a baseline; the delta then
// decides. A green clears a gate-bearing failure only at the same or a higher rung: a
// lower-rung green is "advisory" with Reason "lower_rung_green" (docs/design.md §4).
func (c *Client) GateInput(ctx context.Context, previous, current any, currentHashes map[string]any, options DiagnosticDeltaOptions) (*GateInput, error) {
	var r GateInput
	params := FactsGateInputParams{Previous: previous, Current: current, CurrentHashes: currentHashes, Options: options}
	if err := c.Call(ctx, "facts.gate_input", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ParseDiagnostics parses one tool's raw output into diagnostics plus the input it could
// not read (facts.parse_diagnostics): tsc --pretty false text, ESLint JSON, SARIF 2.1.0,
// cargo --message-format=json, Ruff JSON, pyright --outputjson, go vet -json, reviewdog
// rdjson / rdjsonl.
func (c *Client) ParseDiagnostics(ctx context.Context, format DiagnosticFormat, text string) (*ParsedDiagnostics, error) {
	var r ParsedDiagnostics
	if err := c.Call(ctx, "facts.parse_diagnostics", FactsParseDiagnosticsParams{Format: format, Text: text}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// FileHashSnapshot hashes the current bytes of paths under root (facts.file_hash_snapshot;
// harn-verification.md §1.1, §3.1): fnv1a64 (the default, algorithm "") is Harn's decimal
// FNV-1a 64, sha256 lowercase hex. Paths outside the root (also through a symlink),
// missing or unreadable files are listed in Missing and never read. Bad arguments are an
// *InvalidParamsError with Path "root", "paths", "paths.N" or "algorithm".
func (c *Client) FileHashSnapshot(ctx context.Context, root string, paths []string, algorithm FileHashAlgorithm) (*FileHashSnapshot, error) {
	var r FileHashSnapshot
	params := FactsFileHashSnapshotParams{Root: root, Paths: orEmpty(paths), Algorithm: algorithm}
	if err := c.Call(ctx, "facts.file_hash_snapshot", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
