import {
  IN_TOTO_PAYLOAD_TYPE,
  parseTurnProofStatement,
  TURN_PROOF_PAYLOAD_TYPE,
  TURN_PROOF_SCHEMA,
  TurngateValidationError,
} from "@turngate/core";
import { dsseSignatureValid, openDsse } from "./dsse.js";
import type { TrustedKey } from "./signing-key.js";

/** Which form the proof file has. */
export type ProofFileFormat = "plain" | "dsse" | "in-toto";

/**
 * Whether a proof file is signed by the trusted key:
 * - `authenticated`: a signature with the trusted key's keyid verifies over the payload;
 * - `unauthenticated` (exit 2 unless `--allow-unsigned`): `unsigned` (a bare proof, or an
 *   envelope without signatures), `foreign_key` (signed, but by no key trusted here), or
 *   `no_trusted_key` (nothing to check against: no `--public-key` and no local key);
 * - `invalid` (always a failure): `malformed_envelope` (not JSON — e.g. truncated — or a
 *   field missing or not base64), `bad_signature` (a signature under the trusted keyid
 *   does not verify: the payload was edited, or the signature swapped),
 *   `keyid_mismatch` (the trusted key's signature carries another keyid),
 *   `unsupported_payload_type`, `malformed_payload` (signed bytes that are not JSON),
 *   `subject_mismatch` (an in-toto subject digest that is not the proof's effect digest).
 */
export type ProofAuthentication =
  | { status: "authenticated"; keyid: string; message: string }
  | {
      status: "unauthenticated";
      reason: "unsigned" | "foreign_key" | "no_trusted_key";
      keyids: string[];
      message: string;
    }
  | {
      status: "invalid";
      reason:
        | "malformed_envelope"
        | "bad_signature"
        | "keyid_mismatch"
        | "unsupported_payload_type"
        | "malformed_payload"
        | "subject_mismatch";
      message: string;
    };

/** Result of {@link authenticateProofFile}. */
export interface AuthenticatedProofFile {
  format: ProofFileFormat | "unknown";
  authentication: ProofAuthentication;
  /**
   * The proof value carried (unparsed for a bare proof; the parsed JSON payload of an
   * envelope; an in-toto Statement's predicate). Absent when the file is `invalid`.
   */
  proof?: unknown;
}

/**
 * Read a proof file's text and authenticate it against `trusted` (issue 10): detect the
 * form (a bare `turn_proof.v1`, a DSSE envelope over one, a DSSE envelope over an in-toto
 * Statement whose predicate is one), check the signatures over the exact payload bytes
 * before reading them, and return the proof value inside. The proof's content is not
 * checked here (that is `verifyTurnProof`, with the disk); only an in-toto statement's
 * shape is, so its subject can be compared with the effect digest.
 *
 * Input: the file's text; the trusted public key or `undefined`.
 * Output: {@link AuthenticatedProofFile}; never throws for bad content.
 */
export function authenticateProofFile(
  text: string,
  trusted: TrustedKey | undefined,
): AuthenticatedProofFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return invalid(
      "unknown",
      "malformed_envelope",
      `the file is not JSON (${(error as Error).message}): truncated or not a proof`,
    );
  }
  if (isObject(value) && value.schema === TURN_PROOF_SCHEMA && !("payloadType" in value)) {
    return {
      format: "plain",
      proof: value,
      authentication: {
        status: "unauthenticated",
        reason: "unsigned",
        keyids: [],
        message: "the proof is not signed: anyone who can write the file could have written it",
      },
    };
  }
  let opened: ReturnType<typeof openDsse>;
  try {
    opened = openDsse(value);
  } catch (error) {
    const detail = error instanceof TurngateValidationError ? error.message : String(error);
    return invalid("unknown", "malformed_envelope", `not a signed proof: ${detail}`);
  }
  const { payloadType } = opened.envelope;
  const format: ProofFileFormat = payloadType === IN_TOTO_PAYLOAD_TYPE ? "in-toto" : "dsse";
  if (payloadType !== IN_TOTO_PAYLOAD_TYPE && payloadType !== TURN_PROOF_PAYLOAD_TYPE) {
    return invalid(
      format,
      "unsupported_payload_type",
      `payloadType ${JSON.stringify(payloadType)} is not ${TURN_PROOF_PAYLOAD_TYPE} or ${IN_TOTO_PAYLOAD_TYPE}`,
    );
  }
  const authentication = checkSignatures(opened, trusted);
  if (authentication.status === "invalid") return { format, authentication };
  let payload: unknown;
  try {
    payload = JSON.parse(opened.payload.toString("utf8"));
  } catch (error) {
    return invalid(
      format,
      "malformed_payload",
      `the signed payload is not JSON (${(error as Error).message})`,
    );
  }
  if (format === "dsse") return { format, authentication, proof: payload };
  let statement: ReturnType<typeof parseTurnProofStatement>;
  try {
    statement = parseTurnProofStatement(payload);
  } catch (error) {
    return invalid(format, "malformed_payload", (error as Error).message);
  }
  const digest = statement.predicate.effect_digest;
  const subjects = statement.subject.map((subject) => subject.digest.sha256);
  if (!subjects.every((sha256) => sha256 === digest)) {
    return invalid(
      format,
      "subject_mismatch",
      `the in-toto subject digest ${subjects.join(", ")} is not the proof's effect digest ${digest}`,
    );
  }
  return { format, authentication, proof: (payload as { predicate: unknown }).predicate };
}

function checkSignatures(
  opened: ReturnType<typeof openDsse>,
  trusted: TrustedKey | undefined,
): ProofAuthentication {
  const keyids = opened.signatures.map((signature) => signature.keyid);
  if (opened.signatures.length === 0) {
    return {
      status: "unauthenticated",
      reason: "unsigned",
      keyids,
      message: "the envelope has no signature",
    };
  }
  if (trusted === undefined) {
    return {
      status: "unauthenticated",
      reason: "no_trusted_key",
      keyids,
      message:
        "no key to check the signature against: pass --public-key FILE (the signer's public key), set TURNGATE_SIGNING_KEY, or verify as the user whose key signed it",
    };
  }
  const { payloadType } = opened.envelope;
  const valid = (sig: Buffer) =>
    dsseSignatureValid(payloadType, opened.payload, sig, trusted.publicKey);
  const ours = opened.signatures.filter((signature) => signature.keyid === trusted.keyid);
  if (ours.some((signature) => !valid(signature.sig))) {
    return {
      status: "invalid",
      reason: "bad_signature",
      message: `the signature of key ${trusted.keyid} does not verify: the payload or the signature was changed after signing`,
    };
  }
  if (ours.length > 0) {
    return {
      status: "authenticated",
      keyid: trusted.keyid,
      message: `signed by key ${trusted.keyid}`,
    };
  }
  const relabelled = opened.signatures.find((signature) => valid(signature.sig));
  if (relabelled) {
    return {
      status: "invalid",
      reason: "keyid_mismatch",
      message: `a signature by key ${trusted.keyid} carries keyid ${JSON.stringify(relabelled.keyid)}: the envelope was altered`,
    };
  }
  return {
    status: "unauthenticated",
    reason: "foreign_key",
    keyids,
    message: `signed by ${keyids.map((id) => JSON.stringify(id)).join(", ")}, not by the trusted key ${trusted.keyid}`,
  };
}

function invalid(
  format: AuthenticatedProofFile["format"],
  reason: Extract<ProofAuthentication, { status: "invalid" }>["reason"],
  message: string,
): AuthenticatedProofFile {
  return { format, authentication: { status: "invalid", reason, message } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
