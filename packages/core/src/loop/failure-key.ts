import canonicalize from "canonicalize";
import * as z from "zod";
import { TurngateValidationError } from "../errors.js";
import { sha256Hex } from "../ledger/sha256.js";
import { parseWith } from "../schemas/parse.js";

const FailureKeyInputSchema = z.object({
  sourceTree: z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, {
    message: "must be a git tree id (40 or 64 lowercase hex characters)",
  }),
  effectDigest: z.string(),
  checks: z.unknown(),
  toolchain: z.unknown(),
});

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
 * Output: 64 hex characters. Errors: `TurngateValidationError` (path `sourceTree`, or
 * `checks` / `toolchain` when a value cannot be written as JSON).
 */
export function failureCacheKey(raw: FailureKeyInput): string {
  const input = parseWith(FailureKeyInputSchema, raw, "failure key input");
  let text: string | undefined;
  try {
    text = canonicalize({
      schema: FAILURE_KEY_SCHEMA,
      source_tree: input.sourceTree,
      effect_digest: input.effectDigest,
      checks: input.checks ?? null,
      toolchain: input.toolchain ?? null,
    });
  } catch {
    // A value canonicalize cannot write (a cycle, a BigInt, nesting deeper than the stack).
    text = undefined;
  }
  if (text === undefined) {
    throw new TurngateValidationError("failure key input", [
      { path: "checks", message: "checks and toolchain must be JSON values" },
    ]);
  }
  return sha256Hex(text);
}
