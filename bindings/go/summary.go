package turngate

// VerificationSummary summarises a list of reports (a3s-completion-gate.md §1.4): counts
// of reports, required, pending-required and failed checks and residual risks, and the
// sorted, de-duplicated pending and failed subjects (nil when the bridge omitted them).
type VerificationSummary struct {
	Status                    VerificationStatus `json:"status"`
	ReportCount               int                `json:"report_count"`
	RequiredCheckCount        int                `json:"required_check_count"`
	PendingRequiredCheckCount int                `json:"pending_required_check_count"`
	FailedCheckCount          int                `json:"failed_check_count"`
	ResidualRiskCount         int                `json:"residual_risk_count"`
	PendingSubjects           []string           `json:"pending_subjects,omitzero"`
	FailedSubjects            []string           `json:"failed_subjects,omitzero"`
}
