// Signed turn proofs (issue 10 "Proofs that cannot be forged"): DSSE envelopes, the
// in-toto form, signing keys, evidence logs and git source trees.
export {
  type AuthenticatedProofFile,
  authenticateProofFile,
  type ProofAuthentication,
  type ProofFileFormat,
} from "./authenticate.js";
export {
  DsseFormatError,
  dsseSignatureValid,
  openDsse,
  preAuthEncoding,
  signDsse,
} from "./dsse.js";
export {
  checkEvidenceLogs,
  type EvidenceLogCheck,
  type EvidenceLogsResult,
} from "./evidence-logs.js";
export {
  PROOF_FORMATS,
  type ProofFormat,
  signTurnProof,
  turnProofStatement,
} from "./sign-proof.js";
export {
  keyIdOf,
  PUBLIC_KEY_FILE,
  publicKeyPem,
  type ResolveSigningKeyOptions,
  resolveSigningKey,
  SIGNING_KEY_ENV,
  SIGNING_KEY_FILE,
  type SigningKey,
  type TrustedKey,
  trustedPublicKey,
  userStateDir,
} from "./signing-key.js";
export {
  type CommitMatch,
  proofMatchesCommit,
  type SourceTree,
  sourceTreeId,
} from "./source-tree.js";
export { type TreeCheckOptions, treeSnapshotMismatch } from "./tree-check.js";
export { type TurnTree, type TurnTreeInput, turnSourceTree } from "./turn-tree.js";
export {
  type ProofFileVerification,
  type VerifyProofFileOptions,
  verifyProofFile,
} from "./verify-proof-file.js";
