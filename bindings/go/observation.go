package turngate

// ObservationSchemaID is an external observation's schema id.
type ObservationSchemaID string

// External observation schema ids: turngate's and A3S Code's (accepted on input).
const (
	ObservationSchemaV1    ObservationSchemaID = "external_observation.v1"
	ObservationSchemaA3SV1 ObservationSchemaID = "a3s.code.external-observation.v1"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (ObservationSchemaID) Values() []string {
	return []string{"external_observation.v1", "a3s.code.external-observation.v1"}
}

// RequiredAction is what an external observation asks of the turn
// (a3s-completion-gate.md §1.14, §2.12).
type RequiredAction string

// Required actions: "none" never blocks, "address" never blocks success,
// "workspace_change" blocks until a newer observation of the subject or a waiver clears it.
const (
	ActionNone            RequiredAction = "none"
	ActionWorkspaceChange RequiredAction = "workspace_change"
	ActionAddress         RequiredAction = "address"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (RequiredAction) Values() []string { return []string{"none", "workspace_change", "address"} }

// ExternalObservation is evidence from outside the workspace (a CI run, a review),
// external_observation.v1 (a3s-completion-gate.md §1.14). Digest must be non-blank and
// Payload at most 8192 UTF-8 bytes. Schema may be left empty on input.
type ExternalObservation struct {
	Schema         ObservationSchemaID `json:"schema,omitempty"`
	Kind           string              `json:"kind"`
	Subject        string              `json:"subject"`
	Digest         string              `json:"digest"`
	Payload        string              `json:"payload"`
	SourceRevision *string             `json:"source_revision,omitempty"`
	RequiredAction RequiredAction      `json:"required_action"`
}
