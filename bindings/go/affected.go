package turngate

import "context"

// AffectedReason says why a target is affected (DESIGN.md §4): direct, dependent (Via set),
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
}

// AffectedFallback is the code-index fallback (§1.3.2; transitive here).
type AffectedFallback struct {
	Enabled   bool             `json:"enabled"`
	Available bool             `json:"available"`
	Targets   []AffectedTarget `json:"targets"`
	Errors    []string         `json:"errors,omitzero"`
}

// AffectedTargets is the affected-targets fact (§1.3, §2.8, DESIGN.md §4). RunAll is true
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
// (facts.affected_targets; harn-verification.md §1.3, DESIGN.md §4). A failing adapter
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
}

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
