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

// PathScope is where a changed path lies: the source scope, or outside it (ignored by
// git, at an output location, a .git/ or .turngate/ harness file). Every scope is in the
// effect digest.
type PathScope string

// The four scopes of a workspace change.
const (
	ScopeSource  PathScope = "source"
	ScopeIgnored PathScope = "ignored"
	ScopeOutput  PathScope = "output"
	ScopeHarness PathScope = "harness"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (PathScope) Values() []string { return []string{"source", "ignored", "output", "harness"} }

// WorkspaceChange is one changed path found by session.observe_workspace. ContentDigest is
// the SHA-256 (lowercase hex) of the current bytes, or "deleted"; Scope says where the
// path lies.
type WorkspaceChange struct {
	Path          string     `json:"path"`
	Change        ChangeKind `json:"change"`
	ContentDigest string     `json:"content_digest"`
	Scope         PathScope  `json:"scope"`
}
