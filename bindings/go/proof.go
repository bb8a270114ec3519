package turngate

// TurnProofSchema is the schema id of a turn proof.
const TurnProofSchema = "turn_proof.v1"

// TurnProof is a turn_proof.v1 (docs/design.md §3 "Proof"): what one turn changed and why it
// was allowed to end — the ledger rows and their effect digest, the reports bound to it,
// the waivers used, the terminal and gate outcome, tool versions and ISO-8601 timestamps.
type TurnProof struct {
	Schema       string               `json:"schema"`
	EffectDigest string               `json:"effect_digest"`
	Records      []MutationRecord     `json:"records"`
	Reports      []VerificationReport `json:"reports"`
	WaiversUsed  []CompletionWaiver   `json:"waivers_used"`
	// Terminal is nil in a proof an agent hook wrote for a stop the gate refused (issue 19:
	// see Outcome and Loop); such a proof never holds.
	Terminal     *CompletionTerminal `json:"terminal"`
	Outcome      GateOutcome         `json:"outcome"`
	ToolVersions map[string]string   `json:"tool_versions"`
	StartedAt    string              `json:"started_at"`
	FinishedAt   string              `json:"finished_at"`
	// Issue 10 (absent in older proofs): the root and git trees, the cited evidence logs
	// with their SHA-256, and the host's sandbox claim ("unsandboxed" or "sandboxed").
	Workspace    *TurnProofWorkspace    `json:"workspace,omitempty"`
	EvidenceLogs []TurnProofEvidenceLog `json:"evidence_logs,omitzero"`
	Trust        TurnProofTrust         `json:"trust,omitempty"`
	// Issue 19 (absent unless an agent hook wrote the proof): the stop's loop control.
	Loop *TurnProofLoop `json:"loop,omitempty"`
	// Isolation is where the turn's checks ran (docs/design.md §3b); absent in proofs of
	// sessions that chose none.
	Isolation *TurnProofIsolation `json:"isolation,omitempty"`
}

// TurnProofLoop is the loop control of an agent hook's stop (issue 19): the harness, the
// answer's action ("allow"/"block") and verdict, the attempt on this effect digest (0 when
// the gate allowed the first stop), MaxAttempts, Reason "escalated" or "capped" (nil
// otherwise) and whether the failing result was cached (the checks were not re-run).
type TurnProofLoop struct {
	Harness     string      `json:"harness"`
	Action      LoopAction  `json:"action"`
	Verdict     LoopVerdict `json:"verdict"`
	Reason      *LoopReason `json:"reason"`
	Attempt     int         `json:"attempt"`
	MaxAttempts int         `json:"max_attempts"`
	Cached      bool        `json:"cached"`
}

// LoopAction is TurnProofLoop.Action: what the stop answered.
type LoopAction string

// Values lists every allowed value, in the schema's order.
func (LoopAction) Values() []string { return []string{"allow", "block"} }

// LoopVerdict is TurnProofLoop.Verdict.
type LoopVerdict string

// Values lists every allowed value, in the schema's order.
func (LoopVerdict) Values() []string {
	return []string{"verified", "waived", "narrative", "distinct", "continue", "incomplete"}
}

// LoopReason is TurnProofLoop.Reason: "escalated" (stuck digest) or "capped" (harness cap).
type LoopReason string

// Values lists every allowed value, in the schema's order.
func (LoopReason) Values() []string { return []string{"escalated", "capped"} }

// TurnProofIsolation is where a turn's checks ran, recorded from what ran: Mode
// "clean-room" or "in-place", Requested ("auto" too), Available false when a required
// clean room could not start, Reason why the sandbox was not used.
type TurnProofIsolation struct {
	Mode      IsolationRunMode `json:"mode"`
	Requested IsolationMode    `json:"requested"`
	Available bool             `json:"available"`
	Reason    *string          `json:"reason,omitempty"`
}
