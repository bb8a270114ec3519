package turngate

// CompletionWaiverSchema is the schema id of a completion waiver.
const CompletionWaiverSchema = "completion_waiver.v1"

// CompletionWaiver is a host-confirmed completion_waiver.v1 (a3s-completion-gate.md
// §1.11): it lets a turn whose effect digest equals EffectDigest end without a verification
// pass. Both fields must be non-blank; they are matched exactly, never trimmed. Schema may
// be left empty. Only hosts mint waivers; the model cannot.
type CompletionWaiver struct {
	Schema       string `json:"schema,omitempty"`
	EffectDigest string `json:"effect_digest"`
	Reason       string `json:"reason"`
}

// WaiverValidation is the verdict of ValidateWaiver: Valid with the normalised Waiver, or
// not valid with the offending field's Path (relative to the waiver) and a Message.
type WaiverValidation struct {
	Valid   bool              `json:"valid"`
	Waiver  *CompletionWaiver `json:"waiver,omitempty"`
	Path    *string           `json:"path,omitempty"`
	Message *string           `json:"message,omitempty"`
}
