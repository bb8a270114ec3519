import type { VerificationCommand } from "@turngate/core";
import {
  CACHED_CHECK_SCHEMA,
  type CachedCheck,
  type CacheKeyContext,
  type CacheSource,
  type CommandResultCache,
  type CommandRun,
  cacheHostSettings,
  cacheKeyContext,
  checkCacheKey,
  logExcerpt,
  RemoteCacheClient,
  ResultCache,
  type Session,
  type SigningKey,
  type VerifyCommandsResult,
  type WorkspaceDelta,
} from "@turngate/node";
import type { CacheConfig } from "./config.js";
import { CLI_VERSION } from "./context.js";

/** What the result cache did in one turn (`TurnResult.cache`). */
export interface TurnCacheReport {
  /** Check id → where its result came from (`none`: it ran). */
  checks: Record<string, CacheSource>;
  /** Check id → its cache key (absent when no key could be computed). */
  keys: Record<string, string>;
  /** Results uploaded to the remote cache this turn. */
  uploaded: number;
  /** Whether this host uploads (enabled outside the workspace, not turned off by config). */
  uploads: boolean;
  /** Warnings (remote unavailable, rejected artifact, …), also printed to stderr. */
  warnings: string[];
}

/** A turn's cache: the hook `verifyCommands` asks, and the upload after the run. */
export interface TurnCache {
  hook: CommandResultCache;
  report: TurnCacheReport;
  /** Store the results that ran (only when the report was bound: they ran on the keyed bytes). */
  storeRuns(verification: VerifyCommandsResult): Promise<void>;
}

/**
 * Set up the result cache for a turn (issue 20 items 3–4): the key context (tree from the
 * baseline tree and the delta, lockfiles, toolchain, os/arch, out-of-scope ledger rows),
 * the host settings (trusted keys, uploads: from outside the workspace; the user config's
 * `trusted_keys` and `trust_own_key` only when `confined` or out of the agent user's
 * reach), the remote client
 * (token from the variable `token_env` names) and the per-turn `ResultCache` under
 * `<state>/cache`. Without a key (no git tree) the cache is off for the turn, with a warning.
 * Input: the config's `cache` block, the session after `observeWorkspace`, its delta, the
 * state folder, the signing key, the environment and a warning sink.
 * Output: {@link TurnCache}. Never throws for network or cache-file problems.
 */
export async function setUpTurnCache(options: {
  config: CacheConfig;
  root: string;
  session: Session;
  delta: WorkspaceDelta;
  stateDir: string;
  signingKey: SigningKey;
  env: NodeJS.ProcessEnv;
  warn: (line: string) => void;
  /** The agent was confined: the user cache config's bar-lowering settings are honoured. */
  confined?: boolean;
}): Promise<TurnCache> {
  const { config, session, env } = options;
  const host = cacheHostSettings(env, options.root, { confined: options.confined === true });
  const report: TurnCacheReport = {
    checks: {},
    keys: {},
    uploaded: 0,
    uploads: host.write && config.write !== false && config.remote !== undefined,
    warnings: [],
  };
  const warn = (line: string) => {
    report.warnings.push(line);
    options.warn(line);
  };
  for (const line of host.warnings) warn(`cache: ${line}`);
  let remote: RemoteCacheClient | undefined;
  if (config.remote) {
    const token = config.remote.tokenEnv !== undefined ? env[config.remote.tokenEnv] : undefined;
    if (config.remote.tokenEnv !== undefined && (token === undefined || token === "")) {
      warn(
        `cache: ${config.remote.tokenEnv} is not set; the remote cache is asked without a token`,
      );
    }
    try {
      remote = new RemoteCacheClient({
        url: config.remote.url,
        team: config.remote.team,
        ...(token ? { token } : {}),
        ...(config.remote.timeoutMs !== undefined ? { timeoutMs: config.remote.timeoutMs } : {}),
      });
    } catch (error) {
      warn(`cache: ${(error as Error).message}; the remote cache is off`);
    }
  }
  if (config.write && !host.write) {
    warn(
      'cache: uploads are off: this host has not enabled them (set TURNGATE_CACHE_WRITE=1 or "write": true in the user cache config)',
    );
  }
  const cache = new ResultCache({
    stateDir: options.stateDir,
    ...(remote ? { remote } : {}),
    read: config.read,
    upload: report.uploads,
    trusted: host.trustedKeys,
    trustOwnKey: host.trustOwnKey,
    signingKey: options.signingKey,
    warn,
  });
  const gathered = await cacheKeyContext({
    root: options.root,
    baselineTree: session.baselineTree?.tree ?? null,
    changes: options.delta.changes,
    records: session.records,
    toolchain: config.toolchain,
    turngate: CLI_VERSION,
    env,
  });
  const context: CacheKeyContext | null = gathered.context;
  if (context === null) warn(`cache: off for this turn (${gathered.reason})`);
  const keyOf = (command: VerificationCommand): string | undefined => {
    if (context === null) return undefined;
    try {
      return checkCacheKey(context, command, {
        shell: session.environmentBaseline.plan.shell.name,
        envNames: config.env,
        env,
      });
    } catch (error) {
      warn(`cache: no key for ${command.id} (${(error as Error).message})`);
      return undefined;
    }
  };
  const hook: CommandResultCache = {
    lookup: async (command) => {
      report.checks[command.id] = "none";
      const key = keyOf(command);
      if (key === undefined) return undefined;
      report.keys[command.id] = key;
      const hit = await cache.lookup(key, command.id);
      if (hit === undefined) return undefined;
      report.checks[command.id] = hit.source;
      const p = hit.payload;
      return {
        check: p.check,
        exitCode: p.exit_code,
        durationMs: p.duration_ms,
        output: p.log.excerpt,
        totalBytes: p.log.bytes,
        truncated: p.log.excerpt_truncated,
        source: hit.source,
      };
    },
  };
  const storeRuns = async (verification: VerifyCommandsResult) => {
    if (verification.binding.bound !== true) return;
    for (const run of verification.runs) {
      if (run.cached !== undefined) continue;
      const key = report.keys[run.command.id];
      if (key === undefined || !storable(run)) continue;
      if (await cache.store(key, payloadOf(key, run), run.command.id)) report.uploaded += 1;
    }
  };
  return { hook, report, storeRuns };
}

/**
 * Whether a run's result may be stored: it passed, or failed on an assertion (it ran and
 * exited with another code). Timeouts, signals, cancellations and checks that could not
 * start depend on the machine's moment, not on the bytes, and are never stored.
 */
export function storable(run: CommandRun): boolean {
  if (run.check.status === "passed") return true;
  return run.check.status === "failed" && run.check.failure_class === "assertion";
}

function payloadOf(key: string, run: CommandRun): CachedCheck {
  return {
    schema: CACHED_CHECK_SCHEMA,
    key,
    check: run.check,
    exit_code: run.execution.exitCode,
    duration_ms: Math.max(0, run.execution.durationMs),
    log: {
      sha256: run.execution.log?.sha256 ?? "",
      bytes: run.execution.totalBytes,
      ...logExcerpt(run.execution.output),
    },
    created_at: new Date().toISOString(),
    turngate: CLI_VERSION,
  };
}
