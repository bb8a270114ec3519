package turngate

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 10 through the Go binding, on the real bridge: a verified turn's proof is signed
// with the bridge user's key (session.signed_proof) and verifies (proof.verify); a payload
// edited after signing is rejected as bad_signature, and a bare hand-written proof is
// unauthenticated. The bridge gets its own state folder, so its own key.
func TestSignedProofVerifiesAndForgedProofsDoNot(t *testing.T) {
	ctx := t.Context()
	client := realClient(t, WithEnv("XDG_STATE_HOME="+t.TempDir()))
	root := gitWorkspace(t)
	session, err := client.CreateSession(ctx, SessionCreateParams{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "README.md", "# changed\n")
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	check := VerificationCommand{ID: "t", Kind: "test", Description: "d", Command: "grep -q changed README.md", Required: true}
	if _, err := session.VerifyCommands(ctx, SessionVerifyCommandsParams{Subject: "host", Commands: []VerificationCommand{check}, Bind: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Decide(ctx); err != nil {
		t.Fatal(err)
	}
	digest := sha256Hex("workspace|README.md|" + sha256Hex("# changed\n"))

	signed, err := session.SignedProof(ctx, SessionSignedProofParams{})
	if err != nil {
		t.Fatal(err)
	}
	if signed.Format != ProofFormatDSSE || len(signed.Keyid) != 64 {
		t.Fatalf("signed %+v", signed)
	}
	verified, err := client.VerifyProof(ctx, ProofVerifyParams{FileText: signed.Envelope, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if !verified.OK || verified.Authentication.Status != "authenticated" || verified.Authentication.Keyid == nil ||
		*verified.Authentication.Keyid != signed.Keyid || verified.RecomputedDigest == nil || *verified.RecomputedDigest != digest {
		t.Fatalf("verification %s", mustJSON(t, verified))
	}

	var envelope map[string]any
	if err := json.Unmarshal([]byte(signed.Envelope), &envelope); err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.StdEncoding.DecodeString(envelope["payload"].(string))
	var proof TurnProof
	if err := json.Unmarshal(payload, &proof); err != nil {
		t.Fatal(err)
	}
	if proof.Trust != "unsandboxed" || proof.Workspace == nil || proof.Workspace.BaselineTree == nil || len(proof.EvidenceLogs) != 1 {
		t.Fatalf("proof %s", mustJSON(t, proof))
	}
	proof.ToolVersions["forged"] = "1"
	edited, _ := json.Marshal(proof)
	envelope["payload"] = base64.StdEncoding.EncodeToString(edited)
	text, _ := json.Marshal(envelope)
	rejected, err := client.VerifyProof(ctx, ProofVerifyParams{FileText: string(text), Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if rejected.OK || rejected.Authentication.Status != "invalid" || rejected.Authentication.Reason == nil || *rejected.Authentication.Reason != "bad_signature" {
		t.Fatalf("edited payload: %s", mustJSON(t, rejected))
	}
	bare, _ := json.Marshal(proof)
	unsigned, err := client.VerifyProof(ctx, ProofVerifyParams{FileText: string(bare), Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if unsigned.OK || unsigned.Format != "plain" || *unsigned.Authentication.Reason != "unsigned" {
		t.Fatalf("bare proof: %s", mustJSON(t, unsigned))
	}
}

// A key file inside the workspace is refused with a typed error naming key_file.
func TestSignedProofRefusesAKeyInsideTheWorkspace(t *testing.T) {
	ctx := t.Context()
	client := realClient(t, WithEnv("XDG_STATE_HOME="+t.TempDir()))
	root := gitWorkspace(t)
	digest := sha256Hex("workspace|README.md|" + sha256Hex("# changed\n"))
	session, err := client.CreateSession(ctx, SessionCreateParams{Root: root, Waivers: []CompletionWaiver{{EffectDigest: digest, Reason: "test"}}})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "README.md", "# changed\n")
	if _, err := session.ObserveWorkspace(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Decide(ctx); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(root, "key.pem")
	_, err = session.SignedProof(ctx, SessionSignedProofParams{KeyFile: key})
	var remote *RemoteError
	if !errors.As(err, &remote) || remote.Code != "signing_key_in_workspace" || remote.Path != "key_file" ||
		!strings.HasPrefix(remote.Message, "key_file: "+key+" is inside the workspace ") {
		t.Fatalf("got %v", err)
	}
}
