import { readFile } from "node:fs/promises";
import { TurngateError } from "@turngate/core";
import { VerificationCommandSchema } from "@turngate/core/schemas";
import {
  deserializeEnvironmentBaseline,
  deserializeSnapshot,
  type EnvironmentBaseline,
  serializeEnvironmentBaseline,
  serializeSnapshot,
  sha256Hex,
  type WorkspaceSnapshot,
  writeFileAtomic,
} from "@turngate/node";
import { z } from "zod";
import type { TurngateConfig } from "./config.js";

/** Schema id of the file `turngate baseline` stores (`<state dir>/baseline.json`). */
export const BASELINE_FILE_SCHEMA = "turngate.baseline.v1";

/** A baseline id: the lowercase hex SHA-256 of the stored file's bytes. */
const BASELINE_ID = /^[0-9a-f]{64}$/;

const CapturedConfigSchema = z
  .object({
    path: z.string().nullable(),
    checks: z.array(VerificationCommandSchema),
    timeout_ms: z.number().int().nonnegative().nullable(),
    ignores: z.array(z.string()),
    shell: z.string().nullable(),
    allow_env: z.array(z.string()),
  })
  .strict();

const BaselineFileSchema = z
  .object({
    schema: z.literal(BASELINE_FILE_SCHEMA),
    turngate_version: z.string(),
    config: CapturedConfigSchema,
    environment: z.unknown(),
    snapshot: z.unknown(),
  })
  .strict();

/** What `readBaseline` returns. */
export interface StoredBaseline {
  /** The baseline id (SHA-256 of the file's bytes). */
  id: string;
  snapshot: WorkspaceSnapshot;
  /** The effective configuration captured when the baseline was taken. */
  config: TurngateConfig;
  /** Issue 10: the checks' shell and PATH, user-level and review file fingerprints. */
  environment: EnvironmentBaseline;
}

/** The baseline id of stored bytes: lowercase hex SHA-256 (64 characters). */
export function baselineIdOf(bytes: string | Uint8Array): string {
  return sha256Hex(bytes);
}

/**
 * Store a baseline atomically at `path` (`turngate.baseline.v1`): the serialised workspace
 * snapshot plus the effective configuration — checks (timeouts applied), the default
 * `timeout_ms`, `ignores` and where the configuration was read — so `turngate verify` uses
 * the configuration of the turn's start, not one the agent may have edited since.
 * It also stores the environment baseline (issue 10: the checks' absolute shell and
 * PATH, user-level file fingerprints, the cargo target and configuration file
 * fingerprints), so verify neither re-resolves the shell nor trusts files edited since.
 * Input: file path, snapshot, loaded configuration, turngate version, environment.
 * Output: the baseline id (SHA-256 of the bytes written, 64 lowercase hex characters).
 * Errors: the `fs` error of the write.
 */
export async function writeBaseline(
  path: string,
  snapshot: WorkspaceSnapshot,
  config: TurngateConfig,
  version: string,
  environment: EnvironmentBaseline,
): Promise<string> {
  const file = {
    schema: BASELINE_FILE_SCHEMA,
    turngate_version: version,
    config: {
      path: config.path ?? null,
      checks: config.checks,
      timeout_ms: config.timeoutMs ?? null,
      ignores: config.ignores,
      shell: config.shell ?? null,
      allow_env: config.allowEnv ?? [],
    },
    environment: serializeEnvironmentBaseline(environment),
    snapshot: serializeSnapshot(snapshot),
  };
  const text = `${JSON.stringify(file, null, 2)}\n`;
  await writeFileAtomic(path, text);
  return baselineIdOf(text);
}

/** Options of `readBaseline`. */
export interface ReadBaselineOptions {
  /** The id `turngate baseline` printed (`--baseline-id`); the file's id must equal it. */
  expectedId?: string;
  /** How messages name the file (default: `path`). */
  label?: string;
}

/**
 * Read the baseline stored at `path`. With `expectedId`, the file's id must equal it
 * (the baseline was not changed or replaced since `turngate baseline` printed the id).
 *
 * Errors (`TurngateError`, each naming the file):
 * - `invalid_input` (path `--baseline-id`): `expectedId` is not 64 lowercase hex characters;
 * - `baseline_missing`: no file (run `turngate baseline` when the turn starts);
 * - `baseline_mismatch`: its id differs from `expectedId`;
 * - `baseline_invalid`: not JSON or not a `turngate.baseline.v1` (e.g. an older format);
 * - `WorkspaceObserverError` `invalid_snapshot` for a malformed snapshot.
 */
export async function readBaseline(
  path: string,
  options: ReadBaselineOptions = {},
): Promise<StoredBaseline> {
  const { expectedId } = options;
  const label = options.label ?? path;
  if (expectedId !== undefined && !BASELINE_ID.test(expectedId)) {
    throw new TurngateBaselineIdError(expectedId);
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    throw new TurngateError(
      "baseline_missing",
      `no baseline at ${label}: run \`turngate baseline\` when the turn starts`,
    );
  }
  const id = baselineIdOf(bytes);
  if (expectedId !== undefined && id !== expectedId) {
    throw new TurngateError(
      "baseline_mismatch",
      `the baseline at ${label} is not the one --baseline-id names: its id is ${id}, --baseline-id is ${expectedId}; it was changed or replaced after \`turngate baseline\``,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw invalid(label, `not JSON: ${(error as Error).message}`);
  }
  const parsed = BaselineFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : "";
    throw invalid(
      label,
      `not a ${BASELINE_FILE_SCHEMA} file${where}: ${issue?.message ?? "invalid"}; run \`turngate baseline\` again`,
    );
  }
  const captured = parsed.data.config;
  const config: TurngateConfig = { checks: captured.checks, ignores: captured.ignores };
  if (captured.path !== null) config.path = captured.path;
  if (captured.timeout_ms !== null) config.timeoutMs = captured.timeout_ms;
  if (captured.shell !== null) config.shell = captured.shell;
  if (captured.allow_env.length > 0) config.allowEnv = captured.allow_env;
  let environment: EnvironmentBaseline;
  try {
    environment = deserializeEnvironmentBaseline(parsed.data.environment);
  } catch (error) {
    throw invalid(label, `${(error as Error).message}; run \`turngate baseline\` again`);
  }
  return { id, snapshot: deserializeSnapshot(parsed.data.snapshot), config, environment };
}

/**
 * The parts of the effective configuration that differ between `a` and `b` (`checks`,
 * `timeout_ms`, `ignores`, `shell`, `allow_env`, in that order); `[]` when they are the same.
 */
export function configDifferences(a: TurngateConfig, b: TurngateConfig): string[] {
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  const differences: string[] = [];
  if (!same(a.checks, b.checks)) differences.push("checks");
  if (!same(a.timeoutMs ?? null, b.timeoutMs ?? null)) differences.push("timeout_ms");
  if (!same(a.ignores, b.ignores)) differences.push("ignores");
  if (!same(a.shell ?? null, b.shell ?? null)) differences.push("shell");
  if (!same(a.allowEnv ?? [], b.allowEnv ?? [])) differences.push("allow_env");
  return differences;
}

function invalid(path: string, message: string): TurngateError {
  return new TurngateError("baseline_invalid", `invalid baseline ${path}: ${message}`);
}

/** `--baseline-id` is not a baseline id (64 lowercase hex characters). */
class TurngateBaselineIdError extends TurngateError {
  readonly path = "--baseline-id";
  constructor(value: string) {
    super(
      "invalid_input",
      `invalid --baseline-id ${JSON.stringify(value)}: expected the 64 lowercase hex characters \`turngate baseline\` printed`,
    );
    this.name = "TurngateBaselineIdError";
  }
}
