import { join } from "node:path";
import type {
  CompletionWaiver,
  GateOutcome,
  VerificationCommand,
  VerificationReport,
  VerificationSummary,
} from "@turngate/core";
import {
  exitOnTerminationSignals,
  killTrackedProcessGroups,
  type ReportBinding,
  requiredPresetCommands,
  Session,
  signalExitCode,
  turngatePaths,
  type VerifyCommandsResult,
  type WorkspaceDelta,
  type WorkspaceSnapshot,
  writeJsonAtomic,
} from "@turngate/node";
import { type AgentExit, runAgent } from "./agent.js";
import { recordTurnTimingsReported } from "./check-profiles.js";
import { loadConfig, type TurngateConfig } from "./config.js";
import {
  CLI_VERSION,
  type CliContext,
  EXIT_INCOMPLETE,
  EXIT_INTERNAL,
  EXIT_OK,
} from "./context.js";
import { createProgressReporter } from "./progress.js";
import type { StatePaths } from "./state-dir.js";

/** Report subject of the checks `turngate run` / `verify` run. */
export const TURN_CHECKS_SUBJECT = "turngate:checks";

/** What one turn needs. */
export interface TurnRequest {
  /** Workspace root (absolute). */
  root: string;
  /** The agent command (`run`); absent for `verify`, whose turn already happened. */
  agent?: string[];
  /** Send the agent's stdout to stderr (`--json`: stdout carries only the outcome). */
  agentStdoutToStderr?: boolean;
  /** A stored baseline (`verify`); absent: a new baseline is taken before the agent runs. */
  baseline?: WorkspaceSnapshot;
  /** Checks from `--check` flags; when empty, the config's checks, else required presets. */
  checks: VerificationCommand[];
  /** `--config FILE`; default `<root>/turngate.config.json` when it exists. */
  configPath?: string;
  /** An already loaded configuration (`verify`: the one captured in the baseline); wins over `configPath`. */
  config?: TurngateConfig;
  /** Where check logs and proofs go (`--state-dir`); default `<root>/.turngate`. */
  state?: Pick<StatePaths, "logs" | "proofs">;
  waivers: CompletionWaiver[];
  /**
   * `--fail-on-agent-error`: an agent that exited with a code other than 0 makes the turn
   * exit 1 where it would exit 0 (verified, waived, narrative); the verdict is unchanged.
   */
  failOnAgentError?: boolean;
}

/** Where the checks came from. */
export type ChecksSource = "flags" | "config" | "presets" | "none";

/** Everything a turn produced; `toJson` gives its wire form. */
export interface TurnResult {
  /** 0 allowed, 2 incomplete, 1 allowed but the agent failed under `--fail-on-agent-error`. */
  exitCode: 0 | 1 | 2;
  /** Whether `--fail-on-agent-error` was given. */
  failOnAgentError: boolean;
  root: string;
  agent?: { command: string[]; exit: AgentExit };
  delta: WorkspaceDelta;
  effectDigest: string;
  checksSource?: ChecksSource;
  verification?: VerifyCommandsResult;
  reports: VerificationReport[];
  summary: VerificationSummary;
  summaryText: string;
  outcome: GateOutcome;
  proofPath?: string;
  configPath?: string;
  /** The host waivers the turn was given (`--waive`), as given. */
  waivers: CompletionWaiver[];
}

/**
 * One turn, the code path shared by `turngate run`, `turngate verify` and `turngate demo`:
 * baseline (or the stored one) → agent (if any) → observe → ledger → nothing changed:
 * narrative; else the checks (flags, config or required presets; the configuration's
 * `timeout_ms` is the default of each) bound to the effect
 * digest → gate → proof at `<state>/proofs/<digest>.json` (default state folder
 * `<root>/.turngate`) when the turn is allowed and changed something. `request.config`
 * (verify: the configuration captured in the baseline) is used as given; otherwise the
 * configuration is loaded now.
 *
 * While checks run, SIGINT/SIGTERM abort them (the check fails as cancelled and the turn is
 * judged); a second one, or a SIGHUP, kills their process groups and exits with 128 + the
 * signal number.
 * Errors: config, waiver and observer errors, and `AgentSpawnError`, propagate.
 */
export async function runTurn(request: TurnRequest, ctx: CliContext): Promise<TurnResult> {
  const startedMs = ctx.now?.() ?? Date.now();
  const config = request.config ?? loadConfig(request.root, request.configPath);
  const state = request.state ?? turngatePaths(request.root);
  const session = await Session.start({
    root: request.root,
    ignores: config.ignores,
    waivers: request.waivers,
    env: ctx.env,
    logDir: state.logs,
    toolVersions: { turngate: CLI_VERSION },
    ...(request.baseline ? { baseline: request.baseline } : {}),
  });

  let agent: TurnResult["agent"];
  if (request.agent) {
    const exit = await runAgent(request.agent, request.root, {
      env: ctx.env,
      stdoutToStderr: request.agentStdoutToStderr === true,
      ...(ctx.agentOutput ? { output: ctx.agentOutput } : {}),
    });
    agent = { command: request.agent, exit };
    ctx.stderr.write(`turngate: agent exited with code ${exit.exitCode}\n`);
  }

  const delta = await session.observeWorkspace();
  let checksSource: ChecksSource | undefined;
  let verification: VerifyCommandsResult | undefined;
  if (session.records.length > 0) {
    let commands: VerificationCommand[];
    if (request.checks.length > 0) {
      checksSource = "flags";
      commands = withDefaultTimeout(request.checks, config.timeoutMs);
    } else if (config.checks.length > 0) {
      checksSource = "config";
      commands = config.checks;
    } else {
      const presets = session.verificationPresets();
      commands = withDefaultTimeout(requiredPresetCommands(presets), config.timeoutMs);
      checksSource = commands.length > 0 ? "presets" : "none";
    }
    if (commands.length > 0) {
      verification = await withInterruptibleChecks(async (signal) => {
        const progress = createProgressReporter(ctx.stderr);
        try {
          return await session.verifyCommands(TURN_CHECKS_SUBJECT, commands, {
            bind: true,
            onProgress: progress.onProgress,
            signal,
          });
        } finally {
          progress.close();
        }
      });
    }
  }

  const outcome = await session.decide();
  if (verification) await recordTurnTimingsReported(state, verification, delta, startedMs, ctx);
  const agentFailed = agent !== undefined && agent.exit.exitCode !== 0;
  const result: TurnResult = {
    exitCode:
      outcome.kind !== "allow"
        ? EXIT_INCOMPLETE
        : agentFailed && request.failOnAgentError === true
          ? EXIT_INTERNAL
          : EXIT_OK,
    failOnAgentError: request.failOnAgentError === true,
    root: request.root,
    delta,
    effectDigest: session.effectDigest,
    reports: session.verificationReports(),
    summary: session.verificationSummary(),
    summaryText: session.verificationSummaryText(),
    outcome,
    waivers: request.waivers,
  };
  if (agent) result.agent = agent;
  if (checksSource) result.checksSource = checksSource;
  if (verification) result.verification = verification;
  if (config.path) result.configPath = config.path;
  if (outcome.kind === "allow" && session.effectDigest !== "") {
    const proofPath = join(state.proofs, `${session.effectDigest}.json`);
    await writeJsonAtomic(proofPath, session.proof());
    result.proofPath = proofPath;
  }
  return result;
}

/**
 * Run the checks with signal handlers in place, so that no check outlives turngate:
 * - the first SIGINT or SIGTERM aborts `signal` (the running check is stopped and fails as
 *   cancelled, later ones do not start, and the turn is judged);
 * - a second SIGINT or SIGTERM, and any SIGHUP (the terminal is gone: nobody reads a
 *   verdict), SIGKILL the checks' process groups and exit with 128 + the signal number
 *   (130, 143, 129) — Node's default death on a signal would leave them running.
 */
async function withInterruptibleChecks<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const releaseHangup = exitOnTerminationSignals({ signals: ["SIGHUP"] });
  const onSignal = (signal: NodeJS.Signals) => {
    if (!controller.signal.aborted) {
      controller.abort();
      return;
    }
    killTrackedProcessGroups();
    process.exit(signalExitCode(signal));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    return await run(controller.signal);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    releaseHangup();
  }
}

/**
 * `commands` with `timeoutMs` (the configuration's top-level `timeout_ms`) set on those
 * without their own: the default applies to `--check` and preset checks as README says, not
 * only to checks listed in the configuration (issue #12 item 1). Unchanged when undefined.
 */
export function withDefaultTimeout(
  commands: readonly VerificationCommand[],
  timeoutMs: number | undefined,
): VerificationCommand[] {
  if (timeoutMs === undefined) return [...commands];
  return commands.map((c) => (c.timeout_ms === undefined ? { ...c, timeout_ms: timeoutMs } : c));
}

/** The binding of the checks' report in wire form (snake_case), or null when none ran. */
export function bindingJson(binding: ReportBinding | undefined): Record<string, unknown> | null {
  if (!binding) return null;
  if (binding.bound) return { bound: true, effect_digest: binding.effectDigest };
  if (binding.reason === "workspace_changed_during_check") {
    return {
      bound: false,
      reason: binding.reason,
      changed_paths: binding.changedPaths,
      unreadable: binding.unreadable,
    };
  }
  return { bound: false, reason: binding.reason };
}
