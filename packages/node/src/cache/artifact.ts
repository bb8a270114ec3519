/**
 * What the result cache stores (issue 20 item 2): one check's result as a DSSE envelope
 * (`signDsse`, Ed25519 over the DSSE pre-authentication encoding) signed with the turn
 * signing key. Opening one accepts it only when its fields are valid, its key is the key
 * asked for, and a signature verifies against a trusted public key; anything else is a
 * typed rejection, never a hit.
 */
import type { VerificationCheck } from "@turngate/core";
import { parseVerificationCheck, TurngateValidationError } from "@turngate/core";
import { dsseSignatureValid, openDsse, signDsse } from "../proofs/dsse.js";
import type { SigningKey } from "../proofs/signing-key.js";
import type { TrustedCacheKey } from "./host-settings.js";

/** Schema tag of a cached check result payload. */
export const CACHED_CHECK_SCHEMA = "turngate.cached_check.v1";
/** DSSE payload type of a cached check result (bound into the signature). */
export const CACHED_CHECK_PAYLOAD_TYPE = "application/vnd.turngate.cached-check+json";
/** Most characters of the log excerpt stored (its tail, where failures usually are). */
export const LOG_EXCERPT_MAX_CHARS = 4096;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * `value` as a {@link CachedCheck} (its `check` through core's `parseVerificationCheck`),
 * or a thrown `TurngateValidationError` naming the first bad field.
 */
function parseCachedCheck(value: unknown): CachedCheck {
  const fail = (path: string, message: string): never => {
    throw new TurngateValidationError("cached check", [{ path, message }]);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail("", "must be an object");
  const v = value as Record<string, unknown>;
  const allowed = [
    "schema",
    "key",
    "check",
    "exit_code",
    "duration_ms",
    "log",
    "created_at",
    "turngate",
  ];
  for (const name of Object.keys(v)) if (!allowed.includes(name)) fail(name, "unknown field");
  if (v.schema !== CACHED_CHECK_SCHEMA) fail("schema", `must be ${CACHED_CHECK_SCHEMA}`);
  if (typeof v.key !== "string" || !HEX64.test(v.key))
    fail("key", "must be 64 lowercase hex characters");
  if (v.exit_code !== null && !Number.isInteger(v.exit_code))
    fail("exit_code", "must be an integer or null");
  if (typeof v.duration_ms !== "number" || !(v.duration_ms >= 0))
    fail("duration_ms", "must be a number ≥ 0");
  if (typeof v.created_at !== "string") fail("created_at", "must be a string");
  if (typeof v.turngate !== "string") fail("turngate", "must be a string");
  const log = v.log as Record<string, unknown> | null;
  if (typeof log !== "object" || log === null) return fail("log", "must be an object");
  if (typeof log.sha256 !== "string" || !/^(?:[0-9a-f]{64})?$/.test(log.sha256))
    fail("log.sha256", "must be a SHA-256 or empty");
  if (!Number.isInteger(log.bytes) || (log.bytes as number) < 0)
    fail("log.bytes", "must be an integer ≥ 0");
  if (typeof log.excerpt !== "string" || log.excerpt.length > LOG_EXCERPT_MAX_CHARS)
    fail("log.excerpt", `must be a string of at most ${LOG_EXCERPT_MAX_CHARS} characters`);
  if (typeof log.excerpt_truncated !== "boolean")
    fail("log.excerpt_truncated", "must be a boolean");
  return {
    schema: CACHED_CHECK_SCHEMA,
    key: v.key as string,
    check: parseVerificationCheck(v.check, "check"),
    exit_code: v.exit_code as number | null,
    duration_ms: v.duration_ms as number,
    log: {
      sha256: log.sha256 as string,
      bytes: log.bytes as number,
      excerpt: log.excerpt as string,
      excerpt_truncated: log.excerpt_truncated as boolean,
    },
    created_at: v.created_at as string,
    turngate: v.turngate as string,
  };
}

/** The payload of a cached check result. `check.tests` is the tests summary when parsed. */
export interface CachedCheck {
  schema: typeof CACHED_CHECK_SCHEMA;
  /** The cache key it was stored under (`cacheKey`): a copy under another key is refused. */
  key: string;
  /** The check as the gate judged it (status, failure_class, tests, failing_tests, …). */
  check: VerificationCheck;
  /** The shell's exit code (null when it never ran). */
  exit_code: number | null;
  /** How long the check ran on the machine that stored it, ms. */
  duration_ms: number;
  /** The full log's SHA-256 and size, and its last {@link LOG_EXCERPT_MAX_CHARS} characters. */
  log: { sha256: string; bytes: number; excerpt: string; excerpt_truncated: boolean };
  /** When it was stored (ISO 8601). */
  created_at: string;
  /** The turngate version that judged it. */
  turngate: string;
}

/** The tail of `output` capped to {@link LOG_EXCERPT_MAX_CHARS} characters, and whether it was cut. */
export function logExcerpt(output: string): { excerpt: string; excerpt_truncated: boolean } {
  if (output.length <= LOG_EXCERPT_MAX_CHARS) return { excerpt: output, excerpt_truncated: false };
  return { excerpt: output.slice(output.length - LOG_EXCERPT_MAX_CHARS), excerpt_truncated: true };
}

/**
 * Sign a cached check result. Input: the payload and the turn signing key.
 * Output: the envelope's JSON bytes (UTF-8), what is uploaded and stored.
 * Errors: `TurngateValidationError` when the payload is malformed (path names the field).
 */
export function signCachedCheck(payload: CachedCheck, key: SigningKey): Buffer {
  parseCachedCheck(payload);
  const envelope = signDsse(
    CACHED_CHECK_PAYLOAD_TYPE,
    Buffer.from(JSON.stringify(payload), "utf8"),
    key.privateKey,
    key.keyid,
  );
  return Buffer.from(JSON.stringify(envelope), "utf8");
}

/** Why a stored artifact was refused. */
export type CachedCheckRejection =
  | "malformed"
  | "wrong_payload_type"
  | "unknown_key"
  | "bad_signature"
  | "key_mismatch";

/** Result of {@link openCachedCheck}. */
export type OpenedCachedCheck =
  | { accepted: true; payload: CachedCheck; keyid: string; source: TrustedCacheKey["source"] }
  | { accepted: false; reason: CachedCheckRejection; detail: string };

/**
 * Open a stored artifact (issue 20 item 2): accepted only when (1) it is a DSSE envelope of
 * payload type {@link CACHED_CHECK_PAYLOAD_TYPE}, (2) one of its signatures verifies, over
 * the exact payload bytes, against a key in `trusted` (the keyid must name it; a relabelled
 * keyid finds no key), (3) the payload is a valid {@link CachedCheck}, and (4) its `key` is
 * `expectedKey`. The signature is checked before the payload is parsed.
 * Input: the bytes, the key asked for, the trusted keys. Output: {@link OpenedCachedCheck}.
 * Never throws.
 */
export function openCachedCheck(
  bytes: Uint8Array,
  expectedKey: string,
  trusted: readonly TrustedCacheKey[],
): OpenedCachedCheck {
  let opened: ReturnType<typeof openDsse>;
  try {
    opened = openDsse(JSON.parse(Buffer.from(bytes).toString("utf8")));
  } catch (error) {
    return {
      accepted: false,
      reason: "malformed",
      detail: `not a DSSE envelope (${(error as Error).message})`,
    };
  }
  if (opened.envelope.payloadType !== CACHED_CHECK_PAYLOAD_TYPE) {
    return {
      accepted: false,
      reason: "wrong_payload_type",
      detail: `payload type ${JSON.stringify(opened.envelope.payloadType)}`,
    };
  }
  let signer: TrustedCacheKey | undefined;
  let known = false;
  for (const signature of opened.signatures) {
    const key = trusted.find((k) => k.keyid === signature.keyid);
    if (key === undefined) continue;
    known = true;
    if (
      dsseSignatureValid(CACHED_CHECK_PAYLOAD_TYPE, opened.payload, signature.sig, key.publicKey)
    ) {
      signer = key;
      break;
    }
  }
  if (signer === undefined) {
    const ids = opened.signatures.map((s) => s.keyid.slice(0, 12)).join(", ");
    return known
      ? {
          accepted: false,
          reason: "bad_signature",
          detail: `the signature does not verify (keyid ${ids})`,
        }
      : {
          accepted: false,
          reason: "unknown_key",
          detail: `signed by an untrusted key (keyid ${ids || "none"})`,
        };
  }
  let payload: CachedCheck;
  try {
    payload = parseCachedCheck(JSON.parse(opened.payload.toString("utf8")));
  } catch (error) {
    return {
      accepted: false,
      reason: "malformed",
      detail: `payload is not a cached check (${(error as Error).message.split("\n")[0]})`,
    };
  }
  if (payload.key !== expectedKey) {
    return {
      accepted: false,
      reason: "key_mismatch",
      detail: `stored for key ${payload.key.slice(0, 12)}…, asked for ${expectedKey.slice(0, 12)}…`,
    };
  }
  return { accepted: true, payload, keyid: signer.keyid, source: signer.source };
}
