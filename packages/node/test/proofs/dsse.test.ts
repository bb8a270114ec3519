/**
 * DSSE v1.0 envelopes (issue 10): the PAE bytes as the DSSE spec defines them, Ed25519
 * signatures over them, and every way an envelope can be altered or cut, each a typed and
 * worded result of `authenticateProofFile`.
 */
import { generateKeyPairSync } from "node:crypto";
import {
  type DsseEnvelope,
  TURN_PROOF_PAYLOAD_TYPE,
  TURN_PROOF_SCHEMA,
  type TurnProof,
} from "@turngate/core";
import { describe, expect, test } from "vitest";
import { authenticateProofFile } from "../../src/proofs/authenticate.js";
import { dsseSignatureValid, openDsse, preAuthEncoding, signDsse } from "../../src/proofs/dsse.js";
import { signTurnProof } from "../../src/proofs/sign-proof.js";
import { keyIdOf, type SigningKey, type TrustedKey } from "../../src/proofs/signing-key.js";

function newKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return { privateKey, publicKey, keyid: keyIdOf(publicKey), source: "flag" };
}
const trust = (key: SigningKey): TrustedKey => ({
  publicKey: key.publicKey,
  keyid: key.keyid,
  source: "flag",
});

const DIGEST = "a".repeat(64);
const PROOF: TurnProof = {
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

describe("DSSE PAE and signatures", () => {
  test("PAE is the DSSE spec's encoding: DSSEv1 SP len SP type SP len SP body", () => {
    expect(
      preAuthEncoding("http://example.com/HelloWorld", Buffer.from("hello world")).toString(),
    ).toBe("DSSEv1 29 http://example.com/HelloWorld 11 hello world");
    // Lengths are byte lengths, not character counts.
    expect(preAuthEncoding("t", Buffer.from("é", "utf8")).toString("utf8")).toBe("DSSEv1 1 t 2 é");
  });

  test("a signature verifies over its PAE only: another payload type or payload fails", () => {
    const key = newKey();
    const envelope = signDsse("a/b", Buffer.from("{}"), key.privateKey, key.keyid);
    const opened = openDsse(envelope);
    expect(opened.payload.toString()).toBe("{}");
    expect(envelope.signatures[0]?.keyid).toBe(key.keyid);
    const sig = opened.signatures[0]?.sig as Buffer;
    expect(dsseSignatureValid("a/b", Buffer.from("{}"), sig, key.publicKey)).toBe(true);
    expect(dsseSignatureValid("a/c", Buffer.from("{}"), sig, key.publicKey)).toBe(false);
    expect(dsseSignatureValid("a/b", Buffer.from("{ }"), sig, key.publicKey)).toBe(false);
    expect(dsseSignatureValid("a/b", Buffer.from("{}"), sig, newKey().publicKey)).toBe(false);
  });
});

describe("authenticateProofFile", () => {
  const key = newKey();
  const signed = signTurnProof(PROOF, key);
  const text = JSON.stringify(signed);

  test("a proof signed by the trusted key is authenticated and its proof returned", () => {
    const file = authenticateProofFile(text, trust(key));
    expect(file.format).toBe("dsse");
    expect(file.authentication).toEqual({
      status: "authenticated",
      keyid: key.keyid,
      message: `signed by key ${key.keyid}`,
    });
    expect(file.proof).toEqual(PROOF);
    expect(signed.payloadType).toBe(TURN_PROOF_PAYLOAD_TYPE);
  });

  test("a bare proof is unauthenticated (unsigned)", () => {
    expect(authenticateProofFile(JSON.stringify(PROOF), trust(key))).toEqual({
      format: "plain",
      proof: PROOF,
      authentication: {
        status: "unauthenticated",
        reason: "unsigned",
        keyids: [],
        message: "the proof is not signed: anyone who can write the file could have written it",
      },
    });
  });

  test("an envelope with no signature is unauthenticated (unsigned)", () => {
    const bare: DsseEnvelope = { ...signed, signatures: [] };
    expect(authenticateProofFile(JSON.stringify(bare), trust(key)).authentication).toEqual({
      status: "unauthenticated",
      reason: "unsigned",
      keyids: [],
      message: "the envelope has no signature",
    });
  });

  test("signed by another key: unauthenticated (foreign_key), naming the keyids", () => {
    const other = newKey();
    const file = authenticateProofFile(JSON.stringify(signTurnProof(PROOF, other)), trust(key));
    expect(file.authentication).toEqual({
      status: "unauthenticated",
      reason: "foreign_key",
      keyids: [other.keyid],
      message: `signed by "${other.keyid}", not by the trusted key ${key.keyid}`,
    });
  });

  test("no trusted key here: unauthenticated (no_trusted_key) with what to pass", () => {
    expect(authenticateProofFile(text, undefined).authentication).toMatchObject({
      status: "unauthenticated",
      reason: "no_trusted_key",
      keyids: [key.keyid],
    });
  });

  test("a payload edited after signing: invalid (bad_signature)", () => {
    const edited = Buffer.from(
      JSON.stringify({ ...PROOF, tool_versions: { forged: "yes" } }),
    ).toString("base64");
    const file = authenticateProofFile(JSON.stringify({ ...signed, payload: edited }), trust(key));
    expect(file).toEqual({
      format: "dsse",
      authentication: {
        status: "invalid",
        reason: "bad_signature",
        message: `the signature of key ${key.keyid} does not verify: the payload or the signature was changed after signing`,
      },
    });
  });

  test("a signature swapped in from another proof by the same key: invalid (bad_signature)", () => {
    const other = signTurnProof({ ...PROOF, started_at: "2026-01-02T00:00:00.000Z" }, key);
    const swapped = { ...signed, signatures: other.signatures };
    expect(authenticateProofFile(JSON.stringify(swapped), trust(key)).authentication).toMatchObject(
      {
        status: "invalid",
        reason: "bad_signature",
      },
    );
  });

  test("the trusted key's signature under another keyid: invalid (keyid_mismatch)", () => {
    const relabelled = {
      ...signed,
      signatures: [{ keyid: "b".repeat(64), sig: signed.signatures[0]?.sig }],
    };
    expect(authenticateProofFile(JSON.stringify(relabelled), trust(key)).authentication).toEqual({
      status: "invalid",
      reason: "keyid_mismatch",
      message: `a signature by key ${key.keyid} carries keyid "${"b".repeat(64)}": the envelope was altered`,
    });
  });

  test("a truncated envelope, a missing field or a cut base64 field: invalid (malformed_envelope)", () => {
    const cut = authenticateProofFile(text.slice(0, Math.floor(text.length / 2)), trust(key));
    expect(cut.authentication).toMatchObject({ status: "invalid", reason: "malformed_envelope" });
    expect((cut.authentication as { message: string }).message).toMatch(
      /^the file is not JSON \(.+\): truncated or not a proof$/,
    );
    const { signatures: _s, ...noSignatures } = signed;
    expect(authenticateProofFile(JSON.stringify(noSignatures), trust(key)).authentication).toEqual({
      status: "invalid",
      reason: "malformed_envelope",
      message:
        "not a signed proof: invalid DSSE envelope at signatures: Invalid input: expected array, received undefined",
    });
    const badBase64 = { ...signed, payload: `${signed.payload.slice(0, -3)}*` };
    expect(authenticateProofFile(JSON.stringify(badBase64), trust(key)).authentication).toEqual({
      status: "invalid",
      reason: "malformed_envelope",
      message:
        "not a signed proof: invalid DSSE envelope at payload: not base64 (the envelope was cut or altered)",
    });
    const shortened = { ...signed, payload: signed.payload.slice(0, -4) };
    expect(
      authenticateProofFile(JSON.stringify(shortened), trust(key)).authentication,
    ).toMatchObject({
      status: "invalid",
      reason: "bad_signature",
    });
  });

  test("another payloadType: invalid (unsupported_payload_type)", () => {
    const other = signDsse("text/plain", Buffer.from("{}"), key.privateKey, key.keyid);
    expect(authenticateProofFile(JSON.stringify(other), trust(key)).authentication).toEqual({
      status: "invalid",
      reason: "unsupported_payload_type",
      message: `payloadType "text/plain" is not ${TURN_PROOF_PAYLOAD_TYPE} or application/vnd.in-toto+json`,
    });
  });

  test("signed bytes that are not JSON: invalid (malformed_payload)", () => {
    const other = signDsse(TURN_PROOF_PAYLOAD_TYPE, Buffer.from("{"), key.privateKey, key.keyid);
    expect(authenticateProofFile(JSON.stringify(other), trust(key)).authentication).toMatchObject({
      status: "invalid",
      reason: "malformed_payload",
    });
  });
});
