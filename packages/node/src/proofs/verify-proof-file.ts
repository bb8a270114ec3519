import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { parseTurnProof } from "@turngate/core";
import { type ProofVerification, verifyTurnProof } from "../session/proof-verify.js";
import {
  type AuthenticatedProofFile,
  authenticateProofFile,
  type ProofAuthentication,
} from "./authenticate.js";
import { checkEvidenceLogs, type EvidenceLogsResult } from "./evidence-logs.js";
import type { TrustedKey } from "./signing-key.js";
import {
  type CommitMatch,
  proofMatchesCommit,
  type SourceTree,
  sourceTreeId,
} from "./source-tree.js";

/** Options of {@link verifyProofFile}. */
export interface VerifyProofFileOptions {
  /** Workspace root the proof's paths are relative to. */
  root: string;
  /** The key the signature must verify with; `undefined`: none is known here. */
  trusted: TrustedKey | undefined;
  /** Accept an unsigned or foreign-signed proof (still checked against the disk). */
  allowUnsigned?: boolean;
  /** A revision whose tree must equal the proof's final tree (`proofMatchesCommit`). */
  commit?: string;
  env?: NodeJS.ProcessEnv;
}

/** Result of {@link verifyProofFile}. */
export interface ProofFileVerification {
  /** True when the proof is authenticated (or allowed unsigned) and every check holds. */
  ok: boolean;
  format: AuthenticatedProofFile["format"];
  authentication: ProofAuthentication;
  /** The disk re-check (digest, rows, terminal); absent when authentication stopped it. */
  verification?: ProofVerification;
  /** The evidence-log re-hash; absent when authentication stopped it. */
  evidence?: EvidenceLogsResult;
  /** With `commit`: whether the proof's final tree is that commit's tree. */
  commit?: CommitMatch;
  /**
   * The current source tree of `root` (`sourceTreeId`), computed when the proof records a
   * final tree; a different tree id is a problem.
   */
  sourceTree?: SourceTree;
  /** Everything that fails, worded for a person, in the order checked. */
  problems: string[];
  /** What could not be checked and is not a failure (`logs_unavailable: …`). */
  notes: string[];
}

/**
 * `turngate proof verify` (issue 10): authenticate the file (`authenticateProofFile`), then
 * re-check the proof against the disk (`verifyTurnProof`: digest recomputed from the rows,
 * every workspace row re-hashed, terminal backed), re-hash the evidence logs it cites
 * (`checkEvidenceLogs`) and, with `commit`, match its final tree to that commit.
 * Against a copy of the proof in another repository (security report item 4): when the
 * proof's `workspace.root` is not the root checked, a note names both; when the proof
 * records a final tree and `root` is in a git work tree, the current source tree
 * (`sourceTreeId`) must equal it, else the problem "source tree: the workspace's source
 * tree <id> is not the proof's final tree <id>: it changed since, or this is another
 * workspace" (no problem when the tree cannot be computed, e.g. outside git).
 * An `invalid` file, or an `unauthenticated` one without `allowUnsigned`, stops after the
 * authentication with `ok: false`.
 * Errors: `TurngateValidationError` when the (authenticated or allowed) payload is not a
 * valid `turn_proof.v1`, as `verifyTurnProof`.
 */
export async function verifyProofFile(
  text: string,
  options: VerifyProofFileOptions,
): Promise<ProofFileVerification> {
  const file = authenticateProofFile(text, options.trusted);
  const { authentication } = file;
  const result: ProofFileVerification = {
    ok: false,
    format: file.format,
    authentication,
    problems: [],
    notes: [],
  };
  if (authentication.status === "invalid") {
    result.problems.push(`${authentication.reason}: ${authentication.message}`);
    return result;
  }
  if (authentication.status === "unauthenticated") {
    if (!options.allowUnsigned) {
      result.problems.push(
        `unauthenticated (${authentication.reason}): ${authentication.message}; pass --allow-unsigned to check it anyway`,
      );
      return result;
    }
    result.notes.push(
      `unauthenticated (${authentication.reason}), allowed by --allow-unsigned: ${authentication.message}`,
    );
  }
  const proof = parseTurnProof(file.proof);
  const verification = await verifyTurnProof(proof, options.root);
  result.verification = verification;
  result.problems.push(...verification.problems);
  const evidence = await checkEvidenceLogs(proof);
  result.evidence = evidence;
  for (const log of evidence.logs) if (log.problem) result.problems.push(log.problem);
  result.notes.push(...evidence.notes);
  const recordedRoot = proof.workspace?.root;
  if (recordedRoot !== undefined) {
    const asGiven = resolve(options.root);
    const here = await realpath(asGiven).catch(() => asGiven);
    if (recordedRoot !== here && recordedRoot !== asGiven) {
      result.notes.push(
        `workspace root: the proof was made in ${recordedRoot}, it is checked in ${here}`,
      );
    }
  }
  const finalTree = proof.workspace?.final_tree ?? null;
  if (finalTree !== null) {
    const current = await sourceTreeId(options.root, options.env);
    result.sourceTree = current;
    if (current.tree !== null && current.tree !== finalTree) {
      result.problems.push(
        `source tree: the workspace's source tree ${current.tree} is not the proof's final tree ${finalTree}: it changed since, or this is another workspace`,
      );
    }
  }
  if (options.commit !== undefined) {
    result.commit = await proofMatchesCommit(proof, options.root, options.commit, options.env);
    if (!result.commit.matches) result.problems.push(`commit: ${result.commit.reason}`);
  }
  result.ok = result.problems.length === 0;
  return result;
}
