package turngate

import "context"

// ProofFormat is how a proof file is written: "dsse" (a DSSE envelope over the turn proof)
// or "in-toto" (over an in-toto Statement v1 whose predicate is the proof).
type ProofFormat string

// The proof formats.
const (
	ProofFormatDSSE   ProofFormat = "dsse"
	ProofFormatInToto ProofFormat = "in-toto"
)

// Values lists every allowed value, in the schema's order (the parity test compares it).
func (ProofFormat) Values() []string { return []string{"dsse", "in-toto"} }

// ProofFileFormat is the form proof.verify found: "plain" (a bare, unsigned turn proof),
// "dsse", "in-toto", or "unknown" (not readable as either).
type ProofFileFormat string

// Values lists every allowed value, in the schema's order.
func (ProofFileFormat) Values() []string { return []string{"plain", "dsse", "in-toto", "unknown"} }

// TurnProofTrust is what stood between the agent and the gate, recorded in a proof:
// "confined" (turngate ran the agent in its sandbox, or a confined hook's harness sandbox kept
// turngate's state and key from the agent), "confined-writes" (a confined hook's harness sandbox
// kept the agent from writing turngate's state, not from reading its key), "sandboxed" (the
// host's claim) or "unsandboxed".
type TurnProofTrust string

// Values lists every allowed value, in the schema's order.
func (TurnProofTrust) Values() []string {
	return []string{"unsandboxed", "sandboxed", "confined-writes", "confined"}
}

// AuthenticationStatus is ProofAuthentication.Status.
type AuthenticationStatus string

// Values lists every allowed value, in the schema's order.
func (AuthenticationStatus) Values() []string {
	return []string{"authenticated", "unauthenticated", "invalid"}
}

// RowCheckStatus is ProofRowCheck.Status.
type RowCheckStatus string

// Values lists every allowed value, in the schema's order.
func (RowCheckStatus) Values() []string { return []string{"match", "mismatch", "not_checkable"} }

// RowFound is what a proof row's path holds instead of a file.
type RowFound string

// Values lists every allowed value, in the schema's order.
func (RowFound) Values() []string { return []string{"directory", "special", "unreadable"} }

// EvidenceLogStatus is EvidenceLogCheck.Status.
type EvidenceLogStatus string

// Values lists every allowed value, in the schema's order.
func (EvidenceLogStatus) Values() []string {
	return []string{"match", "mismatch", "missing", "unavailable"}
}

// TurnProofWorkspace is where a turn happened (issue 10): the absolute workspace root and
// the git tree ids of the source scope at the baseline and at the decision (nil with
// TreeReason saying why: not a git work tree, git failed, …).
type TurnProofWorkspace struct {
	Root         string  `json:"root"`
	BaselineTree *string `json:"baseline_tree"`
	FinalTree    *string `json:"final_tree"`
	TreeReason   *string `json:"tree_reason"`
}

// TurnProofEvidenceLog is one evidence log a bound report cites: its file: URL and the
// lowercase hex SHA-256 of its bytes.
type TurnProofEvidenceLog struct {
	URI    string `json:"uri"`
	SHA256 string `json:"sha256"`
}

// SessionSignedProofParams are the params of session.signed_proof (without session_id):
// Format "dsse" (default, "" sends none) or "in-toto"; KeyFile an Ed25519 private key
// (PEM) outside the workspace ("" uses the bridge host's TURNGATE_SIGNING_KEY or its user's
// key).
type SessionSignedProofParams struct {
	Format  ProofFormat `json:"format,omitempty"`
	KeyFile string      `json:"key_file,omitempty"`
}

// SignedProof is the result of session.signed_proof: the DSSE envelope as JSON text
// (write it to a file as is), the signing key's id (SHA-256 of its DER public key) and the
// format.
type SignedProof struct {
	Envelope string      `json:"envelope"`
	Keyid    string      `json:"keyid"`
	Format   ProofFormat `json:"format"`
}

// SignedProof signs the session's turn proof (session.signed_proof; issue 10): a DSSE
// envelope with an Ed25519 signature over the proof ("dsse") or over an in-toto Statement
// v1 ("in-toto"). Errors: *RemoteError "not_decided", "turn_not_allowed",
// "signing_key_invalid", "signing_key_in_workspace" (path key_file).
func (s *Session) SignedProof(ctx context.Context, params SessionSignedProofParams) (*SignedProof, error) {
	var r SignedProof
	if err := s.call(ctx, "session.signed_proof", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ProofVerifyParams are the params of proof.verify: the proof file's text, the workspace
// root, and optionally the signer's public key file, AllowUnsigned and a Commit whose tree
// must be the proof's final tree.
type ProofVerifyParams struct {
	FileText      string `json:"file_text"`
	Root          string `json:"root"`
	PublicKeyFile string `json:"public_key_file,omitempty"`
	AllowUnsigned bool   `json:"allow_unsigned,omitempty"`
	Commit        string `json:"commit,omitempty"`
}

// ProofAuthentication says whether a proof file is signed by the trusted key: Status
// "authenticated" (Keyid set), "unauthenticated" (Reason unsigned, foreign_key or
// no_trusted_key; Keyids the envelope's) or "invalid" (Reason malformed_envelope,
// bad_signature, keyid_mismatch, unsupported_payload_type, malformed_payload,
// subject_mismatch).
type ProofAuthentication struct {
	Status  AuthenticationStatus `json:"status"`
	Reason  *string              `json:"reason"`
	Keyid   *string              `json:"keyid"`
	Keyids  []string             `json:"keyids"`
	Message string               `json:"message"`
}

// ProofRowCheck is how one proof row compares with the disk: Status "match", "mismatch"
// or "not_checkable"; Found "directory", "special" or "unreadable" when no file is there.
type ProofRowCheck struct {
	Tool     string         `json:"tool"`
	Path     string         `json:"path"`
	Recorded string         `json:"recorded"`
	Actual   *string        `json:"actual,omitempty"`
	Found    *RowFound      `json:"found,omitempty"`
	Status   RowCheckStatus `json:"status"`
}

// EvidenceLogCheck is how one cited evidence log compares with the file here: Status
// "match", "mismatch", "missing" or "unavailable" (not on this machine: not a failure).
type EvidenceLogCheck struct {
	URI      string            `json:"uri"`
	Path     *string           `json:"path,omitempty"`
	Recorded string            `json:"recorded"`
	Actual   *string           `json:"actual,omitempty"`
	Status   EvidenceLogStatus `json:"status"`
	Problem  *string           `json:"problem,omitempty"`
}

// ProofCommitMatch says whether the proof's final tree is the given commit's tree.
type ProofCommitMatch struct {
	Matches    bool    `json:"matches"`
	CommitTree *string `json:"commit_tree"`
	FinalTree  *string `json:"final_tree"`
	Reason     *string `json:"reason"`
}

// ProofVerification is the result of proof.verify (as `turngate proof verify --json`).
type ProofVerification struct {
	OK               bool                `json:"ok"`
	Format           ProofFileFormat     `json:"format"`
	Authentication   ProofAuthentication `json:"authentication"`
	RecomputedDigest *string             `json:"recomputed_digest"`
	Rows             []ProofRowCheck     `json:"rows"`
	EvidenceLogs     []EvidenceLogCheck  `json:"evidence_logs"`
	Commit           *ProofCommitMatch   `json:"commit"`
	Problems         []string            `json:"problems"`
	Notes            []string            `json:"notes"`
}

// VerifyProof authenticates and re-checks a proof file (proof.verify; issue 10): the DSSE
// signature against the trusted key, the effect digest and rows against the disk under
// Root, the evidence logs, and with Commit the final git tree. OK is false for an unsigned
// or foreign-signed proof unless AllowUnsigned.
func (c *Client) VerifyProof(ctx context.Context, params ProofVerifyParams) (*ProofVerification, error) {
	var r ProofVerification
	if err := c.Call(ctx, "proof.verify", params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
