package turngate

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
)

// AffectedReason says why a target is affected (docs/design.md §4): direct, dependent (Via set),
// global_file, lockfile, unmapped or fallback.
type AffectedReason string

// Values lists every allowed value (the parity test compares it with the schema).
func (AffectedReason) Values() []string {
	return []string{"direct", "dependent", "global_file", "lockfile", "unmapped", "fallback"}
}

// AffectedTarget is one affected target (harn-verification.md §2.8): Files are the changed
// paths that reach it; Via (dependent only) the target ids, or file paths for the code
// index, from the changed one to the one it depends on. Parser-specific keys (root,
// target_names, manifest_path, …) are on the wire but not in this struct.
type AffectedTarget struct {
	ID        string         `json:"id"`
	Label     string         `json:"label"`
	Kind      string         `json:"kind"`
	Source    string         `json:"source"`
	Files     []string       `json:"files"`
	Reason    AffectedReason `json:"reason"`
	Via       []string       `json:"via,omitzero"`
	AdapterID *string        `json:"adapter_id,omitempty"`
	// Extra holds the parser-specific keys (root, target_names, manifest_path, test_files,
	// lockfile_importer, changed_path, fallback_reason, …), re-encoded by MarshalJSON.
	Extra map[string]any `json:"-"`
}

type affectedTargetFields AffectedTarget

// UnmarshalJSON decodes the typed fields and keeps every other key in Extra.
func (t *AffectedTarget) UnmarshalJSON(data []byte) error {
	var typed affectedTargetFields
	extra, err := decodeWithExtra(data, &typed)
	if err != nil {
		return err
	}
	*t = AffectedTarget(typed)
	t.Extra = extra
	return nil
}

// MarshalJSON encodes the typed fields, then every Extra key a typed field did not set.
func (t AffectedTarget) MarshalJSON() ([]byte, error) {
	return encodeWithExtra(affectedTargetFields(t), t.Extra)
}

// AdapterFact is one adapter row's fact (§2.8): Error when its command could not run or its
// stdout did not parse, WorkspaceChanged the lockfiles its command changed.
type AdapterFact struct {
	ID               string   `json:"id"`
	ParserID         string   `json:"parser_id"`
	Status           string   `json:"status"`
	Ok               bool     `json:"ok"`
	TargetCount      int      `json:"target_count"`
	Exit             *int     `json:"exit,omitempty"`
	Error            *string  `json:"error,omitempty"`
	WorkspaceChanged []string `json:"workspace_changed,omitzero"`
	// Extra holds the other keys (project_count, command, duration_ms, stderr, …).
	Extra map[string]any `json:"-"`
}

type adapterFactFields AdapterFact

// UnmarshalJSON decodes the typed fields and keeps every other key in Extra.
func (f *AdapterFact) UnmarshalJSON(data []byte) error {
	var typed adapterFactFields
	extra, err := decodeWithExtra(data, &typed)
	if err != nil {
		return err
	}
	*f = AdapterFact(typed)
	f.Extra = extra
	return nil
}

// MarshalJSON encodes the typed fields, then every Extra key a typed field did not set.
func (f AdapterFact) MarshalJSON() ([]byte, error) {
	return encodeWithExtra(adapterFactFields(f), f.Extra)
}

// decodeWithExtra decodes data into typed and returns the keys typed has no field for
// (nil when none). A JSON null leaves typed unchanged.
func decodeWithExtra[T any](data []byte, typed *T) (map[string]any, error) {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil, nil
	}
	if err := json.Unmarshal(data, typed); err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	known := jsonNames(reflect.TypeFor[T]())
	var extra map[string]any
	for key, value := range raw {
		if known[key] {
			continue
		}
		var v any
		if err := json.Unmarshal(value, &v); err != nil {
			return nil, err
		}
		if extra == nil {
			extra = map[string]any{}
		}
		extra[key] = v
	}
	return extra, nil
}

// encodeWithExtra encodes typed, then adds every extra key typed did not set.
func encodeWithExtra[T any](typed T, extra map[string]any) ([]byte, error) {
	encoded, err := json.Marshal(typed)
	if err != nil || len(extra) == 0 {
		return encoded, err
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(encoded, &out); err != nil {
		return nil, err
	}
	for key, value := range extra {
		if _, set := out[key]; set {
			continue
		}
		v, err := json.Marshal(value)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	return json.Marshal(out)
}

// jsonNames are the json names of t's fields (a "-" tag has none).
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		if name == "" {
			name = t.Field(i).Name
		}
		names[name] = true
	}
	return names
}

// AffectedFallback is the code-index fallback (§1.3.2; transitive here).
type AffectedFallback struct {
	Enabled   bool             `json:"enabled"`
	Available bool             `json:"available"`
	Targets   []AffectedTarget `json:"targets"`
	Errors    []string         `json:"errors,omitzero"`
}

// AffectedTargets is the affected-targets fact (§1.3, §2.8, docs/design.md §4). RunAll is true
// when a global file, an unmapped file or a lockfile that could not be narrowed changed.
type AffectedTargets struct {
	ChangedPaths  []string         `json:"changed_paths"`
	Targets       []AffectedTarget `json:"targets"`
	Adapters      []AdapterFact    `json:"adapters"`
	Fallback      AffectedFallback `json:"fallback"`
	Unmapped      []string         `json:"unmapped"`
	GlobalFiles   []string         `json:"global_files"`
	Lockfiles     []string         `json:"lockfiles"`
	RunAll        bool             `json:"run_all"`
	RunAllReasons []string         `json:"run_all_reasons"`
}

// FactsAffectedTargetsParams are the params of facts.affected_targets. Adapters nil: the
// rows the bridge detects (pnpm, cargo, go). Fallback nil: true. UseCodeIndex nil: true.
type FactsAffectedTargetsParams struct {
	Root               string           `json:"root"`
	ChangedPaths       []string         `json:"changed_paths"`
	Adapters           []map[string]any `json:"adapters,omitzero"`
	Fallback           *bool            `json:"fallback,omitempty"`
	IncludeFallback    bool             `json:"include_fallback"`
	FailOnAdapterError bool             `json:"fail_on_adapter_error"`
	GlobalFiles        []string         `json:"global_files,omitzero"`
	TemplateContext    map[string]any   `json:"template_context,omitzero"`
	CommandOptions     map[string]any   `json:"command_options,omitzero"`
	UseCodeIndex       *bool            `json:"use_code_index,omitempty"`
	StateDir           *string          `json:"state_dir,omitempty"`
}

// AffectedTargets asks which targets the changed paths touch, and why
// (facts.affected_targets; harn-verification.md §1.3, docs/design.md §4). A failing adapter
// command is an AdapterFact with Error, never an error here. Bad params are an
// *InvalidParamsError naming the field (Path "root", "changed_paths", …).
func (c *Client) AffectedTargets(ctx context.Context, params FactsAffectedTargetsParams) (*AffectedTargets, error) {
	var r AffectedTargets
	params.ChangedPaths = orEmpty(params.ChangedPaths)
	if err := c.Call(ctx, "facts.affected_targets", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// CodeIndexChange is one version-log entry: Hash is the FNV-1a 64 decimal of the new bytes
// (nil when deleted).
type CodeIndexChange struct {
	Seq    int                 `json:"seq"`
	Path   string              `json:"path"`
	Change CodeIndexChangeKind `json:"change"`
	Hash   *string             `json:"hash"`
}

// CodeIndexChangeKind is added, modified or deleted.
type CodeIndexChangeKind string

// Values lists every allowed value (the parity test compares it with the schema).
func (CodeIndexChangeKind) Values() []string { return []string{"added", "modified", "deleted"} }

// CodeIndexChanges are the version-log entries after Since; Complete is false when some were
// dropped from the log (it keeps 10,000).
type CodeIndexChanges struct {
	CurrentSeq int               `json:"current_seq"`
	Since      int               `json:"since"`
	Complete   bool              `json:"complete"`
	Changes    []CodeIndexChange `json:"changes"`
	Files      int               `json:"files"`
	Built      bool              `json:"built"`
	GoImports  GoImportsFact     `json:"go_imports"`
}

// GoImportsFact says how the code index read Go imports: Source "go_list" (go list -json,
// frozen and offline; Packages listed in DurationMS), "import_lines" (Reason says why go
// list was not used) or "none" (no Go module). ChangedWorkspace: module files a go list run
// changed; Frozen: go list would have changed go.mod/go.sum and did not.
type GoImportsFact struct {
	Source           GoImportsSource `json:"source"`
	Reason           *string         `json:"reason,omitempty"`
	Modules          []string        `json:"modules"`
	Packages         int             `json:"packages"`
	DurationMS       *float64        `json:"duration_ms,omitempty"`
	ChangedWorkspace []string        `json:"changed_workspace,omitzero"`
	Frozen           *string         `json:"frozen,omitempty"`
}

// GoImportsSource is the reader of the code index's Go imports.
type GoImportsSource string

// Values lists every allowed value (the parity test compares it with the schema).
func (GoImportsSource) Values() []string { return []string{"go_list", "import_lines", "none"} }

// FactsCodeIndexChangesSinceParams are the params of facts.code_index_changes_since.
type FactsCodeIndexChangesSinceParams struct {
	Root     string  `json:"root"`
	Since    int     `json:"since"`
	StateDir *string `json:"state_dir,omitempty"`
}

// CodeIndexChangesSince brings the code index in stateDir (nil: <root>/.turngate) up to date
// and returns its version-log entries after since (facts.code_index_changes_since).
func (c *Client) CodeIndexChangesSince(ctx context.Context, root string, since int, stateDir *string) (*CodeIndexChanges, error) {
	var r CodeIndexChanges
	params := FactsCodeIndexChangesSinceParams{Root: root, Since: since, StateDir: stateDir}
	if err := c.Call(ctx, "facts.code_index_changes_since", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// FactsCodeIndexFileHashSnapshotParams are the params of facts.code_index_file_hash_snapshot.
type FactsCodeIndexFileHashSnapshotParams struct {
	Root      string            `json:"root"`
	Paths     []string          `json:"paths"`
	Algorithm FileHashAlgorithm `json:"algorithm,omitempty"`
	StateDir  *string           `json:"state_dir,omitempty"`
}

// CodeIndexFileHashSnapshot is FileHashSnapshot through the code index
// (facts.code_index_file_hash_snapshot; harn-verification.md §1.1): Seq, Known,
// IndexedHash and LastEditSeq filled, HashSource "indexed" for files whose size and mtime
// match the index.
func (c *Client) CodeIndexFileHashSnapshot(ctx context.Context, root string, paths []string, algorithm FileHashAlgorithm, stateDir *string) (*FileHashSnapshot, error) {
	var r FileHashSnapshot
	params := FactsCodeIndexFileHashSnapshotParams{Root: root, Paths: orEmpty(paths), Algorithm: algorithm, StateDir: stateDir}
	if err := c.Call(ctx, "facts.code_index_file_hash_snapshot", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// AffectedAdapterRun is one adapter's output for facts.affected_from_outputs: Result (the
// command's result) or Error (it could not run); neither: not_configured.
type AffectedAdapterRun struct {
	ID       string                 `json:"id"`
	ParserID string                 `json:"parser_id"`
	Result   *AffectedCommandResult `json:"result,omitempty"`
	Error    *string                `json:"error,omitempty"`
}

// AffectedCommandResult is the part of a command result the parsers read.
type AffectedCommandResult struct {
	Status   *string `json:"status,omitempty"`
	Ok       *bool   `json:"ok,omitempty"`
	ExitCode *int    `json:"exit_code,omitempty"`
	TimedOut *bool   `json:"timed_out,omitempty"`
	Stdout   *string `json:"stdout,omitempty"`
}

// AffectedImportGraph is the import graph the fallback walks: Importers[path] = the files
// that import path; Sources = the files whose imports were read.
type AffectedImportGraph struct {
	Importers map[string][]string `json:"importers"`
	Sources   []string            `json:"sources"`
}

// AffectedLockfileSides are both texts of a changed lockfile (nil: absent on that side).
type AffectedLockfileSides struct {
	Before *string `json:"before"`
	After  *string `json:"after"`
}

// FactsAffectedFromOutputsParams are the params of facts.affected_from_outputs.
// Fallback nil: true.
type FactsAffectedFromOutputsParams struct {
	ChangedPaths    []string                         `json:"changed_paths"`
	Adapters        []AffectedAdapterRun             `json:"adapters,omitzero"`
	Root            *string                          `json:"root,omitempty"`
	ImportGraph     *AffectedImportGraph             `json:"import_graph,omitempty"`
	Fallback        *bool                            `json:"fallback,omitempty"`
	IncludeFallback bool                             `json:"include_fallback"`
	GlobalFiles     []string                         `json:"global_files,omitzero"`
	Lockfiles       map[string]AffectedLockfileSides `json:"lockfiles,omitzero"`
}

// AffectedFromOutputs builds the affected-targets fact from adapter outputs already at hand
// (facts.affected_from_outputs; pure: the bridge runs nothing).
func (c *Client) AffectedFromOutputs(ctx context.Context, params FactsAffectedFromOutputsParams) (*AffectedTargets, error) {
	var r AffectedTargets
	params.ChangedPaths = orEmpty(params.ChangedPaths)
	if err := c.Call(ctx, "facts.affected_from_outputs", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
