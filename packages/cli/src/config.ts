import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { VerificationCommand } from "@turngate/core";
import {
  checkCwdProblem,
  InvalidRegexError,
  TurngateError,
  TurngateValidationError,
} from "@turngate/core";
import { VerificationCommandSchema } from "@turngate/core/schemas";
import {
  agentWritableProblem,
  checkVersionPatterns,
  egressAllowProblem,
  MIN_COMMAND_TIMEOUT_MS,
  rewritePathProblem,
} from "@turngate/node";
import * as z from "zod";

/** File name looked up in the workspace root when `--config` is not given. */
export const CONFIG_FILE_NAME = "turngate.config.json";

/**
 * A configured timeout: an integer of at least 1,000 ms. The runner would raise a smaller
 * one to 1,000 ms silently (A3S §2.13); a configuration that asks for it is refused so the
 * user learns the minimum (issue #12 item 4).
 */
const TimeoutSchema = z
  .number()
  .int()
  .superRefine((ms, ctx) => {
    if (ms >= MIN_COMMAND_TIMEOUT_MS) return;
    ctx.addIssue({
      code: "custom",
      message: `must be at least ${MIN_COMMAND_TIMEOUT_MS} ms, the smallest timeout turngate honours (got ${ms})`,
    });
  });

const CheckSchema = z.union([
  z.string().regex(/\S/, { message: "must not be blank" }),
  z
    .object({
      id: z.string().regex(/\S/, { message: "must not be blank" }).optional(),
      kind: z.string().optional(),
      description: z.string().optional(),
      command: z.string().regex(/\S/, { message: "must not be blank" }),
      required: z.boolean().optional(),
      timeout_ms: TimeoutSchema.optional(),
      expect_exit: z.number().int().min(-2147483648).max(2147483647).optional(),
      results: VerificationCommandSchema.shape.results,
      cwd: z
        .string()
        .superRefine((cwd, ctx) => {
          const problem = checkCwdProblem(cwd);
          if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
        })
        .optional(),
      targets: z
        .array(z.string().regex(/\S/, { message: "must not be blank" }))
        .min(1, { message: "must list at least one target id (or leave targets out)" })
        .optional(),
    })
    .strict(),
]);

/** Zod refinement for one `rewrite_paths` element (rules: `rewritePathProblem`). */
function rewritePathRefinement(entry: string, ctx: z.RefinementCtx): void {
  const problem = rewritePathProblem(entry);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
}

/**
 * `cache` (issue 20, docs/scale-out.md "Many machines"): the result cache. `remote` names a
 * Turborepo remote cache — `url`, `team` (sent as `teamId`; `slug:NAME` sends `slug`), `token_env`
 * (the environment variable holding the bearer token: never the token itself) and `timeout_ms`
 * (each request's bound, default 2,000); `read` (default true) looks results up; `write` (default
 * false) only lets a host that enabled uploads outside the workspace (`TURNGATE_CACHE_WRITE=1` or
 * the user config) upload — `false` turns uploads off even there; `env` (variable names whose
 * values join the key) and `toolchain` (rows `{id, probe}` whose version probes join the key, as
 * `facts.toolchain` takes them).
 */
export const CacheConfigSchema = z
  .object({
    remote: z
      .object({
        url: z.string().regex(/^https?:\/\/\S+$/, { message: "must be an http(s) URL" }),
        team: z.string().regex(/\S/, { message: "must not be blank" }),
        token_env: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be a variable name" })
          .optional(),
        timeout_ms: z.number().int().min(50).max(60_000).optional(),
      })
      .strict()
      .optional(),
    read: z.boolean().optional(),
    write: z.boolean().optional(),
    env: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be a variable name" }))
      .optional(),
    toolchain: z
      .array(z.record(z.string(), z.unknown()))
      .superRefine((rows, ctx) => {
        // A version pattern that does not compile is refused here, at its field (issue 36).
        try {
          checkVersionPatterns(rows);
        } catch (error) {
          if (!(error instanceof InvalidRegexError)) throw error;
          ctx.addIssue({
            code: "custom",
            // rows.<i>.<field…> → cache.toolchain.<i>.<field…>
            path: error.path
              .split(".")
              .slice(1)
              .map((k) => (/^\d+$/.test(k) ? Number(k) : k)),
            message: `Invalid regex: ${error.detail}`,
          });
        }
      })
      .optional(),
  })
  .strict();

/** The loaded `cache` block (see {@link CacheConfigSchema}). */
export interface CacheConfig {
  remote?: { url: string; team: string; tokenEnv?: string; timeoutMs?: number };
  read: boolean;
  write: boolean;
  env: string[];
  toolchain: Record<string, unknown>[];
}

/** The wire form of a `cache` block as written in the file (and in a stored baseline). */
export type CacheConfigWire = z.output<typeof CacheConfigSchema>;

/** `CacheConfig` from its wire form (defaults applied). */
export function cacheConfigFromWire(wire: CacheConfigWire): CacheConfig {
  const out: CacheConfig = {
    read: wire.read ?? true,
    write: wire.write ?? false,
    env: wire.env ?? [],
    toolchain: wire.toolchain ?? [],
  };
  if (wire.remote) {
    out.remote = { url: wire.remote.url, team: wire.remote.team };
    if (wire.remote.token_env !== undefined) out.remote.tokenEnv = wire.remote.token_env;
    if (wire.remote.timeout_ms !== undefined) out.remote.timeoutMs = wire.remote.timeout_ms;
  }
  return out;
}

/** The wire form of a loaded `CacheConfig`. */
export function cacheConfigToWire(config: CacheConfig): CacheConfigWire {
  const out: CacheConfigWire = {
    read: config.read,
    write: config.write,
    env: config.env,
    toolchain: config.toolchain,
  };
  if (config.remote) {
    out.remote = {
      url: config.remote.url,
      team: config.remote.team,
      ...(config.remote.tokenEnv !== undefined ? { token_env: config.remote.tokenEnv } : {}),
      ...(config.remote.timeoutMs !== undefined ? { timeout_ms: config.remote.timeoutMs } : {}),
    };
  }
  return out;
}

/**
 * `turngate.config.json`: `checks` (command strings or verification command records),
 * `timeout_ms` (default timeout of every check — configured, `--check` and preset — in ms,
 * at least 1,000), `ignores` (gitignore-style patterns the workspace observer skips),
 * `outputs` (gitignore-syntax output locations: untracked files there are outside the
 * source scope, issue 10), `default_outputs` (false turns off `DEFAULT_OUTPUT_LOCATIONS`),
 * `rewrite_paths` (lockfiles a passing check may rewrite, after which the checks run once
 * more — issue 10; only lockfile names such as `Cargo.lock`, see `REWRITE_LOCKFILES`),
 * `max_attempts` / `max_infrastructure_attempts` (hook loop control, issue 19: blocked
 * stops per digest before escalation, default 3 each), `agent_grace_ms` (how long the processes the agent left running get after its exit
 * before they are SIGKILLed, ms; default 2,000), `shell` (the checks' shell: a program
 * name looked up on PATH at baseline time, or an absolute path; default bash if found, else
 * sh) and `allow_env` (secret-looking variable names passed to checks all the same; see
 * `@turngate/node`'s check-env), `affected_adapters` (adapter rows of `turngate affected`,
 * issue 15; default: the rows detected from pnpm-workspace.yaml, Cargo.toml and go.mod),
 * `affected_global_files` (extra root config globs whose change affects every target) and
 * `checks_from_affected` (opt-in, default false: affected targets may narrow the checks)
 * and `cache` (the result cache, issue 20: {@link CacheConfigSchema}), `isolation`
 * (`clean-room` or `in-place`, docs/design.md §3b; absent: clean-room where the sandbox
 * starts, else in-place), `network` (clean-room checks may reach the network; default
 * false), `setup` (the clean room's dependency setup: a command, or false; default the
 * preset's, docs/guarantees.md "Isolation: clean-room checks"), `confine_agent` (`run` confines the
 * agent as `--confine` does, docs/guarantees.md "Confined agents") and `agent_writable` (what a
 * confined agent may write besides the workspace: `.git`, or absolute / `~/` folders
 * outside it) and `agent_network` (the confined agent's network: `"proxy"`, the default,
 * `{"allow": ["host:port", …]}` or `"host"`). All are read from the configuration captured when the turn starts.
 * A check record's `cwd` is the folder it runs in, relative to the workspace root (no `..`
 * segment, not absolute: `checks.N.cwd` names a bad one); with `checks_from_affected`, a
 * check with a `cwd` and no `targets` maps to the target whose root holds that folder.
 * Unknown keys are rejected so that typos
 * surface; an empty `checks` list is refused (it would verify nothing; issue #12 item 3); a
 * `timeout_ms` below 1,000 is refused naming the minimum (item 4).
 */
export const TurngateConfigSchema = z
  .object({
    checks: z
      .array(CheckSchema)
      .min(1, {
        message:
          'must list at least one check: an empty list would leave the turn with nothing to verify; remove "checks" to use the preset checks of the project, or list the commands to run',
      })
      .optional(),
    timeout_ms: TimeoutSchema.optional(),
    ignores: z.array(z.string()).optional(),
    outputs: z.array(z.string()).optional(),
    default_outputs: z.boolean().optional(),
    rewrite_paths: z.array(z.string().superRefine(rewritePathRefinement)).optional(),
    agent_grace_ms: z.number().int().nonnegative().max(600_000).optional(),
    max_attempts: z.number().int().min(1).max(100).optional(),
    max_infrastructure_attempts: z.number().int().min(1).max(100).optional(),
    shell: z.string().regex(/\S/, { message: "must not be blank" }).optional(),
    allow_env: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be a variable name" }))
      .optional(),
    affected_adapters: z.array(z.record(z.string(), z.unknown())).optional(),
    affected_global_files: z.array(z.string()).optional(),
    checks_from_affected: z.boolean().optional(),
    cache: CacheConfigSchema.optional(),
    isolation: z
      .enum(["clean-room", "in-place"], {
        message:
          'must be "clean-room" (checks on a clean copy of the change, in a sandbox) or "in-place" (checks in the workspace); leave it out for clean-room where the sandbox starts',
      })
      .optional(),
    network: z.boolean().optional(),
    confine_agent: z.boolean().optional(),
    agent_writable: z
      .array(
        z.string().superRefine((entry, ctx) => {
          const problem = agentWritableProblem(entry);
          if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
        }),
      )
      .optional(),
    agent_network: z
      .union(
        [
          z.enum(["proxy", "host"]),
          z
            .object({
              allow: z.array(
                z.string().superRefine((entry, ctx) => {
                  const problem = egressAllowProblem(entry);
                  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
                }),
              ),
            })
            .strict(),
        ],
        {
          message:
            'must be "proxy" (the default: the confined agent\'s own network, through turngate\'s proxy), {"allow": ["127.0.0.1:11434"]} (the same, with destinations on this machine it may still reach) or "host" (the host\'s network: a server of yours on 127.0.0.1 takes the agent\'s requests)',
        },
      )
      .optional(),
    setup: z
      .union([z.string().regex(/\S/, { message: "must not be blank" }), z.literal(false)], {
        message:
          'must be a shell command (the dependency setup run in the clean room when a dependency folder changed, e.g. "npm ci") or false (never: a changed dependency folder stays hidden from the checks)',
      })
      .optional(),
  })
  .strict();

/** The loaded configuration: checks normalised to verification commands. */
export interface TurngateConfig {
  /** Where it was read from; undefined when no file exists. */
  path?: string;
  checks: VerificationCommand[];
  ignores: string[];
  /** `outputs`: extra output locations (gitignore syntax); undefined when absent. */
  outputs?: string[];
  /** `default_outputs`; undefined when absent (the defaults apply). */
  defaultOutputs?: boolean;
  /** `rewrite_paths`: lockfiles a passing check may rewrite (issue 10); `[]` when absent. */
  rewritePaths: string[];
  /**
   * The file's top-level `timeout_ms` (already applied to `checks`; `runTurn` applies it to
   * `--check` and preset checks too); undefined when absent.
   */
  timeoutMs?: number;
  /** `agent_grace_ms`: grace for the agent's leftover processes, ms; undefined: default 2,000. */
  agentGraceMs?: number;
  /** `shell`: the checks' shell as configured; undefined: bash if found, else sh. */
  shell?: string;
  /** `affected_adapters`: adapter rows of `turngate affected`; undefined: detected. */
  affectedAdapters?: Record<string, unknown>[];
  /** `affected_global_files`: extra root config globs (issue 15). */
  affectedGlobalFiles?: string[];
  /** `checks_from_affected`: the host opted in to narrowing checks by affected targets. */
  checksFromAffected?: boolean;
  /** Check id → the affected-target ids it tests (a check's `targets`); absent: none listed. */
  checkTargets?: Record<string, string[]>;
  /** `allow_env`: variable names passed to checks although they look like secrets. */
  allowEnv?: string[];
  /**
   * `max_attempts` (hooks, issue 19): stops judged on one digest that may be blocked before
   * the stop is escalated; undefined: 3.
   */
  maxAttempts?: number;
  /** `max_infrastructure_attempts`: the same for stops whose checks could not run; undefined: 3. */
  maxInfrastructureAttempts?: number;
  /** `cache`: the result cache (issue 20); undefined: no cache. */
  cache?: CacheConfig;
  /** `isolation` (docs/design.md §3b); undefined: `auto` (clean-room where the sandbox starts). */
  isolation?: "clean-room" | "in-place";
  /** `network`: clean-room checks may reach the network; undefined: no. */
  network?: boolean;
  /**
   * `confine_agent` (docs/guarantees.md "Confined agents"): `run` confines the agent as
   * `--confine` does.
   */
  confineAgent?: boolean;
  /**
   * `agent_writable`: what a confined agent may write besides the workspace: `.git` (it
   * commits) and absolute folders outside the workspace (`~/` expanded against `HOME` when
   * the turn starts); undefined: none.
   */
  agentWritable?: string[];
  /**
   * `agent_network` (docs/guarantees.md "Confined agents"): the confined agent's network,
   * `proxy` (its own, through turngate's egress proxy) or `host`; undefined: `proxy`.
   */
  agentNetwork?: "proxy" | "host";
  /**
   * `agent_network.allow`: `host:port` destinations on this machine the proxy still lets a
   * confined agent reach (a local model server); undefined: none.
   */
  agentNetworkAllow?: string[];
  /**
   * `setup`: the clean room's dependency setup command, or false (never); undefined: the
   * preset default (`@turngate/node`'s `detectSetup`).
   */
  setup?: string | false;
}

/**
 * Load the configuration: `explicitPath` when given (it must exist), else
 * `<root>/turngate.config.json` when it exists, else an empty configuration.
 *
 * Checks are normalised: a string `s` at index i becomes
 * `{id: "check:{i+1}", kind: "command", description: s, command: s, required: true,
 * expect_exit: 0}`; a record gets the same defaults for missing fields; the file's
 * `timeout_ms` applies to checks without their own.
 *
 * Errors: `TurngateValidationError` naming the field (`checks.1.command`) for a bad value
 * or invalid JSON (path `""`); `TurngateError` `config_unreadable` naming the file when an
 * explicit file does not exist or cannot be read.
 */
export function loadConfig(root: string, explicitPath?: string): TurngateConfig {
  return readConfigFile(root, explicitPath).config;
}

/** A configuration as `readConfigFile` read it: the loaded form and the bytes it came from. */
export interface ConfigFile {
  config: TurngateConfig;
  /** The file read: `explicitPath`, else `<root>/turngate.config.json` (also when it does not exist). */
  path: string;
  /** The file's bytes (UTF-8), or null when there is no file (the empty configuration). */
  text: string | null;
  /** Lowercase hex SHA-256 of the bytes, or `"absent"` (as `fileFingerprint` of @turngate/node). */
  digest: string;
}

/**
 * `loadConfig` that also returns the bytes the configuration was parsed from and their
 * SHA-256, read once (docs/cli.md "Configuration the agent wrote": the turn chain keeps
 * them). Errors: as `loadConfig`.
 */
export function readConfigFile(root: string, explicitPath?: string): ConfigFile {
  const path = explicitPath ?? join(root, CONFIG_FILE_NAME);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (explicitPath === undefined && code === "ENOENT") {
      return {
        config: { checks: [], ignores: [], rewritePaths: [] },
        path,
        text: null,
        digest: "absent",
      };
    }
    throw new TurngateError(
      "config_unreadable",
      `cannot read the configuration file ${path}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (error as Error).message}; check the --config path, or drop --config to use <root>/${CONFIG_FILE_NAME}`,
    );
  }
  const text = bytes.toString("utf8");
  return {
    config: parseConfig(text, path),
    path,
    text,
    digest: createHash("sha256").update(bytes).digest("hex"),
  };
}

/**
 * The configuration in `text`, read from (or kept for) the file `path`: the rules of
 * `loadConfig`. Errors: `TurngateValidationError` naming the field, or path `""` for
 * invalid JSON.
 */
export function parseConfig(text: string, path: string): TurngateConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new TurngateValidationError(`${path}`, [
      { path: "", message: `not JSON: ${(error as Error).message}` },
    ]);
  }
  const parsed = TurngateConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new TurngateValidationError(
      `${path}`,
      parsed.error.issues.map((issue) => ({
        path: issue.path.map(String).join("."),
        message: issue.message,
      })),
    );
  }
  const config = parsed.data;
  const loaded: TurngateConfig = {
    path,
    checks: (config.checks ?? []).map((check, index) =>
      normaliseCheck(check, index, config.timeout_ms),
    ),
    ignores: config.ignores ?? [],
    rewritePaths: config.rewrite_paths ?? [],
  };
  const checkTargets: Record<string, string[]> = {};
  (config.checks ?? []).forEach((check, index) => {
    if (typeof check !== "string" && check.targets !== undefined) {
      checkTargets[loaded.checks[index]?.id ?? `check:${index + 1}`] = check.targets;
    }
  });
  if (Object.keys(checkTargets).length > 0) loaded.checkTargets = checkTargets;
  if (config.timeout_ms !== undefined) loaded.timeoutMs = config.timeout_ms;
  if (config.outputs !== undefined) loaded.outputs = config.outputs;
  if (config.default_outputs !== undefined) loaded.defaultOutputs = config.default_outputs;
  if (config.agent_grace_ms !== undefined) loaded.agentGraceMs = config.agent_grace_ms;
  if (config.shell !== undefined) loaded.shell = config.shell;
  if (config.allow_env !== undefined) loaded.allowEnv = config.allow_env;
  if (config.max_attempts !== undefined) loaded.maxAttempts = config.max_attempts;
  if (config.affected_adapters !== undefined) loaded.affectedAdapters = config.affected_adapters;
  if (config.affected_global_files !== undefined) {
    loaded.affectedGlobalFiles = config.affected_global_files;
  }
  if (config.checks_from_affected !== undefined) {
    loaded.checksFromAffected = config.checks_from_affected;
  }
  if (config.isolation !== undefined) loaded.isolation = config.isolation;
  if (config.network !== undefined) loaded.network = config.network;
  if (config.confine_agent !== undefined) loaded.confineAgent = config.confine_agent;
  if (config.agent_writable !== undefined) loaded.agentWritable = config.agent_writable;
  if (typeof config.agent_network === "string") loaded.agentNetwork = config.agent_network;
  else if (config.agent_network !== undefined) {
    loaded.agentNetwork = "proxy";
    loaded.agentNetworkAllow = config.agent_network.allow;
  }
  if (config.setup !== undefined) loaded.setup = config.setup;
  if (config.max_infrastructure_attempts !== undefined) {
    loaded.maxInfrastructureAttempts = config.max_infrastructure_attempts;
  }
  if (config.cache !== undefined) loaded.cache = cacheConfigFromWire(config.cache);
  return loaded;
}

/**
 * Verification commands for `--check CMD` flags: the i-th (0-based) becomes
 * `{id: "check:{i+1}", kind: "command", description: CMD, command: CMD, required: true,
 * expect_exit: 0}` with `timeoutMs` when given.
 * Errors: `TurngateValidationError` naming `--check[i]` for a blank CMD (`sh -c ""` exits
 * 0, so it would pass without checking anything).
 */
export function checksFromFlags(
  commands: readonly string[],
  timeoutMs?: number,
): VerificationCommand[] {
  const blank = commands.findIndex((command) => !/\S/.test(command));
  if (blank >= 0) {
    throw new TurngateValidationError("--check value", [
      { path: `--check[${blank}]`, message: "must not be blank" },
    ]);
  }
  return commands.map((command, index) => normaliseCheck(command, index, timeoutMs));
}

function normaliseCheck(
  check: z.output<typeof CheckSchema>,
  index: number,
  defaultTimeoutMs: number | undefined,
): VerificationCommand {
  const record = typeof check === "string" ? { command: check } : check;
  const command: VerificationCommand = {
    id: record.id ?? `check:${index + 1}`,
    kind: record.kind ?? "command",
    description: record.description ?? record.command,
    command: record.command,
    required: record.required ?? true,
    expect_exit: record.expect_exit ?? 0,
  };
  const timeout = record.timeout_ms ?? defaultTimeoutMs;
  if (timeout !== undefined) command.timeout_ms = timeout;
  if ("results" in record && record.results !== undefined) command.results = record.results;
  if ("cwd" in record && record.cwd !== undefined) command.cwd = record.cwd;
  return command;
}
