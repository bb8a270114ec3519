import { dirname, join } from "node:path";
import type {
  CompletionWaiver,
  GateOutcome,
  MutationRecord,
  TurnProof,
  TurnProofTrust,
  VerificationCommand,
  VerificationReport,
  VerificationSummary,
} from "@turngate/core";
import { TurngateValidationError } from "@turngate/core";
import {
  type AgentSurvivor,
  type CheckShell,
  childPids,
  createTurnMarker,
  DEFAULT_AGENT_GRACE_MS,
  type EnvironmentBaseline,
  ensureDirectory,
  exitOnTerminationSignals,
  fileFingerprint,
  HOOK_SETTINGS_PATHS,
  harnessGateFiles,
  type IsolationRequest,
  killTrackedProcessGroups,
  type ProofFormat,
  type ReportBinding,
  requiredPresetCommands,
  resolveSigningKey,
  Session,
  type SessionCheckEnvironment,
  type SessionIsolation,
  SIGNING_KEY_ENV,
  type SourceTree,
  type SubreaperStatus,
  setChildSubreaper,
  signalExitCode,
  signTurnProof,
  TURNGATE_DIR,
  turngatePaths,
  type VerifyCommandsResult,
  type WorkspaceDelta,
  type WorkspaceSnapshot,
  withTurnMarker,
  writeJsonAtomic,
} from "@turngate/node";
import { type AgentExit, agentDetachedByDefault, runAgent } from "./agent.js";
import { recordTurnTimingsReported } from "./check-profiles.js";
import { CONFIG_FILE_NAME, type TurngateConfig } from "./config.js";
import {
  type ChosenConfig,
  type ConfigSource,
  chainConfigAfter,
  chooseTurnConfig,
} from "./config-source.js";
import {
  CONFINED_AGENT_FAILED_HINT,
  type ConfinedAgent,
  confineAgent,
  confineFailed,
  egressRefusedLine,
  placeholdersKeptLine,
  removeConfineLeftovers,
  withoutSandboxTeardown,
} from "./confine-agent.js";
import {
  CLI_VERSION,
  type CliContext,
  EXIT_INCOMPLETE,
  EXIT_INTERNAL,
  EXIT_OK,
} from "./context.js";
import { createProgressReporter, setupProgressLine } from "./progress.js";
import { type StatePaths, stateWriteProblem } from "./state-dir.js";
import { escapeControls, shownPath } from "./terminal-text.js";
import {
  type SkippedCheck,
  selectChecksByAffected,
  type TurnAffected,
  turnAffectedTargets,
} from "./turn-affected.js";
import { setUpTurnCache, type TurnCache, type TurnCacheReport } from "./turn-cache.js";
import {
  ALLOW_FRESH_ENV,
  carryOf,
  carryOverOutcome,
  readTurnChain,
  type TurnCarry,
  type TurnChain,
  unverifiedAfter,
  unverifiedDigestsAfter,
  writeTurnChain,
} from "./turn-chain.js";

/** Report subject of the checks `turngate run` / `verify` run. */
export const TURN_CHECKS_SUBJECT = "turngate:checks";

/** What one turn needs. */
export interface TurnRequest {
  /** Workspace root (absolute). */
  root: string;
  /** The agent command (`run`); absent for `verify`, whose turn already happened. */
  agent?: string[];
  /** Where the agent runs when it is not `root` (run from a subdirectory of the repository). */
  agentCwd?: string;
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
  /**
   * With `config`: where it came from, as the baseline stored it (`chooseTurnConfig`); the
   * turn chain records it, so a configuration the agent wrote is not adopted by the next
   * turn (docs/cli.md "Configuration the agent wrote"). Absent: not recorded.
   */
  configSource?: ConfigSource;
  /** Where check logs and proofs go (`--state-dir`); default `<root>/.turngate`. */
  state?: Pick<StatePaths, "logs" | "proofs"> & { dir?: string };
  /** The environment baseline stored with a baseline (`verify`); absent: taken now. */
  environment?: EnvironmentBaseline;
  waivers: CompletionWaiver[];
  /**
   * `--fail-on-agent-error`: an agent that exited with a code other than 0 makes the turn
   * exit 1 where it would exit 0 (verified, waived, narrative); the verdict is unchanged.
   */
  failOnAgentError?: boolean;
  /** How the proof is signed: `--key` (else `TURNGATE_SIGNING_KEY`, else the user's key) and `--format`. */
  signing?: { keyFile?: string; format: ProofFormat };
  /** The host's claim about the agent (`--sandboxed`); default `unsandboxed`. */
  trust?: TurnProofTrust;
  /**
   * `run --confine` (docs/guarantees.md "Confined agents"): run the agent in turngate's sandbox;
   * also on with the configuration's `confine_agent`. The proof then records `trust: confined`.
   */
  confine?: boolean;
  /** `--verifier CMD`: the read-only verifier command (issue 13), off when absent. */
  verifier?: string;
  /** With `baseline`: its git tree id as stored by `turngate baseline`. */
  baselineTree?: SourceTree;
  /**
   * `turngate run`'s turn chain (docs/cli.md "Gapless turns"): the turn starts from the state the
   * previous turn was judged on (read from `path`; none yet, or `fresh`: a new baseline),
   * and the state this turn is judged on is written there when it is decided. With
   * `carried` (`turngate verify`, the hooks' stop), the chain file is not read: the turn
   * starts from `baseline`, and what it inherits (unverified paths and digests, the paths
   * changed between turns) is `carried`.
   */
  chain?: { path: string; fresh?: boolean; carried?: TurnCarry };
  /**
   * `--isolation` (docs/design.md §3b); absent: the configuration's `isolation`, else
   * `auto` (clean-room where the sandbox starts, else in-place with one line saying why).
   */
  isolation?: IsolationRequest;
  /**
   * Called once the effect digest exists and before the checks run (hooks: the failure
   * cache, issue 19). Returning true skips the checks: the turn is then judged without a
   * report (never allowed unless waived or narrative), so a skip can only keep a turn from
   * passing, never make it pass.
   */
  beforeChecks?: (facts: {
    effectDigest: string;
    commands: VerificationCommand[];
    session: Session;
  }) => Promise<boolean>;
  /**
   * A deadline of the caller (the hooks' stop budget, docs/hooks.md "Time budget of a
   * stop"): when it aborts, the running dependency setup or check is stopped (its process
   * group killed; it fails as `cancelled`) and no later check starts, as on a first SIGINT.
   */
  signal?: AbortSignal;
}

/** The agent of a `turngate run` turn: how it ended and what it left running. */
export interface TurnAgent {
  command: string[];
  exit: AgentExit;
  /** Processes still running after it exited (found, then exited by themselves, killed or unkillable). */
  survivors: AgentSurvivor[];
  /** Whether turngate was a child subreaper while the agent ran (and why not). */
  subreaper: SubreaperStatus;
  /** The grace the survivors got before SIGKILL, ms. */
  graceMs: number;
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
  agent?: TurnAgent;
  delta: WorkspaceDelta;
  effectDigest: string;
  checksSource?: ChecksSource;
  verification?: VerifyCommandsResult;
  reports: VerificationReport[];
  summary: VerificationSummary;
  summaryText: string;
  outcome: GateOutcome;
  proofPath?: string;
  /**
   * When the turn changed something (whatever the outcome): sign and write the turn proof
   * to `<state>/proofs/<digest>.json` with `extra` fields added (the hook's `loop`, issue 19
   * item 3), replacing the one written for an allowed turn. Output: the file's path.
   * Errors: file-system errors of the atomic write.
   */
  writeProof?: (extra: Pick<TurnProof, "loop">) => Promise<string>;
  /** Where `writeProof` writes (set with it). */
  proofFile?: string;
  /**
   * Why the proof of an allowed turn could not be written (a read-only state folder, …): the
   * verdict stands and is printed, the exit code is 1 (issue 34 item 6).
   */
  proofError?: string;
  /** Why the turn chain (the next run's baseline) could not be written; exit 1. */
  chainError?: string;
  /** How the proof was written: its format and the signing key's id. */
  proofSignature?: { format: ProofFormat; keyid: string };
  /**
   * What stood between the agent and the gate, printed as `trust: …`: `confined` when the
   * agent ran in turngate's sandbox, else the host's claim (`sandboxed`) or `unsandboxed`.
   */
  trust: TurnProofTrust;
  /** Where the checks ran (docs/design.md §3b), as the session decided it: never a claim. */
  isolation: SessionIsolation;
  configPath?: string;
  /** The host waivers the turn was given (`--waive`), as given. */
  waivers: CompletionWaiver[];
  /** The shell the checks ran with (resolved at baseline time, issue 10). */
  shell: CheckShell;
  /** User-level files changed since the baseline: the ledger's `environment` rows. */
  environmentChanges: { path: string; contentDigest: string }[];
  /** The mutation ledger's rows the effect digest is computed over (canonical order). */
  records: MutationRecord[];
  /**
   * The git tree ids of the source scope at the baseline and at the end of the turn
   * (`sourceTreeId`; the end's is written even when the turn was not allowed, for the
   * view's diffs), or why there are none; absent when the session recorded no trees.
   */
  trees?: { baseline: string | null; final: string | null; reason: string | null };
  /**
   * The turn's affected targets (issue 15), or why they could not be computed; absent when
   * nothing in the source scope changed. Informational: never part of the verdict.
   */
  affected?: TurnAffected;
  /** Configured checks `checks_from_affected` left out (absent when it is off or none was). */
  skippedChecks?: SkippedCheck[];
  /** What the result cache did (issue 20); absent when the config has no `cache` block or no check ran. */
  cache?: TurnCacheReport;
  /**
   * With `request.chain`: the previous turn (null: none, or `--fresh`), the source paths
   * that changed between it and this turn's start (by the user or another process: they
   * are this turn's ledger rows), and the paths still unverified after this turn.
   */
  chain?: {
    previous: { verdict: string; reason: string | null; endedAt: string } | null;
    fresh: boolean;
    betweenTurns: string[];
    unverified: string[];
    /**
     * The configuration file on disk was written by the agent in a turn the host has not
     * accepted, so this turn kept the earlier configuration (docs/cli.md "Configuration the
     * agent wrote"): the file and the effect digest of that turn.
     */
    configKept?: { path: string; since: string };
    /** The host's `--waive` named the turn that wrote the configuration file: adopted this turn. */
    configAdoptedBy?: string;
  };
  /** When the turn started and was decided (ISO 8601). */
  startedAt: string;
  finishedAt: string;
}

/**
 * One turn, the code path shared by `turngate run`, `turngate verify` and `turngate demo`:
 * baseline (or the stored one) → agent (if any; then what it left running is found and
 * killed, `runAgentTurn`) → observe → ledger → nothing changed:
 * narrative; else the checks (flags, config or required presets; the configuration's
 * `timeout_ms` is the default of each) bound to the effect
 * digest → gate → proof at `<state>/proofs/<digest>.json` (default state folder
 * `<root>/.turngate`) when the turn is allowed and changed something: a DSSE envelope
 * signed with the key `resolveSigningKey` gives (`request.signing`), resolved before the
 * agent runs, over the proof or its in-toto Statement. `request.config`
 * (verify: the configuration captured in the baseline) is used as given; otherwise the
 * configuration is chosen now, before the agent runs (`chooseTurnConfig`: a configuration
 * file the agent wrote in an earlier turn of the chain that the host did not accept is not
 * adopted, and one line on stderr says so). With a chain, the configuration in effect and
 * whether the file on disk is the agent's (`chainConfigAfter`) are recorded for the next turn.
 *
 * While checks run, SIGINT/SIGTERM abort them (the check fails as cancelled and the turn is
 * judged); a second one, or a SIGHUP, kills their process groups and exits with 128 + the
 * signal number.
 * Errors: config, waiver, signing-key (`signing_key_invalid`, `signing_key_in_workspace`)
 * and observer errors, and `AgentSpawnError`, propagate.
 */
export async function runTurn(request: TurnRequest, ctx: CliContext): Promise<TurnResult> {
  const startedMs = ctx.now?.() ?? Date.now();
  // A confined turn that never ended (turngate killed) may have left gate-file placeholders.
  removeConfineLeftovers(request.state?.dir ?? join(request.root, TURNGATE_DIR), ctx.stderr);
  const carried = request.chain?.carried;
  const previous: TurnChain | undefined =
    request.chain !== undefined && request.chain.fresh !== true && carried === undefined
      ? await readTurnChain(request.chain.path, request.root)
      : undefined;
  // The configuration is captured now, before the agent runs; one the agent wrote in an
  // earlier turn the host did not accept is not adopted (docs/cli.md "Configuration the agent
  // wrote").
  let config: TurngateConfig;
  let configSource: ConfigSource | undefined;
  let chosen: ChosenConfig | undefined;
  if (request.config !== undefined) {
    config = request.config;
    configSource = request.configSource;
  } else {
    chosen = chooseTurnConfig(request.root, request.configPath, previous?.config, request.waivers);
    config = chosen.config;
    configSource = chosen.source;
    if (chosen.kept !== undefined) ctx.stderr.write(`turngate: ${chosen.kept}\n`);
    if (chosen.adoptedBy !== undefined) {
      ctx.stderr.write(
        `turngate: ${shownPath(request.root, chosen.source.path)}, written by the agent in the turn with effect digest ${chosen.adoptedBy}, is adopted: your --waive names that turn\n`,
      );
    }
  }
  const state = request.state ?? turngatePaths(request.root);
  // Resolved before the agent runs: a bad key fails the turn before anything happens, and a
  // new key is generated by turngate, never during the agent's turn.
  const key = resolveSigningKey({
    ...(request.signing?.keyFile !== undefined ? { keyFile: request.signing.keyFile } : {}),
    env: ctx.env,
    root: request.root,
    cwd: ctx.cwd,
  });
  // Recorded from what runs, never from a claim: a confined agent that cannot be started
  // fails the turn before anything happens (confineAgent).
  const confined =
    request.agent !== undefined && (request.confine === true || config.confineAgent === true);
  const trust: TurnProofTrust = confined ? "confined" : (request.trust ?? "unsandboxed");
  // The agent and the checks never see the signing key, even one given inline, nor the
  // host's consent to drop the turn chain.
  const { [SIGNING_KEY_ENV]: _key, [ALLOW_FRESH_ENV]: _fresh, ...env } = ctx.env;
  if (confined) {
    // The state folder inside the workspace exists before the baseline, so that it is bound
    // read-only for the confined agent (which could otherwise create it and plant files).
    const stateDir = state.dir ?? join(request.root, TURNGATE_DIR);
    if (stateDir.startsWith(`${request.root}/`)) await ensureDirectory(stateDir);
  }
  const prior: TurnCarry | undefined =
    carried ?? (previous !== undefined ? carryOf(previous, []) : undefined);
  const baseline = request.baseline ?? previous?.snapshot;
  const startTree = request.baseline ? request.baselineTree : previous?.gitTree;
  const session = await Session.start({
    root: request.root,
    ignores: config.ignores,
    ...(config.outputs !== undefined ? { outputs: config.outputs } : {}),
    ...(config.defaultOutputs !== undefined ? { defaultOutputs: config.defaultOutputs } : {}),
    waivers: request.waivers,
    env,
    logDir: state.logs,
    toolVersions: { turngate: CLI_VERSION },
    trust,
    rewritePaths: config.rewritePaths,
    ...(baseline ? { baseline } : {}),
    ...(config.agentGraceMs !== undefined ? { agentGraceMs: config.agentGraceMs } : {}),
    ...(startTree ? { baselineTree: startTree } : {}),
    // The previous turn's own room work came after its judged snapshot (this baseline).
    ...(baseline !== undefined && prior?.previous
      ? { previousTurnEndedMs: Date.parse(prior.previous.endedAt) }
      : {}),
    // The room is trusted up to the chain's seal: a turn that changed nothing never opened
    // it, so its agent's writes there are after that turn's end (docs/design.md §3b).
    ...(baseline !== undefined && prior?.previous?.roomSealedAt !== undefined
      ? { roomSealedMs: prior.previous.roomSealedAt }
      : {}),
    checkEnvironment: turnCheckEnvironment(request.root, config, state.dir, request.environment),
    ...(request.verifier !== undefined ? { verifier: { command: request.verifier } } : {}),
    isolation: request.isolation ?? config.isolation ?? isolationFromEnv(ctx.env) ?? "auto",
    ...(config.network !== undefined ? { network: config.network } : {}),
    ...(config.setup !== undefined ? { setup: config.setup } : {}),
  });
  // From here on the agent may act (or has, before `verify`): whatever ends this turn, the
  // chain is rewritten, so a chain the agent planted in the state folder is never the next
  // turn's (docs/design.md §3b "Gapless turns").
  let chainWritten = false;
  try {
    // What changed since the previous turn was judged, before this turn's agent ran: by the
    // user or another process; those changes are rows of this turn's ledger.
    const betweenTurns =
      carried !== undefined
        ? carried.betweenTurns
        : previous !== undefined
          ? (await session.observeWorkspace({ userFiles: false })).changes.map(
              (change) => change.path,
            )
          : [];

    let agent: TurnResult["agent"];
    if (request.agent) {
      let confinement: ConfinedAgent | undefined;
      if (confined) {
        const stateDir = state.dir ?? join(request.root, TURNGATE_DIR);
        confinement = await confineAgent(request.agent, {
          root: request.root,
          cwd: request.agentCwd ?? request.root,
          hostEnv: ctx.env,
          agentEnv: env,
          stateDir,
          ...(key.path !== undefined ? { keyFile: key.path } : {}),
          ...(config.path !== undefined ? { configFile: config.path } : {}),
          ...(config.agentWritable !== undefined ? { agentWritable: config.agentWritable } : {}),
          ...(config.agentNetwork !== undefined ? { network: config.agentNetwork } : {}),
          ...(config.agentNetworkAllow !== undefined
            ? { networkAllow: config.agentNetworkAllow }
            : {}),
          newSession: agentDetachedByDefault(),
        });
      }
      try {
        agent = await runAgentTurn(request.agent, session, config, request, ctx, env, confinement);
      } finally {
        // The gate-file placeholders go before the workspace is observed: never in a digest.
        if (confinement !== undefined) {
          placeholdersKeptLine(confinement.cleanup().kept, ctx.stderr);
          const refused = egressRefusedLine(confinement.egress);
          if (refused !== undefined) ctx.stderr.write(refused);
        }
      }
    }

    const delta = await session.observeWorkspace();
    // The in-process listing left the repository to git: said, never a silent difference.
    const listedByGit = session.judgedSnapshot()?.listed_by_git;
    if (listedByGit !== undefined) {
      ctx.stderr.write(
        `turngate: the workspace was listed by git, not in-process: ${escapeControls(listedByGit)}\n`,
      );
    }
    // The affected targets only choose the checks with `checks_from_affected`; otherwise they
    // are facts for the summary and the view, computed while the checks run (never throws).
    const affectedWork = delta.changes.some((c) => c.scope === "source")
      ? turnAffectedTargets(
          request.root,
          delta,
          config,
          state.dir ?? join(request.root, TURNGATE_DIR),
          session.judgedSnapshot(),
        )
      : undefined;
    let affected = config.checksFromAffected === true ? (await affectedWork)?.affected : undefined;
    let checksSource: ChecksSource | undefined;
    let skippedChecks: SkippedCheck[] | undefined;
    let verification: VerifyCommandsResult | undefined;
    let turnCache: TurnCache | undefined;
    if (session.records.length > 0) {
      let commands: VerificationCommand[];
      if (request.checks.length > 0) {
        checksSource = "flags";
        commands = withDefaultTimeout(request.checks, config.timeoutMs);
      } else if (config.checks.length > 0) {
        checksSource = "config";
        commands = config.checks;
        if (config.checksFromAffected === true) {
          const selected = selectChecksByAffected(commands, config.checkTargets ?? {}, affected);
          commands = selected.run;
          if (selected.skipped.length > 0) skippedChecks = selected.skipped;
        }
      } else {
        const presets = session.verificationPresets();
        commands = withDefaultTimeout(
          requiredPresetCommands(presets, session.root),
          config.timeoutMs,
        );
        checksSource = commands.length > 0 ? "presets" : "none";
      }
      const skip =
        commands.length > 0 && request.beforeChecks !== undefined
          ? await request.beforeChecks({ effectDigest: session.effectDigest, commands, session })
          : false;
      if (commands.length > 0 && !skip && config.cache !== undefined) {
        turnCache = await setUpTurnCache({
          config: config.cache,
          root: request.root,
          session,
          delta,
          stateDir: state.dir ?? join(request.root, TURNGATE_DIR),
          signingKey: key,
          env,
          confined,
          warn: (line) => ctx.stderr.write(`turngate: ${line}\n`),
        });
      }
      if (commands.length > 0 && !skip) {
        // The sandbox is started when checks first need it (issue 33: a turn that changed
        // nothing starts none), so the in-place fallback line is printed here.
        const isolation = await session.decideIsolation();
        if (isolation.mode === "in-place" && isolation.reason !== undefined) {
          ctx.stderr.write(`turngate: ${inPlaceFallbackLine(isolation.reason)}\n`);
        }
        verification = await withInterruptibleChecks(request.signal, async (signal) => {
          const progress = createProgressReporter(ctx.stderr);
          try {
            return await session.verifyCommands(TURN_CHECKS_SUBJECT, commands, {
              bind: true,
              onProgress: progress.onProgress,
              onSetup: (event) => ctx.stderr.write(`${setupProgressLine(event)}\n`),
              signal,
              ...(turnCache ? { cache: turnCache.hook } : {}),
            });
          } finally {
            progress.close();
          }
        });
        if (turnCache) await turnCache.storeRuns(verification);
      }
    }

    // The refreshed code index is written once the checks are over (in place, a write into
    // .turngate/ while they run is what their observer refuses).
    const affectedDone = await affectedWork;
    const unsaved = await affectedDone?.saveIndex();
    if (unsaved !== undefined) {
      ctx.stderr.write(
        `turngate: the code index was not saved (${escapeControls(unsaved)}); it is built again next turn\n`,
      );
    }
    affected ??= affectedDone?.affected;
    let outcome = await session.decide();
    // A turn that changed nothing after an unverified one is not "narrative": the earlier
    // change is still in the tree, unchecked (docs/cli.md "Gapless turns").
    if (
      outcome.kind === "allow" &&
      outcome.terminal.kind === "narrative" &&
      prior !== undefined &&
      prior.unverifiedPaths.length > 0
    ) {
      outcome = carryOverOutcome(
        prior.unverifiedPaths,
        prior.unverifiedDigests,
        request.waivers,
        carried !== undefined ? "turngate baseline --fresh" : "turngate run --fresh",
      );
    }
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
      // The delta the ledger (and so the digest) was last built from: a "rewrite_paths"
      // re-run adopts the lockfiles the checks rewrote.
      delta: session.lastDelta ?? delta,
      effectDigest: session.effectDigest,
      reports: session.verificationReports(),
      summary: session.verificationSummary(),
      summaryText: session.verificationSummaryText(),
      outcome,
      waivers: request.waivers,
      trust,
      isolation: session.isolation,
      shell: session.environmentBaseline.plan.shell,
      environmentChanges: session.environmentChanges,
      records: session.records,
      startedAt: new Date(startedMs).toISOString(),
      finishedAt: new Date(ctx.now?.() ?? Date.now()).toISOString(),
    };
    const baselineTree = session.baselineTree;
    let judgedTree: SourceTree | undefined;
    if (baselineTree !== undefined) {
      // The end's tree for the view's diffs: the proof's when the turn was allowed (checked
      // against the judged bytes, so the next turn may build on it even after a baseline
      // without a tree), else written now (objects only, a temporary index: the user's index
      // is not touched).
      const finalTree =
        session.effectDigest === ""
          ? baselineTree
          : outcome.kind === "allow"
            ? {
                tree: session.proof().workspace?.final_tree ?? null,
                reason: session.proof().workspace?.tree_reason ?? null,
              }
            : baselineTree.tree === null
              ? baselineTree
              : await session.sourceTreeNow();
      judgedTree =
        finalTree.tree !== null
          ? { tree: finalTree.tree, reason: null }
          : { tree: null, reason: finalTree.reason ?? "no git tree id" };
      result.trees = {
        baseline: baselineTree.tree,
        final: finalTree.tree,
        reason: baselineTree.reason ?? finalTree.reason,
      };
    }
    if (request.chain !== undefined) {
      const unverified = unverifiedAfter(
        outcome,
        prior?.unverifiedPaths ?? [],
        outcome.kind !== "allow" && outcome.paths !== undefined
          ? outcome.paths
          : session.records.map((record) => record.path),
      );
      result.chain = {
        previous: prior?.previous ?? null,
        fresh: request.chain.fresh === true,
        betweenTurns,
        unverified,
      };
      if (configSource !== undefined && configSource.pendingSince !== null) {
        result.chain.configKept = { path: configSource.path, since: configSource.pendingSince };
      }
      if (chosen?.adoptedBy !== undefined) result.chain.configAdoptedBy = chosen.adoptedBy;
      const judged = session.judgedSnapshot() ?? session.baseline;
      const chain: TurnChain = {
        root: request.root,
        endedAt: result.finishedAt,
        verdict: outcome.kind === "allow" ? outcome.terminal.kind : outcome.kind,
        reason: outcome.kind === "allow" ? null : outcome.reason,
        effectDigest: session.effectDigest,
        unverifiedPaths: unverified,
        unverifiedDigests: unverifiedDigestsAfter(
          outcome,
          prior?.unverifiedDigests ?? [],
          session.effectDigest,
        ),
        snapshot: judged,
        roomSealedAt: session.roomSealedMs ?? prior?.previous?.roomSealedAt ?? null,
      };
      if (judgedTree !== undefined) chain.gitTree = judgedTree;
      if (configSource !== undefined) {
        chain.config = chainConfigAfter(
          configSource,
          session.environmentBaseline.reviewFiles[configSource.path] ?? configSource.digest,
          fileFingerprint(configSource.path),
          outcome,
          session.effectDigest,
          request.waivers,
        );
      }
      try {
        chainWritten = true;
        await writeTurnChain(request.chain.path, chain);
      } catch (error) {
        // The verdict is still printed; without the chain the next run could not start from
        // the state this one was judged on, so the exit code says it is missing.
        result.chainError = stateWriteProblem(error, dirname(request.chain.path));
        if (result.exitCode === 0) result.exitCode = EXIT_INTERNAL;
      }
    }
    if (agent) result.agent = agent;
    if (affected) result.affected = affected;
    if (skippedChecks) result.skippedChecks = skippedChecks;
    if (checksSource) result.checksSource = checksSource;
    if (verification) result.verification = verification;
    if (turnCache) result.cache = turnCache.report;
    if (config.path) result.configPath = config.path;
    if (session.effectDigest !== "") {
      const proofPath = join(state.proofs, `${session.effectDigest}.json`);
      const format = request.signing?.format ?? "dsse";
      const proof = session.proof({ incomplete: true });
      // A refused turn's decision kept the baseline tree: its end is the tree written above.
      if (outcome.kind !== "allow" && proof.workspace !== undefined && result.trees) {
        proof.workspace = { ...proof.workspace, final_tree: result.trees.final };
      }
      result.proofFile = proofPath;
      result.writeProof = async (extra) => {
        await writeJsonAtomic(proofPath, signTurnProof({ ...proof, ...extra }, key, format));
        return proofPath;
      };
      if (outcome.kind === "allow") {
        try {
          await writeJsonAtomic(proofPath, signTurnProof(proof, key, format));
          result.proofPath = proofPath;
          result.proofSignature = { format, keyid: key.keyid };
        } catch (error) {
          // The verdict is still printed (issue 34 item 6); the exit code says the proof is missing.
          result.proofError = stateWriteProblem(error, state.dir ?? dirname(state.proofs));
          result.exitCode = EXIT_INTERNAL;
        }
      }
    }
    return result;
  } catch (error) {
    if (request.chain !== undefined && !chainWritten) {
      await writeFailedTurnChain(request, session, prior, configSource, error, ctx);
    }
    throw error;
  }
}

/** Gate reason a turn chain records for a turn that ended abnormally (`writeFailedTurnChain`). */
export const TURN_FAILED_REASON = "turn_failed";

/**
 * Write the turn chain of a turn that ended abnormally once the agent could act (an error
 * thrown after `Session.start`: the checks, the room, the observation, turngate's own
 * post-processing), so that a chain the agent planted in the state folder is replaced
 * (docs/design.md §3b "Gapless turns"): verdict `incomplete`, reason `turn_failed` with the
 * error's message; the snapshot is this turn's baseline (and its git tree), so every change
 * the turn made is a row of the next turn's ledger however far this one got; the unverified
 * paths and digests are the earlier ones plus this turn's ledger rows and digest when it had
 * any; the configuration in effect and the room's seal are carried. Never throws: a chain
 * that cannot be written is said on stderr (`turn chain: not written: …`), and the turn's
 * own error is what propagates.
 */
async function writeFailedTurnChain(
  request: TurnRequest,
  session: Session,
  prior: TurnCarry | undefined,
  configSource: ConfigSource | undefined,
  error: unknown,
  ctx: CliContext,
): Promise<void> {
  const path = request.chain?.path;
  if (path === undefined) return;
  try {
    const message = error instanceof Error ? error.message : String(error);
    const digest = session.effectDigest;
    // Not allowed: nothing this turn changed is taken as verified.
    const outcome: GateOutcome = {
      kind: "incomplete",
      reason: "unverified_mutation",
      message: `completion gate: the turn ended abnormally: ${message}`,
      effect_digest: digest,
    };
    const chain: TurnChain = {
      root: request.root,
      endedAt: new Date(ctx.now?.() ?? Date.now()).toISOString(),
      verdict: "incomplete",
      reason: `${TURN_FAILED_REASON}: ${message}`,
      effectDigest: digest,
      unverifiedPaths: unverifiedAfter(
        outcome,
        prior?.unverifiedPaths ?? [],
        session.records.map((record) => record.path),
      ),
      unverifiedDigests: unverifiedDigestsAfter(outcome, prior?.unverifiedDigests ?? [], digest),
      snapshot: session.baseline,
      roomSealedAt: session.roomSealedMs ?? prior?.previous?.roomSealedAt ?? null,
    };
    const tree = session.baselineTree;
    if (tree !== undefined) {
      chain.gitTree =
        tree.tree !== null
          ? { tree: tree.tree, reason: null }
          : { tree: null, reason: tree.reason ?? "no git tree id" };
    }
    if (configSource !== undefined) {
      const start =
        session.environmentBaseline.reviewFiles[configSource.path] ?? configSource.digest;
      chain.config = chainConfigAfter(configSource, start, start, outcome, digest, request.waivers);
    }
    await writeTurnChain(path, chain);
  } catch (writeError) {
    ctx.stderr.write(
      `turngate: turn chain: not written: ${stateWriteProblem(writeError, dirname(path))}\n`,
    );
  }
}

/** The host's default isolation when neither `--isolation` nor the configuration names one. */
export const ISOLATION_ENV = "TURNGATE_ISOLATION";

/**
 * `TURNGATE_ISOLATION` (`auto`, `clean-room` or `in-place`) from the host's environment, or
 * undefined when unset. Order of precedence: `--isolation`, the configuration's
 * `isolation`, this variable, `auto`. Errors: `TurngateValidationError` (path
 * `TURNGATE_ISOLATION`) for another value.
 */
export function isolationFromEnv(env: NodeJS.ProcessEnv): IsolationRequest | undefined {
  const value = env[ISOLATION_ENV];
  if (value === undefined || value === "") return undefined;
  if (value === "auto" || value === "clean-room" || value === "in-place") return value;
  throw new TurngateValidationError("TURNGATE_ISOLATION value", [
    {
      path: ISOLATION_ENV,
      message: `${JSON.stringify(value)} is not an isolation mode: use auto, clean-room or in-place`,
    },
  ]);
}

/**
 * The one line `run`/`verify` print when `auto` isolation falls back to in-place: why, and
 * what in-place checks weaken (docs/design.md §3a–3b).
 */
export function inPlaceFallbackLine(reason: string): string {
  return `checks run in place, not in a clean room: ${reason}. In place, the checks see the agent's whole workspace (ignored files, .git) and your home folder, so a cheating agent has more ways to a false verified; install bubblewrap to check a clean copy, or set "isolation": "in-place" to silence this line`;
}

/** Signals that end the survivors' grace at once instead of ending turngate. */
const SETTLE_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/**
 * Run the agent (issue 10, "Processes the agent left running"): with a fresh
 * `TURNGATE_TURN` marker in its environment, in its own session and process group unless
 * stdin is a terminal, with turngate a child subreaper while it runs (Linux, when
 * `@turngate/native` is built). After it exits, `session.settleAgentProcesses` finds what
 * it left running (group, session, marker, subreaper), waits `agent_grace_ms` and SIGKILLs it; an
 * unkillable survivor keeps the turn incomplete. Only then is the workspace observed.
 * `env` is the agent's environment before the marker (the signing key already removed).
 * Errors: `AgentSpawnError`; a process table that cannot be read.
 */
async function runAgentTurn(
  command: string[],
  session: Session,
  config: TurngateConfig,
  request: TurnRequest,
  ctx: CliContext,
  env: NodeJS.ProcessEnv,
  confinement?: ConfinedAgent,
): Promise<TurnAgent> {
  const marker = createTurnMarker();
  // turngate's own children (e.g. a loader's service process) are never the agent's orphans.
  const ownChildren = childPids();
  const subreaper = setChildSubreaper(true);
  // A SIGINT/SIGTERM/SIGHUP from here on ends the survivors' grace at once (they are
  // killed and the turn goes on); installed before the agent runs, so no signal lands in a
  // moment without a handler, which would kill turngate and leave the survivors running.
  const hurry = new AbortController();
  const onSignal = () => hurry.abort();
  for (const name of SETTLE_SIGNALS) process.on(name, onSignal);
  try {
    const exit = await runAgent(confinement?.argv ?? command, request.agentCwd ?? request.root, {
      env: withTurnMarker(confinement?.env ?? env, marker),
      stdoutToStderr: request.agentStdoutToStderr === true,
      ...(ctx.agentOutput ? { output: ctx.agentOutput } : {}),
      ...(confinement ? { startReport: true, seccompFilter: confinement.seccompFilter } : {}),
      ...(confinement?.egress !== undefined ? { egress: confinement.egress } : {}),
      ...(confinement?.egressChannel !== undefined
        ? { egressChannel: confinement.egressChannel }
        : {}),
    });
    if (confinement !== undefined && exit.started !== true) throw confineFailed(exit.exitCode);
    ctx.stderr.write(`turngate: agent exited with code ${exit.exitCode}\n`);
    if (confinement !== undefined && exit.exitCode !== 0)
      ctx.stderr.write(CONFINED_AGENT_FAILED_HINT);
    const graceMs = config.agentGraceMs ?? DEFAULT_AGENT_GRACE_MS;
    const settlement = await session.settleAgentProcesses({
      marker,
      subreaper: subreaper.active,
      excludePids: ownChildren,
      graceMs,
      signal: hurry.signal,
      ...(exit.detached && exit.pid !== undefined
        ? { processGroup: exit.pid, session: exit.pid }
        : {}),
    });
    const survivors =
      confinement !== undefined
        ? withoutSandboxTeardown(settlement.survivors, confinement.argv)
        : settlement.survivors;
    return { command, exit, survivors, subreaper, graceMs };
  } finally {
    for (const name of SETTLE_SIGNALS) process.off(name, onSignal);
    if (subreaper.active) setChildSubreaper(false);
  }
}

/**
 * The Session's `checkEnvironment` for a turn (issue 10): the config's `shell` and
 * `allow_env`, the state folder (`CARGO_TARGET_DIR` under it), the configuration file as
 * a review file (an agent edit, or a file created where none was, ends `needs_review`:
 * the turn uses the configuration read before the agent ran), the harnesses' hook settings
 * in the workspace (`HOOK_SETTINGS_PATHS`) and the workspace programs the harnesses' settings
 * name (`harnessGateFiles`: hook scripts, MCP servers, subagent front matter with hooks; created, changed or removed ends
 * `needs_review`, docs/design.md §3b), and the stored environment baseline when there is one (`verify`).
 */
export function turnCheckEnvironment(
  root: string,
  config: TurngateConfig,
  stateDir: string | undefined,
  stored: EnvironmentBaseline | undefined,
): SessionCheckEnvironment {
  const options: SessionCheckEnvironment = {
    reviewFiles: [config.path ?? join(root, CONFIG_FILE_NAME)],
    hookFiles: [
      ...HOOK_SETTINGS_PATHS.map((path) => join(root, path)),
      ...harnessGateFiles(root, process.env),
    ],
  };
  if (config.shell !== undefined) options.shell = config.shell;
  if (config.allowEnv !== undefined) options.allowEnv = config.allowEnv;
  if (stateDir !== undefined) options.stateDir = stateDir;
  if (stored !== undefined) options.baseline = stored;
  return options;
}

/**
 * Run the checks with signal handlers in place, so that no check outlives turngate:
 * - the first SIGINT or SIGTERM aborts `signal` (the running check is stopped and fails as
 *   cancelled, later ones do not start, and the turn is judged);
 * - a second SIGINT or SIGTERM, and any SIGHUP (the terminal is gone: nobody reads a
 *   verdict), SIGKILL the checks' process groups and exit with 128 + the signal number
 *   (130, 143, 129) — Node's default death on a signal would leave them running.
 * `deadline` (the request's `signal`), when given, aborts `signal` as a first SIGINT does.
 */
async function withInterruptibleChecks<T>(
  deadline: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
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
    return await run(
      deadline !== undefined ? AbortSignal.any([controller.signal, deadline]) : controller.signal,
    );
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    releaseHangup();
  }
}

/**
 * `commands` with `timeoutMs` (the configuration's top-level `timeout_ms`) set on those
 * without their own: the default applies to `--check` and preset checks as docs/configuration.md
 * says, not only to checks listed in the configuration (issue #12 item 1). Unchanged when
 * undefined.
 */
export function withDefaultTimeout(
  commands: readonly VerificationCommand[],
  timeoutMs: number | undefined,
): VerificationCommand[] {
  if (timeoutMs === undefined) return [...commands];
  return commands.map((c) => (c.timeout_ms === undefined ? { ...c, timeout_ms: timeoutMs } : c));
}

/**
 * The binding of the checks' report in wire form (snake_case), or null when none ran:
 * `{bound: true, effect_digest}` or `{bound: false, reason, …}` (for
 * `workspace_changed_during_check` also `changed_paths`, `unreadable`, and `changes`
 * `[{path, change}]` / `created` when there are any); plus, when present, `hint` (what to
 * do), `check_outputs` `{count, paths: [{path, change, scope}]}` (capped list, exact count)
 * and `rewrites` `[{path, check_id}]` (issue 10).
 */
export function bindingJson(binding: ReportBinding | undefined): Record<string, unknown> | null {
  if (!binding) return null;
  let out: Record<string, unknown>;
  if (binding.bound) {
    out = { bound: true, effect_digest: binding.effectDigest };
    if (binding.changedAfter) out.changed_after = binding.changedAfter;
  } else if (binding.reason === "workspace_changed_during_check") {
    out = {
      bound: false,
      reason: binding.reason,
      changed_paths: binding.changedPaths,
      unreadable: binding.unreadable,
    };
    if (binding.changes) out.changes = binding.changes;
    if (binding.created) out.created = binding.created;
  } else out = { bound: false, reason: binding.reason };
  if ("hint" in binding) out.hint = binding.hint;
  if ("checkOutputs" in binding && binding.checkOutputs) out.check_outputs = binding.checkOutputs;
  if ("rewrites" in binding && binding.rewrites) {
    out.rewrites = binding.rewrites.map((r) => ({ path: r.path, check_id: r.checkId }));
  }
  return out;
}
