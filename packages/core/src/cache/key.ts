import canonicalize from "canonicalize";
import * as z from "zod";
import { TurngateValidationError } from "../errors.js";
import { sha256Hex } from "../ledger/sha256.js";
import { parseWith } from "../schemas/parse.js";

/** Schema tag hashed into every result-cache key (issue 20): a new shape gets a new tag. */
export const CACHE_KEY_SCHEMA = "turngate.cache_key.v1";

const HEX64 = /^[0-9a-f]{64}$/;
const TREE_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

const CacheKeyCheckSchema = z.strictObject({
  command: z.string().regex(/\S/, { message: "must not be blank" }),
  shell: z.string().regex(/\S/, { message: "must not be blank" }),
  cwd: z.string(),
  env: z.record(z.string(), z.string()),
  expect_exit: z.number().int(),
  results_format: z.string().nullable(),
  timeout_ms: z.number().int().nonnegative().nullable(),
});

const CacheKeyToolchainFactSchema = z.strictObject({
  id: z.string(),
  available: z.boolean(),
  version: z.string().nullable(),
  raw_version: z.string(),
  cache_identity: z.record(z.string(), z.unknown()),
});

const CacheKeyInputSchema = z.strictObject({
  tree: z.string().regex(TREE_ID, {
    message: "must be a git tree id (40 or 64 lowercase hex characters)",
  }),
  lockfiles: z.record(
    z.string(),
    z.string().regex(HEX64, { message: "must be a SHA-256 (64 lowercase hex characters)" }),
  ),
  check: CacheKeyCheckSchema,
  toolchain: z.array(CacheKeyToolchainFactSchema),
  platform: z.strictObject({ os: z.string(), arch: z.string() }),
  outside: z.record(z.string(), z.string()),
  turngate: z.string(),
});

/** The identity of one check as it runs (the part of a cache key that names the check). */
export interface CacheKeyCheck {
  /** The command exactly as the check shell runs it. */
  command: string;
  /** The check shell's identity (`bash`, `sh`, or the configured path's basename), e.g. `bash`. */
  shell: string;
  /** The working directory relative to the repository's top level (`.` for the root). */
  cwd: string;
  /** Values of the variables on the key's env allow-list (name → value; secrets as their digest). */
  env: Record<string, string>;
  /** The expected exit code (A3S §1.5 `expect_exit`). */
  expect_exit: number;
  /** The structured results format (`junit`, `tap`, …), `null` when the check declares none. */
  results_format: string | null;
  /** The check's timeout in ms, `null` when none (a different bound can change the outcome). */
  timeout_ms: number | null;
}

/** One toolchain fact as it joins a key (`toolchainFacts` without its probe timings). */
export interface CacheKeyToolchainFact {
  id: string;
  available: boolean;
  version: string | null;
  raw_version: string;
  cache_identity: Record<string, unknown>;
}

/**
 * What a check result in the result cache is keyed by (issue 20 item 1). Two clones holding
 * the same bytes and running the same check with the same toolchain produce equal inputs.
 */
export interface CacheKeyInput {
  /** The git tree id of the source scope now (`sourceTreeId`, a temporary index). */
  tree: string;
  /** Lockfile digests: repository-relative path → SHA-256 hex of its bytes (present ones only). */
  lockfiles: Record<string, string>;
  /** The check's identity, see {@link CacheKeyCheck}. */
  check: CacheKeyCheck;
  /** Toolchain facts (versions and cache identity), in the configured order. */
  toolchain: CacheKeyToolchainFact[];
  /** `process.platform` / `process.arch` of the machine the check runs on. */
  platform: { os: string; arch: string };
  /**
   * Ledger rows outside the source scope (ignored files, outputs, `.git/`, environment files
   * the turn changed) after `cacheKeyOutsideRows`' exclusions: path → content digest.
   */
  outside: Record<string, string>;
  /** turngate's version: the verdict rules that judged the stored result. */
  turngate: string;
}

/**
 * The canonical text a result-cache key hashes: RFC 8785 JSON (the `canonicalize` package,
 * as every digest here) of `{schema: CACHE_KEY_SCHEMA, tree, lockfiles, check, toolchain,
 * platform, outside, turngate}`. Useful to explain why two machines' keys differ.
 * Input: {@link CacheKeyInput} (unknown fields refused). Output: the JSON text.
 * Errors: `TurngateValidationError` naming the field (`tree`, `lockfiles.<path>`,
 * `check.command`, `toolchain.0.version`, …), or path `toolchain` when a `cache_identity`
 * value cannot be written as JSON.
 */
export function cacheKeyMaterial(raw: CacheKeyInput): string {
  const input = parseWith(CacheKeyInputSchema, raw, "cache key input");
  let text: string | undefined;
  try {
    text = canonicalize({ schema: CACHE_KEY_SCHEMA, ...input });
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    throw new TurngateValidationError("cache key input", [
      { path: "toolchain", message: "cache_identity values must be JSON values" },
    ]);
  }
  return text;
}

/**
 * The result-cache key of one check (issue 20 item 1, docs/scale-out.md "Many machines"): lowercase
 * hex SHA-256 of `cacheKeyMaterial(input)`. Any byte of the source tree, a lockfile, an
 * out-of-scope row, the command, shell, cwd, env allow-list value, expected exit, results
 * format, timeout, toolchain fact, os, arch or turngate version gives another key.
 * Used as the Turborepo remote-cache artifact hash (`/v8/artifacts/:hash`).
 * Input: {@link CacheKeyInput}. Output: 64 hex characters.
 * Errors: as {@link cacheKeyMaterial}.
 */
export function cacheKey(input: CacheKeyInput): string {
  return sha256Hex(cacheKeyMaterial(input));
}
