package turngate

import "context"

// VerifierRunStatus is how a turn's verifier run went.
type VerifierRunStatus string

// Values lists every allowed value (the parity test compares it with the schema).
func (VerifierRunStatus) Values() []string {
	return []string{"reported", "no_report", "refused", "crashed", "timed_out", "verifier_changed_workspace"}
}

// VerifierRun is how the turn's read-only verifier run went (session.verifier_run):
// verifier_changed_workspace means its report is void.
type VerifierRun struct {
	Status       VerifierRunStatus   `json:"status"`
	EffectDigest string              `json:"effect_digest"`
	Message      *string             `json:"message,omitempty"`
	ChangedPaths []string            `json:"changed_paths,omitzero"`
	Report       *VerificationReport `json:"report,omitempty"`
}

// SessionVerifierRunResult is the result of session.verifier_run (VerifierRun nil before it ran).
type SessionVerifierRunResult struct {
	VerifierRun *VerifierRun `json:"verifier_run"`
}

// SessionRecordObservationParams are the params of session.record_observation.
type SessionRecordObservationParams struct {
	Observation ExternalObservation `json:"observation"`
}

// SessionRecordObservationResult is the result of session.record_observation.
type SessionRecordObservationResult struct {
	Observation ExternalObservation `json:"observation"`
}

// RecordObservation binds an external observation to the session
// (session.record_observation; a3s-completion-gate.md §1.14, §2.12). A payload over 8192
// bytes is *InvalidParamsError with Path "observation.payload"; nothing is recorded then.
func (s *Session) RecordObservation(ctx context.Context, observation ExternalObservation) (*ExternalObservation, error) {
	var r SessionRecordObservationResult
	if err := s.call(ctx, "session.record_observation", SessionRecordObservationParams{Observation: observation}, &r); err != nil {
		return nil, err
	}
	return &r.Observation, nil
}

// VerifierRun returns how the turn's read-only verifier run went, or nil before it ran
// (session.verifier_run).
func (s *Session) VerifierRun(ctx context.Context) (*VerifierRun, error) {
	var r SessionVerifierRunResult
	if err := s.call(ctx, "session.verifier_run", nil, &r); err != nil {
		return nil, err
	}
	return r.VerifierRun, nil
}
