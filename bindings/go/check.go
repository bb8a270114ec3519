package turngate

// VerificationCheck is one verification check (a3s-completion-gate.md §1.2).
// Required defaults to false (it is always sent; false is the wire default).
// Optional lists follow one rule across this package: nil is absent, an empty non-nil
// slice is sent as [] (omitzero). ResidualRisk is omitted when nil — a present residual
// risk, even "", marks the check as carrying risk.
type VerificationCheck struct {
	ID             string             `json:"id"`
	Kind           string             `json:"kind"` // free-form: "test", "lint", "type_check", …
	Description    string             `json:"description"`
	Status         VerificationStatus `json:"status"`
	Required       bool               `json:"required"`
	SuggestedTools []string           `json:"suggested_tools,omitzero"`
	EvidenceURIs   []string           `json:"evidence_uris,omitzero"`
	ResidualRisk   *string            `json:"residual_risk,omitempty"`
}
