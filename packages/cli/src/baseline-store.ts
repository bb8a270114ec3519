import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { TurngateError } from "@turngate/core";
import { VerificationCommandSchema } from "@turngate/core/schemas";
import {
  deserializeEnvironmentBaseline,
  type EnvironmentBaseline,
  loadSnapshot,
  pruneSnapshots,
  type SourceTree,
  type StoredSnapshot,
  serializeEnvironmentBaseline,
  sha256Hex,
  snapshotStoreDir,
  storeSnapshot,
  WorkspaceObserverError,
  type WorkspaceSnapshot,
  writeFileAtomic,
} from "@turngate/node";
import * as z from "zod";
import {
  CacheConfigSchema,
  cacheConfigFromWire,
  cacheConfigToWire,
  type TurngateConfig,
} from "./config.js";
import {
  type ConfigSource,
  ConfigSourceSchema,
  configSourceFromWire,
  configSourceToWire,
} from "./config-source.js";
import type { TurnCarry } from "./turn-chain.js";

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
    outputs: z.array(z.string()).optional(),
    default_outputs: z.boolean().optional(),
    /** Absent in baselines written before issue 10: no rewrite paths. */
    rewrite_paths: z.array(z.string()).optional(),
    shell: z.string().nullable(),
    allow_env: z.array(z.string()),
    /** Issue 19 hook loop control; absent in older baselines: the defaults. */
    max_attempts: z.number().int().min(1).optional(),
    max_infrastructure_attempts: z.number().int().min(1).optional(),
    /** Issue 15; absent in older baselines: detected adapters, no extra globals, off. */
    affected_adapters: z.array(z.record(z.string(), z.unknown())).optional(),
    affected_global_files: z.array(z.string()).optional(),
    checks_from_affected: z.boolean().optional(),
    check_targets: z.record(z.string(), z.array(z.string())).optional(),
    /** Issue 20; absent: no result cache. */
    cache: CacheConfigSchema.optional(),
    /**
     * Issue 31 (docs/design.md §3b): the settings that weaken or require the sandbox, captured
     * at the turn's start like the checks; absent in older baselines: auto, no network, the
     * preset's setup.
     */
    isolation: z.enum(["clean-room", "in-place"]).optional(),
    network: z.boolean().optional(),
    setup: z.union([z.string(), z.literal(false)]).optional(),
  })
  .strict();

const BaselineFileSchema = z
  .object({
    schema: z.literal(BASELINE_FILE_SCHEMA),
    turngate_version: z.string(),
    config: CapturedConfigSchema,
    /**
     * Where the captured configuration came from (docs/cli.md "Configuration the agent
     * wrote"); absent in older baselines: not recorded, the next baseline reads the file.
     */
    config_source: ConfigSourceSchema.optional(),
    environment: z.unknown(),
    snapshot: z.unknown(),
    git_tree: z
      .object({
        tree: z
          .string()
          .regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/)
          .nullable(),
        reason: z.string().nullable(),
      })
      .strict()
      .optional(),
    /** Gapless turns (issue 32 item 3); absent: the baseline starts a new chain. */
    chain: z
      .object({
        previous: z
          .object({
            verdict: z.string(),
            reason: z.string().nullable(),
            ended_at: z.string(),
            room_sealed_at: z.number().nullable().optional(),
          })
          .strict()
          .nullable(),
        unverified_paths: z.array(z.string()),
        unverified_digests: z.array(z.string()),
        between_turns: z.array(z.string()),
      })
      .strict()
      .optional(),
  })
  .strict();

/** What `readBaseline` returns. */
export interface StoredBaseline {
  /** The baseline id (SHA-256 of the file's bytes). */
  id: string;
  snapshot: WorkspaceSnapshot;
  /** The effective configuration captured when the baseline was taken. */
  config: TurngateConfig;
  /** Where it came from (`chooseTurnConfig`); absent in baselines written before. */
  configSource?: ConfigSource;
  /** The git tree id of the source scope when the baseline was taken (absent in older files). */
  gitTree?: SourceTree;
  /** Issue 10: the checks' shell and PATH, user-level and review file fingerprints. */
  environment: EnvironmentBaseline;
  /**
   * docs/cli.md "Gapless turns": what this baseline's turn inherits from the turn whose judged
   * state it is (absent: a first or fresh baseline, or a file written before issue 32).
   */
  carry?: TurnCarry;
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
 * With `gitTree` (`Session.baselineTree`), the source scope's git tree id is stored as
 * `git_tree: {tree, reason}` for the proof's `workspace.baseline_tree`.
 * With `carry` (docs/cli.md "Gapless turns": the snapshot is the state the previous turn was
 * judged on), it stores `chain: {previous, unverified_paths, unverified_digests,
 * between_turns}` for `turngate verify`.
 * With `configSource` (`chooseTurnConfig`), it stores where the configuration came from as
 * `config_source: {path, text, digest, pending_since}`, so the turn chain `turngate verify`
 * writes keeps a configuration the agent wrote from being adopted by the next baseline.
 * Input: file path, snapshot, loaded configuration, turngate version, environment,
 * optional tree, optional carry, optional configuration source.
 * Output: the baseline id (SHA-256 of the bytes written, 64 lowercase hex characters).
 * Errors: the `fs` error of the write.
 */
export async function writeBaseline(
  path: string,
  snapshot: WorkspaceSnapshot,
  config: TurngateConfig,
  version: string,
  environment: EnvironmentBaseline,
  gitTree?: SourceTree,
  carry?: TurnCarry,
  configSource?: ConfigSource,
): Promise<string> {
  const file: Record<string, unknown> = {
    schema: BASELINE_FILE_SCHEMA,
    turngate_version: version,
    config: {
      path: config.path ?? null,
      checks: config.checks,
      timeout_ms: config.timeoutMs ?? null,
      ignores: config.ignores,
      ...(config.outputs !== undefined ? { outputs: config.outputs } : {}),
      ...(config.defaultOutputs !== undefined ? { default_outputs: config.defaultOutputs } : {}),
      rewrite_paths: config.rewritePaths,
      shell: config.shell ?? null,
      allow_env: config.allowEnv ?? [],
      ...(config.maxAttempts !== undefined ? { max_attempts: config.maxAttempts } : {}),
      ...(config.maxInfrastructureAttempts !== undefined
        ? { max_infrastructure_attempts: config.maxInfrastructureAttempts }
        : {}),
      ...(config.isolation !== undefined ? { isolation: config.isolation } : {}),
      ...(config.network !== undefined ? { network: config.network } : {}),
      ...(config.setup !== undefined ? { setup: config.setup } : {}),
      ...(config.affectedAdapters !== undefined
        ? { affected_adapters: config.affectedAdapters }
        : {}),
      ...(config.affectedGlobalFiles !== undefined
        ? { affected_global_files: config.affectedGlobalFiles }
        : {}),
      ...(config.checksFromAffected !== undefined
        ? { checks_from_affected: config.checksFromAffected }
        : {}),
      ...(config.checkTargets !== undefined ? { check_targets: config.checkTargets } : {}),
      ...(config.cache !== undefined ? { cache: cacheConfigToWire(config.cache) } : {}),
    },
    ...(configSource !== undefined ? { config_source: configSourceToWire(configSource) } : {}),
    environment: serializeEnvironmentBaseline(environment),
    snapshot: await storeSnapshot(baselineSnapshotDir(path), snapshot),
  };
  if (gitTree) file.git_tree = { tree: gitTree.tree, reason: gitTree.reason };
  if (carry) {
    file.chain = {
      previous:
        carry.previous === null
          ? null
          : {
              verdict: carry.previous.verdict,
              reason: carry.previous.reason,
              ended_at: carry.previous.endedAt,
              ...(carry.previous.roomSealedAt !== undefined
                ? { room_sealed_at: carry.previous.roomSealedAt }
                : {}),
            },
      unverified_paths: carry.unverifiedPaths,
      unverified_digests: carry.unverifiedDigests,
      between_turns: carry.betweenTurns,
    };
  }
  const text = `${JSON.stringify(file, null, 2)}\n`;
  await writeFileAtomic(path, text);
  const stored = file.snapshot as StoredSnapshot;
  if (stored.entries_file !== undefined) {
    await pruneSnapshots(baselineSnapshotDir(path), [stored.entries_file.sha256]);
  }
  return baselineIdOf(text);
}

/**
 * Copies the entries file that the stored baseline `bytes` names (`snapshot.entries_file`)
 * from beside the baseline file `from` to beside `to`, checked against its digest, before
 * those bytes are written to `to` (a session taking another's baseline over byte for byte):
 * the copy never names a file that is not there. Nothing to do for a baseline with inline
 * entries. Errors: `WorkspaceObserverError` `invalid_snapshot` when the file is missing or
 * does not hash to its name; `fs` errors of the write.
 */
export async function copyBaselineEntries(
  bytes: Uint8Array,
  from: string,
  to: string,
): Promise<void> {
  let sha256: unknown;
  try {
    sha256 = JSON.parse(Buffer.from(bytes).toString("utf8"))?.snapshot?.entries_file?.sha256;
  } catch {
    return; // not JSON: reading the copied baseline reports it
  }
  if (typeof sha256 !== "string" || !/^[0-9a-f]{64}$/.test(sha256)) return;
  const source = join(baselineSnapshotDir(from), `${sha256}.bin`);
  const entries = await readFile(source).catch(() => undefined);
  if (entries === undefined || sha256Hex(entries) !== sha256) {
    throw new WorkspaceObserverError(
      "invalid_snapshot",
      `snapshot.entries_file: ${source} is missing or does not hash to its name: take a new baseline (turngate baseline)`,
      "entries_file",
    );
  }
  await mkdir(baselineSnapshotDir(to), { recursive: true });
  await writeFileAtomic(join(baselineSnapshotDir(to), `${sha256}.bin`), entries);
}

/**
 * The folder holding a stored baseline's entries file (`snapshotStoreDir` of its state
 * folder, outside the workspace; see `storeSnapshot`): its id covers them through the
 * digest it names.
 */
export function baselineSnapshotDir(baselinePath: string): string {
  return snapshotStoreDir(dirname(baselinePath), "baseline");
}

/** Most entries kept in the baseline history (`<state dir>/baseline-history.json`). */
export const BASELINE_HISTORY_LIMIT = 20;

/** One baseline `turngate baseline` stored: its id and when (ISO 8601 UTC). */
export interface BaselineHistoryEntry {
  id: string;
  taken_at: string;
}

const HistorySchema = z.array(z.object({ id: z.string(), taken_at: z.string() }));

/**
 * The baselines stored so far, oldest first (at most 20), from `path`. A missing or
 * malformed file reads as `[]`: the history only explains a refusal, it never decides one.
 */
export async function readBaselineHistory(path: string): Promise<BaselineHistoryEntry[]> {
  try {
    const parsed = HistorySchema.safeParse(JSON.parse(await readFile(path, "utf8")));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/**
 * Append `{id, taken_at}` to the history at `path` (atomic rewrite, last 20 kept) and
 * return the entry it follows — the baseline this one replaces — or undefined. Errors: the
 * `fs` error of the write.
 */
export async function recordBaselineHistory(
  path: string,
  entry: BaselineHistoryEntry,
): Promise<BaselineHistoryEntry | undefined> {
  const history = await readBaselineHistory(path);
  const previous = history.at(-1);
  const next = [...history, entry].slice(-BASELINE_HISTORY_LIMIT);
  await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
  return previous;
}

/** Options of `readBaseline`. */
export interface ReadBaselineOptions {
  /**
   * The baseline history (`recordBaselineHistory`): when `expectedId` is in it and a later
   * baseline followed, the refusal says that a newer baseline replaced it, and when.
   */
  historyPath?: string;
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
 * - `baseline_mismatch`: its id differs from `expectedId` (when the history shows that a
 *   later `turngate baseline` replaced that id, the message says so and when);
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
    const history = options.historyPath ? await readBaselineHistory(options.historyPath) : [];
    const at = history.findIndex((entry) => entry.id === expectedId);
    const newer =
      at >= 0 ? history.slice(at + 1).find((entry) => entry.id !== expectedId) : undefined;
    if (newer !== undefined && history.at(-1)?.id === id) {
      throw new TurngateError(
        "baseline_mismatch",
        `the baseline --baseline-id names (${expectedId}, taken at ${history[at]?.taken_at}) is no longer stored: a newer baseline replaced it at ${newer.taken_at} (\`turngate baseline\` ran again, by the host or by the agent; the baseline at ${label} now has id ${id}); this turn cannot be judged against the old one: run \`turngate baseline\` when a turn starts and pass the id it prints to this turn's verify`,
      );
    }
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
  const config: TurngateConfig = {
    checks: captured.checks,
    ignores: captured.ignores,
    rewritePaths: captured.rewrite_paths ?? [],
  };
  if (captured.path !== null) config.path = captured.path;
  if (captured.timeout_ms !== null) config.timeoutMs = captured.timeout_ms;
  if (captured.shell !== null) config.shell = captured.shell;
  if (captured.allow_env.length > 0) config.allowEnv = captured.allow_env;
  if (captured.max_attempts !== undefined) config.maxAttempts = captured.max_attempts;
  if (captured.max_infrastructure_attempts !== undefined) {
    config.maxInfrastructureAttempts = captured.max_infrastructure_attempts;
  }
  let environment: EnvironmentBaseline;
  try {
    environment = deserializeEnvironmentBaseline(parsed.data.environment);
  } catch (error) {
    throw invalid(label, `${(error as Error).message}; run \`turngate baseline\` again`);
  }
  if (captured.outputs !== undefined) config.outputs = captured.outputs;
  if (captured.isolation !== undefined) config.isolation = captured.isolation;
  if (captured.network !== undefined) config.network = captured.network;
  if (captured.setup !== undefined) config.setup = captured.setup;
  if (captured.affected_adapters !== undefined)
    config.affectedAdapters = captured.affected_adapters;
  if (captured.affected_global_files !== undefined) {
    config.affectedGlobalFiles = captured.affected_global_files;
  }
  if (captured.checks_from_affected !== undefined) {
    config.checksFromAffected = captured.checks_from_affected;
  }
  if (captured.check_targets !== undefined) config.checkTargets = captured.check_targets;
  if (captured.cache !== undefined) config.cache = cacheConfigFromWire(captured.cache);
  if (captured.default_outputs !== undefined) config.defaultOutputs = captured.default_outputs;
  const stored: StoredBaseline = {
    id,
    snapshot: await loadSnapshot(baselineSnapshotDir(path), parsed.data.snapshot),
    config,
    environment,
  };
  if (parsed.data.config_source) {
    stored.configSource = configSourceFromWire(parsed.data.config_source);
  }
  const tree = parsed.data.git_tree;
  if (tree) {
    stored.gitTree =
      tree.tree !== null
        ? { tree: tree.tree, reason: null }
        : { tree: null, reason: tree.reason ?? "no git tree id" };
  }
  const chain = parsed.data.chain;
  if (chain) {
    stored.carry = {
      previous:
        chain.previous === null
          ? null
          : {
              verdict: chain.previous.verdict,
              reason: chain.previous.reason,
              endedAt: chain.previous.ended_at,
              ...(chain.previous.room_sealed_at !== undefined
                ? { roomSealedAt: chain.previous.room_sealed_at }
                : {}),
            },
      unverifiedPaths: chain.unverified_paths,
      unverifiedDigests: chain.unverified_digests,
      betweenTurns: chain.between_turns,
    };
  }
  return stored;
}

/**
 * The parts of the effective configuration that differ between `a` and `b` (`checks`,
 * `timeout_ms`, `ignores`, `outputs`, `default_outputs`, `rewrite_paths`, `shell`,
 * `allow_env`, `affected_adapters`, `affected_global_files`, `checks_from_affected`, `check_targets`, `cache`, in that order); `[]` when they are the same.
 */
export function configDifferences(a: TurngateConfig, b: TurngateConfig): string[] {
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  const differences: string[] = [];
  if (!same(a.checks, b.checks)) differences.push("checks");
  if (!same(a.timeoutMs ?? null, b.timeoutMs ?? null)) differences.push("timeout_ms");
  if (!same(a.ignores, b.ignores)) differences.push("ignores");
  if (!same(a.outputs ?? [], b.outputs ?? [])) differences.push("outputs");
  if (!same(a.defaultOutputs ?? true, b.defaultOutputs ?? true))
    differences.push("default_outputs");
  if (!same(a.rewritePaths, b.rewritePaths)) differences.push("rewrite_paths");
  if (!same(a.shell ?? null, b.shell ?? null)) differences.push("shell");
  if (!same(a.allowEnv ?? [], b.allowEnv ?? [])) differences.push("allow_env");
  if (!same(a.affectedAdapters ?? null, b.affectedAdapters ?? null)) {
    differences.push("affected_adapters");
  }
  if (!same(a.affectedGlobalFiles ?? [], b.affectedGlobalFiles ?? [])) {
    differences.push("affected_global_files");
  }
  if (!same(a.checksFromAffected ?? false, b.checksFromAffected ?? false)) {
    differences.push("checks_from_affected");
  }
  if (!same(a.checkTargets ?? {}, b.checkTargets ?? {})) differences.push("check_targets");
  if (!same(a.cache ?? null, b.cache ?? null)) differences.push("cache");
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
