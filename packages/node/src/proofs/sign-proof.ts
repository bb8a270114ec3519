import {
  type DsseEnvelope,
  IN_TOTO_PAYLOAD_TYPE,
  IN_TOTO_STATEMENT_TYPE,
  TURN_PROOF_PAYLOAD_TYPE,
  TURN_PROOF_PREDICATE_TYPE,
  TURN_PROOF_SUBJECT_NAME,
  TurngateError,
  type TurnProof,
  type TurnProofStatement,
} from "@turngate/core";
import { signDsse } from "./dsse.js";
import type { SigningKey } from "./signing-key.js";

/** How a proof file is written: a DSSE envelope over the proof, or over an in-toto Statement. */
export type ProofFormat = "dsse" | "in-toto";

/** The proof formats, as `--format` accepts them. */
export const PROOF_FORMATS: readonly ProofFormat[] = ["dsse", "in-toto"];

/**
 * The in-toto Statement v1 of a turn proof (issue 10 "`--format in-toto`"):
 * `{_type: "https://in-toto.io/Statement/v1", subject: [{name: "turngate:effect", digest:
 * {sha256: <effect digest>}}], predicateType: TURN_PROOF_PREDICATE_TYPE, predicate: proof}`.
 * Errors: `TurngateError` `invalid_input` when the proof's effect digest is empty (a
 * narrative turn has no subject to attest).
 */
export function turnProofStatement(proof: TurnProof): TurnProofStatement {
  if (!/^[0-9a-f]{64}$/.test(proof.effect_digest)) {
    throw new TurngateError(
      "invalid_input",
      "an in-toto statement needs a 64-hex effect digest as its subject; this proof has none (nothing changed)",
    );
  }
  return {
    _type: IN_TOTO_STATEMENT_TYPE,
    subject: [{ name: TURN_PROOF_SUBJECT_NAME, digest: { sha256: proof.effect_digest } }],
    predicateType: TURN_PROOF_PREDICATE_TYPE,
    predicate: proof,
  };
}

/**
 * Sign a turn proof (issue 10 "Proofs that cannot be forged"): the payload is the UTF-8
 * JSON of the proof (`dsse`, payloadType `application/vnd.turngate.turn-proof+json`) or of
 * its in-toto Statement (`in-toto`, payloadType `application/vnd.in-toto+json`), signed
 * with Ed25519 over the DSSE PAE, keyid = SHA-256 of the public key.
 * Output: the DSSE envelope (write it as JSON). Errors: as `turnProofStatement` for
 * `in-toto`.
 */
export function signTurnProof(
  proof: TurnProof,
  key: SigningKey,
  format: ProofFormat = "dsse",
): DsseEnvelope {
  const body = format === "in-toto" ? turnProofStatement(proof) : proof;
  const payloadType = format === "in-toto" ? IN_TOTO_PAYLOAD_TYPE : TURN_PROOF_PAYLOAD_TYPE;
  return signDsse(
    payloadType,
    Buffer.from(JSON.stringify(body), "utf8"),
    key.privateKey,
    key.keyid,
  );
}
