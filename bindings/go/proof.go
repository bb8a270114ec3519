package turngate

// TurnProofSchema is the schema id of a turn proof.
const TurnProofSchema = "turn_proof.v1"

// TurnProof is a turn_proof.v1 (DESIGN.md §3 "Proof"): what one turn changed and why it
// was allowed to end — the ledger rows and their effect digest, the reports bound to it,
// the waivers used, the terminal and gate outcome, tool versions and ISO-8601 timestamps.
type TurnProof struct {
	Schema       string               `json:"schema"`
	EffectDigest string               `json:"effect_digest"`
	Records      []MutationRecord     `json:"records"`
	Reports      []VerificationReport `json:"reports"`
	WaiversUsed  []CompletionWaiver   `json:"waivers_used"`
	Terminal     CompletionTerminal   `json:"terminal"`
	Outcome      GateOutcome          `json:"outcome"`
	ToolVersions map[string]string    `json:"tool_versions"`
	StartedAt    string               `json:"started_at"`
	FinishedAt   string               `json:"finished_at"`
	// Issue 10 (absent in older proofs): the root and git trees, the cited evidence logs
	// with their SHA-256, and the host's sandbox claim ("unsandboxed" or "sandboxed").
	Workspace    *TurnProofWorkspace    `json:"workspace,omitempty"`
	EvidenceLogs []TurnProofEvidenceLog `json:"evidence_logs,omitzero"`
	Trust        TurnProofTrust         `json:"trust,omitempty"`
}
