package turngate

import "context"

// The stateless bridge methods. Names mirror the Python binding's Client
// (effect_digest → EffectDigest, decide_completion → DecideCompletion, …); each wraps one
// wire method, listed in bindings.go. Every method honours ctx and returns the errors
// described on Client.Call: *InvalidParamsError naming the bad field, *RemoteError,
// *ProtocolError, *BridgeError, or the context's error.

// EffectDigest returns the effect digest of mutation records (ledger.digest;
// a3s-completion-gate.md §2.2, docs/design.md §3): lowercase hex SHA-256 over the escaped rows
// tool|path|content_digest sorted by (path, tool) and joined by "\n"; "" for no records.
// A nil records slice is sent as [].
func (c *Client) EffectDigest(ctx context.Context, records []MutationRecord) (string, error) {
	var r LedgerDigestResult
	err := c.Call(ctx, "ledger.digest", LedgerDigestParams{Records: orEmpty(records)}, &r)
	return r.EffectDigest, err
}

// ContentDigest returns the content digest of a tool's metadata (ledger.content_digest;
// a3s-completion-gate.md §2.2): SHA-256 (lowercase hex) of metadata["after"] when it is a
// string, else of the RFC 8785 canonical JSON of the whole object. A nil map is sent as {}.
func (c *Client) ContentDigest(ctx context.Context, metadata map[string]any) (string, error) {
	if metadata == nil {
		metadata = map[string]any{}
	}
	var r LedgerContentDigestResult
	err := c.Call(ctx, "ledger.content_digest", LedgerContentDigestParams{Metadata: metadata}, &r)
	return r.ContentDigest, err
}

// DecideCompletion runs the completion gate (gate.decide; a3s-completion-gate.md §2.7 with
// docs/design.md §3's typed reasons) over a ledger, host reports, host waivers and external
// observations. A report whose status differs from its derived status is refused with a
// *RemoteError "report_status_mismatch" (Path "reports.N.status").
func (c *Client) DecideCompletion(ctx context.Context, params GateDecideParams) (*GateOutcome, error) {
	var r GateOutcome
	if err := c.Call(ctx, "gate.decide", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// DeriveReportStatus returns the status checks and report-level residual risks imply
// (report.derive_status; a3s-completion-gate.md §1.3.1, first rule wins): failed if a check
// failed; needs_review if a required check is needs_review/skipped or there are residual
// risks; skipped without checks; else passed.
func (c *Client) DeriveReportStatus(ctx context.Context, checks []VerificationCheck, residualRisks []string) (VerificationStatus, error) {
	var r ReportDeriveStatusResult
	err := c.Call(ctx, "report.derive_status", ReportDeriveStatusParams{Checks: orEmpty(checks), ResidualRisks: residualRisks}, &r)
	return r.Status, err
}

// SummarizeReports returns the verification summary of reports (verification.summary;
// a3s-completion-gate.md §1.4).
func (c *Client) SummarizeReports(ctx context.Context, reports []VerificationReport) (*VerificationSummary, error) {
	var r VerificationSummary
	if err := c.Call(ctx, "verification.summary", VerificationSummaryParams{Reports: orEmpty(reports)}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// FormatVerificationSummary returns the one-line summary text
// (verification.summary_text; a3s-completion-gate.md §2.19), e.g.
// "Verification passed: 1 report, 2 required checks.".
func (c *Client) FormatVerificationSummary(ctx context.Context, summary VerificationSummary) (string, error) {
	var r VerificationSummaryTextResult
	err := c.Call(ctx, "verification.summary_text", VerificationSummaryTextParams{Summary: summary}, &r)
	return r.Text, err
}

// ValidateWaiver validates a completion_waiver.v1 (waiver.validate;
// a3s-completion-gate.md §1.11). waiver is any JSON-encodable value. A bad waiver is a
// verdict (Valid false, with Path and Message), not an error.
func (c *Client) ValidateWaiver(ctx context.Context, waiver any) (*WaiverValidation, error) {
	var r WaiverValidation
	if err := c.Call(ctx, "waiver.validate", WaiverValidateParams{Waiver: waiver}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// CreateSession opens a host session on a workspace root (session.create): the run-start
// baseline is taken now. params.Waivers are host waivers the gate honours. The Session
// lives in this client's bridge; close it with Session.Close.
func (c *Client) CreateSession(ctx context.Context, params SessionCreateParams) (*Session, error) {
	var r SessionCreateResult
	if err := c.Call(ctx, "session.create", params, &r); err != nil {
		return nil, err
	}
	return &Session{ID: r.SessionID, client: c}, nil
}
