package turngate

// TerminalKind says how a turn completed (a3s-completion-gate.md §1.9).
type TerminalKind string

// The four completion terminals.
const (
	TerminalNarrative TerminalKind = "narrative" // the turn changed nothing; an answer is enough
	TerminalVerified  TerminalKind = "verified"  // a passing report is bound to EffectDigest
	TerminalWaived    TerminalKind = "waived"    // the host waived EffectDigest (not a pass)
	TerminalDistinct  TerminalKind = "distinct"  // step closures did not share one digest
)

// Values lists every allowed value (the parity test compares it with the schema).
func (TerminalKind) Values() []string {
	return []string{"narrative", "verified", "waived", "distinct"}
}

// CompletionTerminal is the tagged union {"kind": …} of a3s-completion-gate.md §1.9.
// EffectDigest is set exactly when Kind is "verified" or "waived".
type CompletionTerminal struct {
	Kind         TerminalKind `json:"kind"`
	EffectDigest *string      `json:"effect_digest,omitempty"`
}
