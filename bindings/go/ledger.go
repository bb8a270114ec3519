package turngate

import "encoding/json"

// MutationRecord is one mutation-ledger row (a3s-completion-gate.md §1.8): the lowercased
// tool name (or "workspace"/"task"), the workspace-relative path and its content digest
// (lowercase hex SHA-256, "" when unknown).
type MutationRecord struct {
	Tool          string `json:"tool"`
	Path          string `json:"path"`
	ContentDigest string `json:"content_digest"`
}

// OpenWorkspaceChild is a background writer sharing the workspace that has not been
// observed yet (a3s-completion-gate.md §1.8, §2.4). Porcelain and Head are its git
// snapshot at start, Nongit marks a child started in a non-git workspace.
type OpenWorkspaceChild struct {
	TaskID    string   `json:"task_id"`
	Porcelain []string `json:"porcelain,omitzero"`
	Head      *string  `json:"head,omitempty"`
	Nongit    *bool    `json:"nongit,omitempty"`
}

// LedgerState is the mutation ledger given to DecideCompletion (gate.decide). Its digest
// is always recomputed from Records by the bridge, never taken as input. A nil Records is
// sent as [].
type LedgerState struct {
	Records               []MutationRecord     `json:"records"`
	OpenChildren          []OpenWorkspaceChild `json:"open_children,omitzero"`
	ObservationIncomplete bool                 `json:"observation_incomplete,omitempty"`
}

// MarshalJSON encodes the ledger, sending a nil Records as [].
func (l LedgerState) MarshalJSON() ([]byte, error) {
	type plain LedgerState
	l.Records = orEmpty(l.Records)
	return json.Marshal(plain(l))
}
