import canonicalize from "canonicalize";
import { sha256Hex } from "../ledger/sha256.js";

/** What a cached check failure is keyed by (issue 19 item 3). */
export interface FailureKeyInput {
  /**
   * The git tree id of the source scope as it is now (`sourceTreeId`): the bytes the checks
   * ran on. Never the effect digest alone — a digest is relative to its baseline.
   */
  sourceTree: string;
  /** The turn's effect digest: binds the ignored and out-of-scope changes the tree leaves out. */
  effectDigest: string;
  /** The check identity: the verification commands exactly as they run (id, command, cwd, timeout…). */
  checks: unknown;
  /** Toolchain facts: the checks' shell and PATH, user-level file fingerprints, turngate's version. */
  toolchain: unknown;
}

/** Schema tag hashed into every key, so a change of the key's shape never reuses old entries. */
export const FAILURE_KEY_SCHEMA = "turngate.failure_key.v1";

/**
 * The key of a cached check failure: lowercase hex SHA-256 of the RFC 8785 canonical JSON of
 * `{schema, source_tree, effect_digest, checks, toolchain}`. Only failures are ever stored
 * under it (a cached pass would let a file forged in the state folder verify a turn).
 * Input: see `FailureKeyInput` (`checks` and `toolchain` must be JSON values).
 * Output: 64 hex characters. Errors: `TypeError` when `sourceTree` is empty or a value
 * cannot be written as JSON.
 */
export function failureCacheKey(input: FailureKeyInput): string {
  if (input.sourceTree === "") throw new TypeError("sourceTree must be a git tree id");
  const text = canonicalize({
    schema: FAILURE_KEY_SCHEMA,
    source_tree: input.sourceTree,
    effect_digest: input.effectDigest,
    checks: input.checks,
    toolchain: input.toolchain,
  });
  if (text === undefined) throw new TypeError("checks and toolchain must be JSON values");
  return sha256Hex(text);
}
