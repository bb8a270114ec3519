package turngate

// RefusedReason says why a report carried in tool metadata was refused (issue 13).
type RefusedReason string

// The refusal reasons.
const (
	RefusedAuthorMissing  RefusedReason = "author_missing"  // no verification_author
	RefusedAuthorEditor   RefusedReason = "author_editor"   // the editor cannot verify its own edits
	RefusedAuthorUnknown  RefusedReason = "author_unknown"  // any other author (A3S: treated as host)
	RefusedReportInvalid  RefusedReason = "report_invalid"  // malformed; Path names the field
	RefusedStatusMismatch RefusedReason = "status_mismatch" // recorded status is not the derived one
)

// Values lists every allowed value (the parity test compares it with the schema).
func (RefusedReason) Values() []string {
	return []string{"author_missing", "author_editor", "author_unknown", "report_invalid", "status_mismatch"}
}

// RefusedReport is a report a tool result carried that was refused: kept for the host,
// never a gate input. Author is verification_author as given (nil when absent or not a
// string); Report is the report exactly as the metadata carried it.
type RefusedReport struct {
	Tool    string        `json:"tool"`
	Reason  RefusedReason `json:"reason"`
	Code    string        `json:"code"`
	Message string        `json:"message"`
	Path    *string       `json:"path,omitempty"`
	Author  *string       `json:"author"`
	Report  any           `json:"report"`
}

// TurnResult is the result of an allowed turn (a3s-completion-gate.md §1.17 AgentResult):
// the completion terminal, the effect digest, the summary status, counts and text over the
// turn's own reports, its refused tool reports and its proof.
type TurnResult struct {
	Turn                     int                  `json:"turn"`
	Completion               CompletionTerminal   `json:"completion"`
	EffectDigest             string               `json:"effect_digest"`
	VerificationStatus       VerificationStatus   `json:"verification_status"`
	PendingVerificationCount int                  `json:"pending_verification_count"`
	FailedVerificationCount  int                  `json:"failed_verification_count"`
	VerificationReportCount  int                  `json:"verification_report_count"`
	VerificationSummaryText  string               `json:"verification_summary_text"`
	VerificationSummary      VerificationSummary  `json:"verification_summary"`
	VerificationReports      []VerificationReport `json:"verification_reports"`
	RefusedReports           []RefusedReport      `json:"refused_reports"`
	Proof                    TurnProof            `json:"proof"`
}

// TurnEnd is the result of session.end_turn: Ended is true when the gate allowed the turn
// (Result is set and the next turn began with a fresh ledger); otherwise Outcome says why
// and the turn stays open.
type TurnEnd struct {
	Ended   bool        `json:"ended"`
	Outcome GateOutcome `json:"outcome"`
	Result  *TurnResult `json:"result,omitempty"`
}

// SessionRefusedReportsResult is the result of session.refused_reports.
type SessionRefusedReportsResult struct {
	RefusedReports []RefusedReport `json:"refused_reports"`
}
