package turngate

import "encoding/json"

// ReportSchemaID is a verification report's schema id (docs/design.md §3).
type ReportSchemaID string

// Report schema ids: turngate's, and A3S Code's (accepted on input for imports).
const (
	ReportSchemaV1    ReportSchemaID = "verification_report.v1"
	ReportSchemaA3SV1 ReportSchemaID = "a3s.verification_report.v1"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (ReportSchemaID) Values() []string {
	return []string{"verification_report.v1", "a3s.verification_report.v1"}
}

// VerificationReport is a verification_report.v1 (a3s-completion-gate.md §1.3).
//
// Schema may be left empty on input (the bridge fills in "verification_report.v1");
// reports read back always carry it. Status must equal the status derived from Checks and
// ResidualRisks (DeriveReportStatus), or the bridge refuses the report
// ("report_status_mismatch"). EffectDigest binds the report to the effect digest it may
// close: an unbound report (nil) never passes the completion gate. A nil Checks is sent
// as [].
type VerificationReport struct {
	Schema        ReportSchemaID      `json:"schema,omitempty"`
	Subject       string              `json:"subject"`
	Status        VerificationStatus  `json:"status"`
	Checks        []VerificationCheck `json:"checks"`
	ResidualRisks []string            `json:"residual_risks,omitzero"`
	EffectDigest  *string             `json:"effect_digest,omitempty"`
}

// MarshalJSON encodes the report, sending a nil Checks as [] (the schema requires an array).
func (r VerificationReport) MarshalJSON() ([]byte, error) {
	type plain VerificationReport
	r.Checks = orEmpty(r.Checks)
	return json.Marshal(plain(r))
}

// orEmpty turns a nil slice into an empty one, so it encodes as [] rather than null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
