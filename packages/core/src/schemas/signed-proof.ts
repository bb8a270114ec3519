import * as z from "zod";
import { TurnProofSchema } from "./proof.js";

/** DSSE payloadType of a signed `turn_proof.v1` (the payload is the proof's JSON). */
export const TURN_PROOF_PAYLOAD_TYPE = "application/vnd.turngate.turn-proof+json";
/** DSSE payloadType of an in-toto Statement (in-toto attestation framework, Envelope). */
export const IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json";
/** `_type` of an in-toto Statement v1. */
export const IN_TOTO_STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
/** in-toto `predicateType` of turngate's turn proof (an identifier, not a fetched URL). */
export const TURN_PROOF_PREDICATE_TYPE = "https://github.com/turngate/turngate/turn_proof/v1";
/** in-toto subject name under which the effect digest is the `sha256` digest. */
export const TURN_PROOF_SUBJECT_NAME = "turngate:effect";

/**
 * One DSSE signature (DSSE v1.0 envelope): `sig` is the base64 of the signature over
 * PAE(payloadType, payload); `keyid` names the key (turngate: the lowercase hex SHA-256 of
 * the signer's DER SubjectPublicKeyInfo).
 */
export const DsseSignatureSchema = z
  .object({
    keyid: z.string(),
    sig: z.string().min(1),
  })
  .describe("One DSSE signature.");

/**
 * A DSSE v1.0 envelope (JSON form): `payload` is the base64 (standard alphabet, padded) of
 * the signed bytes, `payloadType` their media type, `signatures` one or more signatures.
 */
export const DsseEnvelopeSchema = z
  .object({
    payload: z.string(),
    payloadType: z.string().min(1),
    signatures: z.array(DsseSignatureSchema),
  })
  .describe("DSSE v1.0 envelope.");

/** One in-toto ResourceDescriptor subject with a `sha256` digest. */
export const InTotoSubjectSchema = z
  .object({
    name: z.string(),
    digest: z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/) }).loose(),
  })
  .loose();

/**
 * An in-toto Statement v1 carrying a turn proof: `_type`
 * `https://in-toto.io/Statement/v1`, one subject whose `sha256` digest is the effect
 * digest, `predicateType` {@link TURN_PROOF_PREDICATE_TYPE}, `predicate` the turn proof.
 */
export const TurnProofStatementSchema = z
  .object({
    _type: z.literal(IN_TOTO_STATEMENT_TYPE),
    subject: z.array(InTotoSubjectSchema).min(1),
    predicateType: z.literal(TURN_PROOF_PREDICATE_TYPE),
    predicate: TurnProofSchema,
  })
  .describe("in-toto Statement v1 whose predicate is a turn_proof.v1.");

export type DsseEnvelope = z.output<typeof DsseEnvelopeSchema>;
export type DsseSignature = z.output<typeof DsseSignatureSchema>;
export type TurnProofStatement = z.output<typeof TurnProofStatementSchema>;
