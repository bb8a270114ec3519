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
	Tests          *CheckTestCounts   `json:"tests,omitempty"`
	FailingTests   []string           `json:"failing_tests,omitzero"`
	// FailureClass says why a failed check did not pass, when turngate's runner ran it
	// (issue 19); nil otherwise.
	FailureClass *CheckFailureClass `json:"failure_class,omitempty"`
}

// CheckFailureClass is VerificationCheck.FailureClass.
type CheckFailureClass string

// Values lists every allowed value, in the schema's order.
func (CheckFailureClass) Values() []string {
	return []string{"assertion", "timeout", "cancelled", "signal", "infrastructure"}
}

// CheckTestCounts are a check's test counts from its structured results (issue #16).
type CheckTestCounts struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Errored int `json:"errored"`
}
