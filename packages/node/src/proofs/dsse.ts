import { type KeyObject, sign, verify } from "node:crypto";
import type { DsseEnvelope } from "@turngate/core";
import { parseDsseEnvelope, TurngateValidationError } from "@turngate/core";

/**
 * DSSE pre-authentication encoding (DSSE v1.0 "Protocol"): the bytes a signature covers,
 * `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, where LEN is the byte length in
 * ASCII decimal and SP one space. Binding the payload type into the signed bytes means a
 * signature over a turn proof cannot be replayed as another type.
 *
 * Input: the payload type (UTF-8) and the payload bytes. Output: the PAE bytes. Never throws.
 */
export function preAuthEncoding(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, "utf8"),
    type,
    Buffer.from(` ${payload.length} `, "utf8"),
    payload,
  ]);
}

/**
 * Sign `payload` as a DSSE envelope with one Ed25519 signature over its PAE.
 *
 * Input: the payload type, the payload bytes, the private key (`ed25519` KeyObject) and its
 * keyid (turngate: the SHA-256 of the public key, see `signing-key.ts`).
 * Output: `{payload: base64, payloadType, signatures: [{keyid, sig: base64}]}`.
 * Errors: the `node:crypto` error when the key is not an Ed25519 private key.
 */
export function signDsse(
  payloadType: string,
  payload: Uint8Array,
  privateKey: KeyObject,
  keyid: string,
): DsseEnvelope {
  const sig = sign(null, preAuthEncoding(payloadType, payload), privateKey);
  return {
    payload: Buffer.from(payload).toString("base64"),
    payloadType,
    signatures: [{ keyid, sig: sig.toString("base64") }],
  };
}

/** Why an envelope could not be opened (`openDsse`): a typed, worded failure. */
export class DsseFormatError extends TurngateValidationError {
  constructor(path: string, message: string) {
    super("DSSE envelope", [{ path, message }]);
    this.name = "DsseFormatError";
  }
}

/** An envelope whose fields are valid and whose payload bytes are decoded. */
export interface OpenedDsse {
  envelope: DsseEnvelope;
  payload: Buffer;
  /** Each signature's bytes, in the envelope's order. */
  signatures: { keyid: string; sig: Buffer }[];
}

/**
 * Validate the JSON form of a DSSE envelope and decode its base64 fields (standard or
 * URL-safe alphabet, padding optional, as DSSE allows on input; anything else, e.g. a cut
 * or altered character set, is refused).
 *
 * Input: the parsed JSON value. Output: {@link OpenedDsse}.
 * Errors: `TurngateValidationError` (field path `payload`, `payloadType`, `signatures`,
 * `signatures.N.sig`, …) for a missing or malformed field.
 */
export function openDsse(value: unknown): OpenedDsse {
  const envelope = parseDsseEnvelope(value);
  const payload = decodeBase64(envelope.payload, "payload");
  const signatures = envelope.signatures.map((signature, index) => ({
    keyid: signature.keyid,
    sig: decodeBase64(signature.sig, `signatures.${index}.sig`),
  }));
  return { envelope, payload, signatures };
}

/**
 * Whether `sig` is a valid Ed25519 signature by `publicKey` over PAE(payloadType, payload).
 * Never throws (a wrong-length signature is `false`).
 */
export function dsseSignatureValid(
  payloadType: string,
  payload: Uint8Array,
  sig: Uint8Array,
  publicKey: KeyObject,
): boolean {
  try {
    return verify(null, preAuthEncoding(payloadType, payload), publicKey, sig);
  } catch {
    return false;
  }
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function decodeBase64(text: string, path: string): Buffer {
  const unpadded = text.replace(/=+$/, "");
  if (!BASE64.test(text) || unpadded.length % 4 === 1) {
    throw new DsseFormatError(path, "not base64 (the envelope was cut or altered)");
  }
  const bytes = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  const again = bytes.toString("base64").replace(/=+$/, "");
  if (again !== unpadded.replace(/-/g, "+").replace(/_/g, "/")) {
    throw new DsseFormatError(path, "not canonical base64 (the envelope was cut or altered)");
  }
  return bytes;
}
