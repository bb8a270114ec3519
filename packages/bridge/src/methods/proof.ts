/**
 * Signed turn proofs on the wire (issue 10 "Proofs that cannot be forged"), server only (keys
 * and files are read through `@turngate/node`): `session.signed_proof` signs a session's
 * proof as a DSSE envelope, `proof.verify` authenticates and re-checks a proof file as
 * `turngate proof verify` does.
 */
import {
  PROOF_FORMATS,
  type ProofFileVerification,
  resolveSigningKey,
  signTurnProof,
  trustedPublicKey,
  verifyProofFile,
} from "@turngate/node";
import * as z from "zod";
import { defineMethod } from "../method.js";
import type { SessionContext } from "./session.js";

const Format = z
  .enum(PROOF_FORMATS as [string, ...string[]])
  .describe("dsse: a DSSE envelope over the turn proof; in-toto: over an in-toto Statement v1");

const AuthenticationSchema = z.strictObject({
  status: z.enum(["authenticated", "unauthenticated", "invalid"]),
  reason: z
    .string()
    .nullable()
    .describe(
      "null when authenticated; unsigned, foreign_key, no_trusted_key (unauthenticated); malformed_envelope, bad_signature, keyid_mismatch, unsupported_payload_type, malformed_payload, subject_mismatch (invalid)",
    ),
  keyid: z.string().nullable().describe("the trusted key's id when authenticated"),
  keyids: z.array(z.string()).nullable().describe("the envelope's keyids when unauthenticated"),
  message: z.string(),
});

const RowSchema = z.strictObject({
  tool: z.string(),
  path: z.string(),
  recorded: z.string(),
  actual: z.string().optional(),
  found: z.enum(["directory", "special", "unreadable"]).optional(),
  status: z.enum(["match", "mismatch", "not_checkable"]),
});

const EvidenceLogSchema = z.strictObject({
  uri: z.string(),
  path: z.string().optional(),
  recorded: z.string(),
  actual: z.string().optional(),
  status: z.enum(["match", "mismatch", "missing", "unavailable"]),
  problem: z.string().optional(),
});

const CommitSchema = z.strictObject({
  matches: z.boolean(),
  commit_tree: z.string().nullable(),
  final_tree: z.string().nullable(),
  reason: z.string().nullable(),
});

const ProofVerificationSchema = z.strictObject({
  ok: z.boolean(),
  format: z.enum(["plain", "dsse", "in-toto", "unknown"]),
  authentication: AuthenticationSchema,
  recomputed_digest: z.string().nullable(),
  rows: z.array(RowSchema),
  evidence_logs: z.array(EvidenceLogSchema),
  commit: CommitSchema.nullable(),
  problems: z.array(z.string()),
  notes: z.array(z.string()),
});

/** The wire form (snake_case) of a proof verification, as `turngate proof verify --json`. */
export function wireProofVerification(result: ProofFileVerification) {
  const auth = result.authentication;
  return {
    ok: result.ok,
    format: result.format,
    authentication: {
      status: auth.status,
      reason: auth.status === "authenticated" ? null : auth.reason,
      keyid: auth.status === "authenticated" ? auth.keyid : null,
      keyids: auth.status === "unauthenticated" ? auth.keyids : null,
      message: auth.message,
    },
    recomputed_digest: result.verification?.recomputedDigest ?? null,
    rows: result.verification?.rows ?? [],
    evidence_logs: result.evidence?.logs ?? [],
    commit: result.commit
      ? {
          matches: result.commit.matches,
          commit_tree: result.commit.commitTree,
          final_tree: result.commit.finalTree,
          reason: result.commit.reason ?? null,
        }
      : null,
    problems: result.problems,
    notes: result.notes,
  };
}

export const proofMethods = {
  "session.signed_proof": defineMethod({
    description:
      "The session's turn proof (as session.proof) signed as a DSSE envelope (returned as JSON text) with Ed25519: payloadType application/vnd.turngate.turn-proof+json (format dsse) or application/vnd.in-toto+json over an in-toto Statement v1 (format in-toto). The key is key_file, else the bridge host's TURNGATE_SIGNING_KEY (a PEM or a path), else signing-key.pem in the host user's state folder ($XDG_STATE_HOME/turngate or ~/.local/state/turngate), generated on first use; keyid = SHA-256 of the DER public key. Errors: not_decided, turn_not_allowed (as session.proof); signing_key_invalid, signing_key_in_workspace (path key_file).",
    params: z.strictObject({
      session_id: z.string().describe('id returned by session.create, e.g. "session-1"'),
      format: Format.default("dsse"),
      key_file: z
        .string()
        .min(1)
        .optional()
        .describe("Ed25519 private key (PEM, PKCS#8), outside the workspace"),
    }),
    result: z.strictObject({
      envelope: z
        .string()
        .describe(
          "the DSSE envelope as JSON text ({payload, payloadType, signatures}: DSSE's own camelCase keys), to be written to a file as is",
        ),
      keyid: z.string(),
      format: Format,
    }),
    handler: async (p, ctx: SessionContext) => {
      const session = ctx.sessions.get(p.session_id).session;
      const proof = session.proof();
      const key = resolveSigningKey({
        ...(p.key_file !== undefined ? { keyFile: p.key_file } : {}),
        keyFileLabel: "key_file",
        root: session.root,
      });
      const format = p.format as (typeof PROOF_FORMATS)[number];
      const envelope = JSON.stringify(signTurnProof(proof, key, format));
      return { envelope, keyid: key.keyid, format };
    },
  }),
  "proof.verify": defineMethod({
    description:
      "Authenticate and re-check a proof file as `turngate proof verify` does: the DSSE signature against the trusted key (public_key_file, else the bridge host's TURNGATE_SIGNING_KEY, else its user's key), then the effect digest recomputed from the rows, every workspace row re-hashed under root, every evidence log re-hashed (absent from this machine: a logs_unavailable note), and with commit the final git tree against that commit's tree. An unsigned or foreign-signed proof is ok: false (unauthenticated) unless allow_unsigned. Errors: invalid_input when the authenticated payload is not a turn_proof.v1; signing_key_invalid (path public_key_file).",
    params: z.strictObject({
      file_text: z
        .string()
        .describe("the proof file's text: a DSSE envelope or a bare turn_proof.v1"),
      root: z.string().min(1).describe("workspace root the proof's paths are relative to"),
      public_key_file: z.string().min(1).optional().describe("the signer's public key (PEM)"),
      allow_unsigned: z.boolean().default(false),
      commit: z
        .string()
        .min(1)
        .optional()
        .describe("a revision whose tree must be the proof's final tree"),
    }),
    result: ProofVerificationSchema,
    handler: async (p) => {
      const trusted = trustedPublicKey(
        p.public_key_file !== undefined
          ? { publicKeyFile: p.public_key_file, publicKeyFileLabel: "public_key_file" }
          : {},
      );
      const result = await verifyProofFile(p.file_text, {
        root: p.root,
        trusted,
        allowUnsigned: p.allow_unsigned,
        ...(p.commit !== undefined ? { commit: p.commit } : {}),
      });
      return wireProofVerification(result);
    },
  }),
};
