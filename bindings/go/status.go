package turngate

// VerificationStatus is the status of a check, report or summary
// (a3s-completion-gate.md §1.1): "passed", "failed", "needs_review" or "skipped".
type VerificationStatus string

// The four verification statuses.
const (
	StatusPassed      VerificationStatus = "passed"
	StatusFailed      VerificationStatus = "failed"
	StatusNeedsReview VerificationStatus = "needs_review"
	StatusSkipped     VerificationStatus = "skipped"
)

// Values lists every allowed value, in the schema's order (the parity test compares it).
func (VerificationStatus) Values() []string {
	return []string{"passed", "failed", "needs_review", "skipped"}
}
