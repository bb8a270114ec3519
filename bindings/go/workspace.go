package turngate

// ChangeKind is how a path changed against the session's baseline.
type ChangeKind string

// The three kinds of workspace change.
const (
	ChangeAdded    ChangeKind = "added"
	ChangeModified ChangeKind = "modified"
	ChangeDeleted  ChangeKind = "deleted"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (ChangeKind) Values() []string { return []string{"added", "modified", "deleted"} }

// WorkspaceChange is one changed path found by session.observe_workspace. ContentDigest is
// the SHA-256 (lowercase hex) of the current bytes, or "deleted".
type WorkspaceChange struct {
	Path          string     `json:"path"`
	Change        ChangeKind `json:"change"`
	ContentDigest string     `json:"content_digest"`
}
