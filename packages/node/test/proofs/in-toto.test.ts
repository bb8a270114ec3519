/**
 * The in-toto form of a turn proof (issue 10 "`--format in-toto`"): an in-toto Statement v1
 * inside a DSSE envelope with payloadType `application/vnd.in-toto+json`, subject digest =
 * effect digest, predicate = the proof.
 */
import { generateKeyPairSync } from "node:crypto";
import { TURN_PROOF_SCHEMA, type TurnProof } from "@turngate/core";
import { describe, expect, test } from "vitest";
import { authenticateProofFile } from "../../src/proofs/authenticate.js";
import { signDsse } from "../../src/proofs/dsse.js";
import { signTurnProof, turnProofStatement } from "../../src/proofs/sign-proof.js";
import { keyIdOf, type SigningKey } from "../../src/proofs/signing-key.js";

const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const key: SigningKey = { privateKey, publicKey, keyid: keyIdOf(publicKey), source: "flag" };
const trusted = { publicKey, keyid: key.keyid, source: "flag" as const };
const DIGEST = "c".repeat(64);
const PROOF = {
  schema: TURN_PROOF_SCHEMA,
  effect_digest: DIGEST,
  records: [],
  reports: [],
  waivers_used: [],
  terminal: { kind: "verified", effect_digest: DIGEST },
  outcome: { kind: "allow", terminal: { kind: "verified", effect_digest: DIGEST } },
  tool_versions: {},
  started_at: "2026-01-01T00:00:00.000Z",
  finished_at: "2026-01-01T00:00:01.000Z",
} as TurnProof;

describe("in-toto Statement v1 form", () => {
  test("the statement: _type, one subject with the effect digest as sha256, predicateType, predicate", () => {
    expect(turnProofStatement(PROOF)).toEqual({
      _type: "https://in-toto.io/Statement/v1",
      subject: [{ name: "turngate:effect", digest: { sha256: DIGEST } }],
      predicateType: "https://github.com/turngate/turngate/turn_proof/v1",
      predicate: PROOF,
    });
  });

  test("signed as in-toto: payloadType application/vnd.in-toto+json, authenticated, predicate returned", () => {
    const envelope = signTurnProof(PROOF, key, "in-toto");
    expect(envelope.payloadType).toBe("application/vnd.in-toto+json");
    const payload = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    expect(payload._type).toBe("https://in-toto.io/Statement/v1");
    const file = authenticateProofFile(JSON.stringify(envelope), trusted);
    expect(file.format).toBe("in-toto");
    expect(file.authentication.status).toBe("authenticated");
    expect(file.proof).toEqual(PROOF);
  });

  test("a signed statement whose subject is not the proof's effect digest: invalid (subject_mismatch)", () => {
    const statement = {
      ...turnProofStatement(PROOF),
      subject: [{ name: "x", digest: { sha256: "d".repeat(64) } }],
    };
    const envelope = signDsse(
      "application/vnd.in-toto+json",
      Buffer.from(JSON.stringify(statement)),
      privateKey,
      key.keyid,
    );
    expect(authenticateProofFile(JSON.stringify(envelope), trusted).authentication).toEqual({
      status: "invalid",
      reason: "subject_mismatch",
      message: `the in-toto subject digest ${"d".repeat(64)} is not the proof's effect digest ${DIGEST}`,
    });
  });

  test("a narrative proof (empty digest) has no subject: a typed error", () => {
    expect(() => turnProofStatement({ ...PROOF, effect_digest: "" })).toThrow(
      "an in-toto statement needs a 64-hex effect digest as its subject; this proof has none (nothing changed)",
    );
  });
});
