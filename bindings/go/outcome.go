package turngate

// OutcomeKind is the gate's decision (a3s-completion-gate.md §1.10).
type OutcomeKind string

// The three gate outcomes.
const (
	OutcomeAllow      OutcomeKind = "allow"      // the turn may end; see Terminal
	OutcomeContinue   OutcomeKind = "continue"   // ask the model once more; not a success
	OutcomeIncomplete OutcomeKind = "incomplete" // do not report success
)

// Values lists every allowed value (the parity test compares it with the schema).
func (OutcomeKind) Values() []string { return []string{"allow", "continue", "incomplete"} }

// GateReason is the typed reason behind "continue"/"incomplete" (docs/design.md §3).
type GateReason string

// The gate reasons. Core produces the first four; "capped" is for a stop the harness (or a
// host's budget) forced, "escalated" for a digest that failed max_attempts times (hooks),
// "isolation_unavailable" for a turn whose required clean-room checks could not start,
// "unverified_carry_over" for a turn that changed nothing after an unverified one (run).
const (
	ReasonExternalObservation   GateReason = "external_observation"
	ReasonOpenChildren          GateReason = "open_children"
	ReasonObservationIncomplete GateReason = "observation_incomplete"
	ReasonUnverifiedMutation    GateReason = "unverified_mutation"
	ReasonCapped                GateReason = "capped"
	ReasonEscalated             GateReason = "escalated"
	ReasonIsolationUnavailable  GateReason = "isolation_unavailable"
	ReasonUnverifiedCarryOver   GateReason = "unverified_carry_over"
)

// Values lists every allowed value (the parity test compares it with the schema).
func (GateReason) Values() []string {
	return []string{"external_observation", "open_children", "observation_incomplete", "unverified_mutation", "capped", "escalated", "isolation_unavailable", "unverified_carry_over"}
}

// GateOutcome is the completion gate's decision (a3s-completion-gate.md §2.7, docs/design.md
// §3): Kind "allow" carries Terminal; "continue" and "incomplete" carry Reason, Message
// (starting "completion gate:") and the data behind the reason — the ledger's
// EffectDigest and Paths, blocking observations' Digests and Subjects, open TaskIDs.
type GateOutcome struct {
	Kind         OutcomeKind         `json:"kind"`
	Terminal     *CompletionTerminal `json:"terminal,omitempty"`
	Reason       GateReason          `json:"reason,omitempty"`
	Message      *string             `json:"message,omitempty"`
	EffectDigest *string             `json:"effect_digest,omitempty"`
	Paths        []string            `json:"paths,omitzero"`
	Digests      []string            `json:"digests,omitzero"`
	Subjects     []string            `json:"subjects,omitzero"`
	TaskIDs      []string            `json:"task_ids,omitzero"`
}

// Verified reports whether the outcome allows the turn with a verified terminal, and
// returns the effect digest it was verified against.
func (o *GateOutcome) Verified() (string, bool) {
	if o == nil || o.Kind != OutcomeAllow || o.Terminal == nil || o.Terminal.Kind != TerminalVerified || o.Terminal.EffectDigest == nil {
		return "", false
	}
	return *o.Terminal.EffectDigest, true
}
