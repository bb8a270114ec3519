import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  acceptReport,
  CORE_VERSION,
  type CompletionAttestor,
  type CompletionWaiver,
  type ContentHasher,
  createReport,
  decideCompletion,
  type ExternalObservation,
  type ExternalObservationInput,
  formatVerificationSummary,
  type GateOutcome,
  type GoalAchievement,
  goalAchievement,
  MutationLedger,
  type MutationRecord,
  mergeAttestedReport,
  parseCompletionWaiver,
  parseExternalObservation,
  parseVerificationCommand,
  summarizeReports,
  TurngateError,
  TurngateValidationError,
  type TurnProof,
  type TurnProofTrust,
  type VerificationCheck,
  type VerificationCommand,
  type VerificationCommandInput,
  type VerificationPreset,
  type VerificationReport,
  type VerificationReportInput,
  type VerificationSummary,
  verifierToolPolicy,
} from "@turngate/core";
import type { EnvironmentBaseline } from "../environment/environment-baseline.js";
import { turngatePaths } from "../fs/paths.js";
import { RoomChecks, roomCheckEnv } from "../isolation/room-checks.js";
import { RoomSourceChangedError } from "../isolation/room-files.js";
import type { BaselineHead } from "../isolation/room-git.js";
import { type CopiedOutputs, copyRoomOutputs } from "../isolation/room-outputs.js";
import { hostContentHasher } from "../native/content-hasher.js";
import { verificationPresets } from "../presets/detect.js";
import {
  type AgentProcessOptions,
  type AgentProcessSettlement,
  settleAgentProcesses,
} from "../processes/settle.js";
import { SIGNING_KEY_ENV } from "../proofs/signing-key.js";
import { type SourceTree, sourceTreeId } from "../proofs/source-tree.js";
import { treeSnapshotMismatch } from "../proofs/tree-check.js";
import { turnSourceTree } from "../proofs/turn-tree.js";
import type { ShellRunResult } from "../runner/shell.js";
import { runVerificationCommand } from "../runner/verify-command.js";
import { sessionTestHistory } from "../test-history/session-option.js";
import type { TurnTestHistory } from "../test-history/turn-history.js";
import { ledgerPaths, type WorkspaceChange, type WorkspaceDelta } from "../workspace/diff/diff.js";
import {
  AdoptedCheckOutputs,
  type CheckChanges,
  type CheckOutput,
  capCheckOutputs,
  checkChanges,
  checkChangesHint,
  leavesBindingIntact,
  onlyRewrites,
  type RewritePhase,
  sourceDirectories,
  unbindingPaths,
} from "../workspace/diff/during-check.js";
import { rewritePathMatcher, rewritePathProblem } from "../workspace/diff/rewrite-paths.js";
import { untrackedAmong } from "../workspace/listing/untracked-paths.js";
import { WorkspaceObserver } from "../workspace/observer.js";
import type { WorkspaceSnapshot } from "../workspace/snapshot.js";
import { type EnvironmentChange, SessionEnvironment } from "./check-environment.js";
import { type ExistenceEvidence, existenceEvidence } from "./evidence/existence.js";
import { type GoalCriteria, readGoalCriteria } from "./evidence/goal-criteria.js";
import type { RefusedReport, ToolEvidence } from "./evidence/tool-evidence.js";
import { presetCandidates, TurnEvidence } from "./evidence/turn-evidence.js";
import { TurngateGateError, type TurnResult, turnResult } from "./evidence/turn-result.js";
import {
  callWithDeadline,
  commandPolicy,
  failedVerifierReport,
  type SessionVerifier,
  VERIFIER_TIMEOUT_MS,
  type VerifierRun,
  VerifierTimeout,
} from "./evidence/verifier.js";
import {
  decideIsolation,
  type IsolationSetup,
  isolationUnavailableMessage,
  readIsolationBaseline,
  undecidedIsolation,
} from "./isolation.js";
import { buildTurnProof } from "./proof.js";
import type {
  CheckRewrite,
  CommandRun,
  IsolationRequest,
  ReportBinding,
  SessionIsolation,
  SessionOptions,
  VerifyCommandsOptions,
  VerifyCommandsResult,
  WorkspaceChildSettlement,
} from "./types.js";

/** Set by the CLI's bundler to @turngate/node's package.json version; absent otherwise. */
declare const __TURNGATE_NODE_VERSION__: string | undefined;

/**
 * Version of @turngate/node: inlined by the CLI's bundler (a bundle has no package.json at
 * this module's relative path), else read from package.json (same path from src/ and dist/).
 */
const NODE_PACKAGE_VERSION: string =
  typeof __TURNGATE_NODE_VERSION__ === "string"
    ? __TURNGATE_NODE_VERSION__
    : (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

/**
 * What rebuilds the ledger on every workspace observation, in the order it happened: a tool
 * result, or the host settling a background workspace child.
 */
type LedgerEvent =
  | [kind: "tool", tool: string, exitCode: number, metadata: unknown]
  | [kind: "settle", taskId: string];

/**
 * One agent turn observed by a Node host (issue 3; docs/design.md §3): a workspace baseline, the
 * mutation ledger built from tool results and from re-reading the workspace, verification
 * reports, host waivers and attestor, the completion gate and the turn proof.
 *
 * Create with `await Session.start({root, …})`, which takes the baseline (or adopts a
 * stored one). The ledger always describes the latest workspace observation: each
 * `observeWorkspace()` rebuilds it from the tool observations plus the delta against the
 * baseline, so the effect digest binds the bytes as they are now.
 */
export class Session {
  readonly root: string;
  readonly #observer: WorkspaceObserver;
  /** The last `observeWorkspace()` snapshot and the event count then (see #takeFresh). */
  #fresh: { snapshot: WorkspaceSnapshot; events: number } | undefined;
  #baseline: WorkspaceSnapshot;
  readonly #waivers: CompletionWaiver[];
  readonly #attestor: CompletionAttestor | undefined;
  readonly #logDir: string;
  /** The host environment (`options.env` or `process.env`) without the signing key: presets and git. */
  readonly #env: NodeJS.ProcessEnv;
  readonly #toolVersions: Record<string, string>;
  #startedAt: Date;
  readonly #previousTurnEndedMs: number | undefined;
  readonly #roomSealedBeforeMs: number | null | undefined;
  /** `RoomChecks.sealedMs` after this session's last clean-room checks that wrote the room. */
  #roomSealedMs: number | undefined;
  readonly #agentGraceMs: number | undefined;
  #baselineTree: SourceTree | undefined;
  readonly #trust: TurnProofTrust;
  /** SHA-256 of each log this session's checks wrote, by `file:` URL. */
  readonly #evidenceLogs = new Map<string, string>();
  readonly #rewritePaths: readonly string[];
  readonly #isRewritePath: (path: string) => boolean;
  /** Check outputs adopted after each run of the checks: while they hold the state the
   * checks left, later deltas show them as the agent left them (`AdoptedCheckOutputs`). */
  #adopted = new AdoptedCheckOutputs();
  readonly #testHistory: TurnTestHistory;
  #events: LedgerEvent[] = [];
  #delta: WorkspaceDelta | undefined;
  /** The snapshot the ledger was last built from (`#applySnapshot`). */
  #judged: WorkspaceSnapshot | undefined;
  /** The ledger's SHA-256 (issue 17): `@turngate/native`'s or `node:crypto`'s. */
  readonly #hasher: ContentHasher;
  #ledger: MutationLedger;
  #reports: VerificationReport[] = [];
  /** Digests the attestor was already asked about (it is asked once per digest). */
  #attestedDigests = new Set<string>();
  #decision:
    | { outcome: GateOutcome; reports: VerificationReport[]; at: Date; finalTree?: SourceTree }
    | undefined;
  /** Issue 10 (shellenv): the checks' shell, environment and what the turn changed of it. */
  readonly #checkEnvironment: SessionEnvironment;
  /** Issue 13: the turn's evidence sources (tool reports, shell evidence, turn counters). */
  readonly #turn: TurnEvidence;
  /** Issue 13 item 4: existence checks bind only when the host opted in. */
  readonly #existenceEvidence: boolean;
  /** Issue 13 items 5 and 6: the verifier, continuation and external observations. */
  readonly #verifier: SessionVerifier | undefined;
  readonly #allowContinuation: boolean;
  #observations: ExternalObservation[] = [];
  #continuations = 0;
  #verifierRun: VerifierRun | undefined;
  /**
   * docs/design.md §3b: where the checks run. The baseline's HEAD for the room is read at
   * start; the sandbox is started (and the mode decided) when checks first need it (issue 33),
   * until then `#isolationSetup` holds `undecidedIsolation`'s record.
   */
  readonly #isolationOptions: Pick<SessionOptions, "isolation" | "roomDir" | "network" | "setup">;
  readonly #baselineHead: BaselineHead | null;
  #isolationSetup: IsolationSetup;
  #isolationDecided: Promise<IsolationSetup> | undefined;
  /** The isolation of the last bound checks (what the proof records), and per-call choices. */
  #ranIsolation: IsolationSetup;
  readonly #isolationOverrides = new Map<IsolationRequest, IsolationSetup>();
  /** The configuration's `outputs` (clean room: the reports copied out of the room). */
  readonly #outputPatterns: readonly string[];
  /** The clean room's dependency setup that failed in the last bound checks (decide's message). */
  #setupFailure: { command: string; reason: string; log: string | undefined } | undefined;

  private constructor(
    options: SessionOptions,
    observer: WorkspaceObserver,
    baseline: WorkspaceSnapshot,
    waivers: CompletionWaiver[],
    startedAt: Date,
    baselineTree: SourceTree | undefined,
    checkEnvironment: SessionEnvironment,
    baselineHead: BaselineHead | null,
  ) {
    this.root = observer.root;
    this.#isolationOptions = {
      ...(options.isolation !== undefined ? { isolation: options.isolation } : {}),
      ...(options.roomDir !== undefined ? { roomDir: options.roomDir } : {}),
      ...(options.network !== undefined ? { network: options.network } : {}),
      ...(options.setup !== undefined ? { setup: options.setup } : {}),
    };
    this.#baselineHead = baselineHead;
    this.#isolationSetup = {
      record: undecidedIsolation(options),
      head: baselineHead,
      network: options.network === true,
      explicit: options.isolation !== undefined,
      ...(options.roomDir !== undefined ? { roomDir: options.roomDir } : {}),
      ...(options.setup !== undefined ? { setup: options.setup } : {}),
      homeValues: {},
    };
    const isolation = this.#isolationSetup;
    this.#outputPatterns = [...(options.outputs ?? [])];
    this.#ranIsolation = isolation;
    this.#observer = observer;
    this.#hasher = hostContentHasher(
      options.native === false
        ? { TURNGATE_NATIVE: "0" }
        : options.native === true
          ? { TURNGATE_NATIVE: "1" }
          : process.env,
    );
    this.#ledger = new MutationLedger({ hasher: this.#hasher });
    this.#baseline = baseline;
    this.#waivers = waivers;
    this.#attestor = options.attestor;
    this.#logDir = options.logDir ?? turngatePaths(observer.root).logs;
    // Checks never see the proof signing key, even one the host passes inline.
    const { [SIGNING_KEY_ENV]: _key, ...env } = options.env ?? process.env;
    this.#env = env;
    this.#toolVersions = {
      "@turngate/core": CORE_VERSION,
      "@turngate/node": NODE_PACKAGE_VERSION,
      ...(options.toolVersions ?? {}),
    };
    this.#startedAt = startedAt;
    this.#previousTurnEndedMs = options.previousTurnEndedMs;
    this.#roomSealedBeforeMs = options.roomSealedMs;
    this.#agentGraceMs = options.agentGraceMs;
    this.#baselineTree = baselineTree;
    this.#trust = options.trust ?? "unsandboxed";
    this.#rewritePaths = [...(options.rewritePaths ?? [])];
    this.#isRewritePath = rewritePathMatcher(this.#rewritePaths);
    this.#checkEnvironment = checkEnvironment;
    this.#testHistory = sessionTestHistory(observer.root, options);
    this.#existenceEvidence = options.existenceEvidence === true;
    this.#verifier = options.verifier;
    this.#allowContinuation = options.allowContinuation === true;
    this.#turn = new TurnEvidence(() => ({
      presets: presetCandidates(this.verificationPresets()),
      goals: readGoalCriteria(this.root),
    }));
  }

  /**
   * Start a session on `options.root`: validate the waivers, then take the workspace
   * baseline (or restore `options.baseline`) and the environment baseline (issue 10,
   * `SessionEnvironment.take`: the checks' shell and PATH, user-level, cargo target and
   * review file fingerprints), or adopt `options.checkEnvironment.baseline`.
   * Errors: `TurngateValidationError` for a malformed waiver (path `waivers.N.field`), a
   * `rewritePaths` element (path `rewrite_paths.N`, see `rewritePathProblem`) or a
   * configured shell that cannot be found (path `shell`);
   * `WorkspaceObserverError` for a bad root, bad ignores, a baseline of another root or a
   * failing `git ls-files`.
   */
  static async start(options: SessionOptions): Promise<Session> {
    const startedAt = new Date();
    const waivers = (options.waivers ?? []).map((waiver, index) =>
      parseCompletionWaiver(waiver, `waivers.${index}`),
    );
    validateRewritePaths(options.rewritePaths);
    const observerOptions: ConstructorParameters<typeof WorkspaceObserver>[1] = {};
    if (options.ignores !== undefined) observerOptions.ignores = options.ignores;
    if (options.useGit !== undefined) observerOptions.useGit = options.useGit;
    if (options.native !== undefined) observerOptions.native = options.native;
    if (options.outputs !== undefined) observerOptions.outputs = options.outputs;
    if (options.defaultOutputs !== undefined)
      observerOptions.defaultOutputs = options.defaultOutputs;
    const observer = new WorkspaceObserver(options.root, observerOptions);
    // Checks never see the proof signing key, even one the host passes inline.
    const { [SIGNING_KEY_ENV]: _key, ...hostEnv } = options.env ?? process.env;
    const takeEnvironment = () =>
      SessionEnvironment.take(options.checkEnvironment, hostEnv, observer.root);
    let checkEnvironment: SessionEnvironment;
    let baseline: WorkspaceSnapshot;
    let baselineTree: SourceTree | undefined;
    const recordTrees = options.recordTrees !== false;
    // The baseline's HEAD is read now, before the agent runs; the sandbox is started only
    // when checks need it (issue 33).
    const isolation = readIsolationBaseline(options, observer.root, hostEnv);
    if (options.baseline !== undefined) {
      checkEnvironment = takeEnvironment();
      observer.restoreBaseline(options.baseline);
      baseline = options.baseline;
      baselineTree = recordTrees
        ? (options.baselineTree ?? {
            tree: null,
            reason: "the stored baseline records no git tree id",
          })
        : undefined;
    } else {
      // The workspace baseline and the tree id start their git processes first; the
      // environment baseline (synchronous: user-level fingerprints, the shell probe) is
      // taken while they run (start-up, issue 17). All three are taken before the agent
      // runs, as before; when the environment fails (a bad shell), the git work is awaited
      // before its error propagates, so nothing is left running.
      const workspace = Promise.all([
        observer.baseline(),
        recordTrees ? sourceTreeId(observer.root, options.env) : undefined,
      ]);
      try {
        checkEnvironment = takeEnvironment();
      } catch (error) {
        await workspace.catch(() => undefined);
        throw error;
      }
      [baseline, baselineTree] = await workspace;
      // docs/design.md §3 "Proof": a turn's tree is built on this one and only its changed
      // blobs are read then, so the baseline tree is checked in full against the baseline's
      // bytes here (a blob git stored converted, a submodule, an ignored tracked file…).
      if (baselineTree?.tree) {
        const mismatch = await treeSnapshotMismatch(observer.root, baselineTree.tree, baseline, {
          env: hostEnv,
        });
        if (mismatch !== undefined) {
          baselineTree = { tree: null, reason: `baseline tree: ${mismatch}` };
        }
      }
    }
    return new Session(
      options,
      observer,
      baseline,
      waivers,
      startedAt,
      baselineTree,
      checkEnvironment,
      await isolation,
    );
  }

  /**
   * Where this session's bound checks run (docs/design.md §3b): `{mode, requested,
   * available, reason?}`, decided by starting the sandbox the first time bound checks run
   * (issue 33: a turn that runs no check starts no sandbox). Before that it is
   * `undecidedIsolation`'s record: `in-place` as requested, else `clean-room` with
   * `available: true` and the reason `NOT_STARTED`. Read it after the checks to record
   * what ran, never a claim.
   */
  get isolation(): SessionIsolation {
    return { ...this.#isolationSetup.record };
  }

  /**
   * Start the sandbox now if this session's isolation is not decided yet (`decideIsolation`,
   * once per session; the probe itself once per process), and return the decided
   * `isolation`. For a host that must know before checks run (`--confine`). Never throws.
   */
  async decideIsolation(): Promise<SessionIsolation> {
    return { ...(await this.#sessionIsolation()).record };
  }

  /** The session's decided isolation setup (started once, kept). */
  #sessionIsolation(): Promise<IsolationSetup> {
    if (this.#isolationDecided === undefined) {
      this.#isolationDecided = decideIsolation(
        this.#isolationOptions,
        this.root,
        this.#env,
        this.#baselineHead,
      ).then((decided) => {
        if (this.#ranIsolation === this.#isolationSetup) this.#ranIsolation = decided;
        this.#isolationSetup = decided;
        return decided;
      });
    }
    return this.#isolationDecided;
  }

  /**
   * When this session last sealed the clean room (ms since the epoch, `CleanRoom.sealedMs`:
   * the records it wrote there are trusted by a later session whose `roomSealedMs` is this),
   * or undefined when it wrote no room manifest (no clean-room check ran, or the room failed
   * before its first manifest write). The turn chain keeps it as `room_sealed_at`; a turn that
   * leaves it undefined carries the previous value forward (docs/design.md §3b "Gapless turns").
   */
  get roomSealedMs(): number | undefined {
    return this.#roomSealedMs;
  }

  /**
   * The git tree id of the source scope at the baseline (`sourceTreeId`), or why there is
   * none; `undefined` with `recordTrees: false`. Store it beside a stored baseline.
   */
  get baselineTree(): SourceTree | undefined {
    return this.#baselineTree;
  }

  /**
   * The environment baseline (issue 10): the checks' shell and PATH, user-level file
   * fingerprints, cargo target and review file fingerprints. Store it with the workspace
   * baseline (`serializeEnvironmentBaseline`) and pass it back as
   * `checkEnvironment.baseline`.
   */
  get environmentBaseline(): EnvironmentBaseline {
    return this.#checkEnvironment.baseline;
  }

  /**
   * The user-level files changed since the baseline, as of the latest observation: the
   * ledger's `environment` rows (`~/.gitconfig`, …, with the digest now or `deleted`).
   */
  get environmentChanges(): EnvironmentChange[] {
    return this.#checkEnvironment.changes;
  }

  /** The workspace baseline this turn is measured against (store it with `serializeSnapshot`). */
  get baseline(): WorkspaceSnapshot {
    return this.#baseline;
  }

  /** The effect digest of the ledger: lowercase 64-hex SHA-256, `""` while it is empty. */
  get effectDigest(): string {
    return this.#ledger.digest;
  }

  /** The ledger rows in canonical order (copies). */
  get records(): MutationRecord[] {
    return this.#ledger.records;
  }

  /**
   * The workspace state the current ledger — and so the effect digest and the last
   * decision — was built from (the latest observation, issue 32 item 3 "gapless turns"),
   * with the check outputs adopted since (issue 10) in the state the checks left them and
   * the baseline's ignore-rule record, so it can be stored (`serializeSnapshot`) and passed
   * back as the next turn's `baseline`: whatever changes after it, by anyone, is then a
   * change of the next turn. `undefined` before the first observation. A copy of the maps
   * only where check outputs were adopted; treat it as read-only.
   */
  judgedSnapshot(): WorkspaceSnapshot | undefined {
    const judged = this.#judged;
    if (judged === undefined) return undefined;
    const state = this.#adopted.overlay(judged);
    const ignoreState = this.#baseline.ignore_state;
    if (ignoreState === undefined) return state;
    return { ...state, ignore_state: ignoreState };
  }

  /** The latest workspace delta, if `observeWorkspace()` ran. */
  get lastDelta(): WorkspaceDelta | undefined {
    return this.#delta;
  }

  /**
   * Record one tool result on the ledger (A3S §2.1 via `MutationLedger.observeTool`).
   * Returns the rows it added. Errors: `TurngateValidationError` for malformed input (the
   * ledger is then unchanged).
   */
  observeTool(tool: string, exitCode: number, metadata?: unknown): readonly MutationRecord[] {
    const rows = this.#ledger.observeTool(tool, exitCode, metadata);
    this.#events.push(["tool", tool, exitCode, metadata]);
    this.#decision = undefined;
    const evidence = this.#turn.observeTool(tool, exitCode, metadata);
    this.#pushReports(evidence.reports);
    this.#lastExistence = undefined;
    const command = (metadata as { command?: unknown } | undefined)?.command;
    if (
      this.#existenceEvidence &&
      String(tool).toLowerCase() === "bash" &&
      typeof command === "string"
    ) {
      const exit = (metadata as { exit_code?: unknown }).exit_code;
      this.#lastExistence = existenceEvidence({
        root: this.root,
        command,
        exitCode: Number.isSafeInteger(exit) ? (exit as number) : exitCode,
        ledger: this.#ledger,
        reports: this.#reports.slice(this.#turn.reportsFrom),
        digestAtRecord: (report) => this.#turn.digestAtRecord(report),
      });
      this.#pushReports(this.#lastExistence.synthesized);
    }
    return rows;
  }

  #lastExistence: ExistenceEvidence | undefined;

  /** Records accepted reports as this turn's, noting the ledger digest they were recorded at. */
  #pushReports(reports: readonly VerificationReport[]): void {
    this.#turn.noteRecorded(reports, this.#ledger.digest);
    this.#reports.push(...reports);
  }

  /**
   * The existence evidence of the latest `observeTool` call (issue 13 item 4), when
   * `existenceEvidence` is on and it was a `bash` command: each checked path's status, the
   * reports it bound and the `shell:mutation_path_verify:<path>` reports it made.
   */
  get lastExistenceEvidence(): ExistenceEvidence | undefined {
    return this.#lastExistence === undefined ? undefined : structuredClone(this.#lastExistence);
  }

  /**
   * The goal criteria of this turn (issue 13 item 3; A3S §2.14): the ACCEPTANCE.md criteria
   * of every active loop under `.a3s/loops/` and `.turngate/goals/` (`readGoalCriteria`),
   * as read when the turn started — an agent that edits ACCEPTANCE.md changes the ledger,
   * not the criteria. They are shell-evidence candidates after the presets.
   */
  goalCriteria(): GoalCriteria {
    return this.#turn.goals;
  }

  /**
   * Goal-achievement gating over this turn's reports and criteria (A3S §2.15,
   * `goalAchievement`): the model's claim `llmAchieved` counts only when the reports support
   * it and every active loop has a passing `shell:acceptance:…` report of its own criteria.
   * Errors: `TurngateValidationError` (path `llm_achieved`) for a non-boolean.
   */
  goalAchievement(llmAchieved: boolean): GoalAchievement {
    return goalAchievement(
      llmAchieved,
      this.#reports.slice(this.#turn.reportsFrom),
      this.#turn.goals.commands,
    );
  }

  /**
   * What the latest `observeTool` call contributed as evidence (issue 13; A3S §2.9, §2.13;
   * `toolEvidence`): the reports it carried that were accepted (a `host` or `verifier`
   * report in `verification_report` metadata, or the `shell:<id>` report of a `bash`
   * command covering a preset command) and those refused, with the reason.
   */
  get lastToolEvidence(): ToolEvidence {
    return this.#turn.lastTool;
  }

  /** Every report tool results carried that was refused in this session, in order (copies). */
  refusedReports(): RefusedReport[] {
    return this.#turn.refusedReports();
  }

  /** 1-based number of the current turn (`endTurn()` starts the next). */
  get turnNumber(): number {
    return this.#turn.number;
  }

  /** Copies of the reports recorded during the current turn: the gate's inputs. */
  turnReports(): VerificationReport[] {
    return this.#reports.slice(this.#turn.reportsFrom).map((r) => structuredClone(r));
  }

  /**
   * Re-read the workspace, diff it against the baseline (with the check outputs of earlier
   * `verifyCommands` runs that the agent had not touched adopted, so they do not become
   * rows: issue 10 "outputs stay outputs") and rebuild the ledger: tool rows,
   * then every changed path as a `workspace` row carrying the SHA-256 of its bytes (or the
   * deleted marker); an incomplete read marks the ledger's observation incomplete.
   * Output: the delta `{changes, complete, unreadable}`.
   * `options.userFiles: false` does not fingerprint the user-level files again: the ledger
   * keeps the environment rows of the latest comparison (none before the first). For an
   * observation whose ledger the next one replaces and whose use is its workspace changes
   * (the changes made between turns, read right after `start` took the environment
   * baseline; issue 33: one pass fewer per turn). Default true.
   * Errors: `WorkspaceObserverError` (`git_failed`).
   */
  async observeWorkspace(options: { userFiles?: boolean } = {}): Promise<WorkspaceDelta> {
    const snapshot = await this.#observer.snapshot();
    const delta = this.#applySnapshot(snapshot, options.userFiles !== false);
    this.#fresh = { snapshot, events: this.#events.length };
    return delta;
  }

  /**
   * Before when the clean room's own records are trusted (ms): with `roomSealedMs` (the
   * turn chain's seal), that seal, never later than this session's start (0 when it is null:
   * nothing is trusted); else the baseline's `taken_at_ms`, or the previous turn's end
   * (`previousTurnEndedMs`) when that is later, never later than this session's start
   * (docs/design.md §3b: what was written in the room after the agent could act is re-proven).
   */
  #roomTrustBeforeMs(): number {
    const sealed = this.#roomSealedBeforeMs;
    if (sealed !== undefined) {
      // The chain's seal: only turngate's own room work, never a later turn's agent.
      if (sealed === null || !Number.isFinite(sealed)) return 0;
      return Math.min(sealed, this.#startedAt.getTime());
    }
    const ended = this.#previousTurnEndedMs;
    const taken = this.#baseline.taken_at_ms;
    if (ended === undefined || !Number.isFinite(ended)) return taken;
    return Math.max(taken, Math.min(ended, this.#startedAt.getTime()));
  }

  /**
   * The snapshot of the last `observeWorkspace()` when nothing was applied or observed
   * since (no other snapshot, no tool event), so the clean room can start from it instead of
   * reading the workspace again: the room's copies are checked against its digests, so a
   * change made since is caught there (`workspace_changed_during_check`). Consumed once.
   */
  #takeFresh(): WorkspaceSnapshot | undefined {
    const fresh = this.#fresh;
    this.#fresh = undefined;
    if (fresh === undefined || this.#judged !== fresh.snapshot) return undefined;
    return fresh.events === this.#events.length ? fresh.snapshot : undefined;
  }

  /**
   * The in-place checks' starting point: the turn's own observation when it is the last thing
   * that happened (`#takeFresh`) and the user-level files still fingerprint as they did then,
   * else a new observation applied to the ledger. Reusing it is as strict as observing again:
   * whatever changes in the workspace after it is in the after-check observation's
   * `checkChanges`, so the report does not bind (`workspace_changed_during_check`). Output:
   * the snapshot and the agent's changes in it.
   */
  async #inPlaceBefore(): Promise<{ before: WorkspaceSnapshot; agentView: WorkspaceChange[] }> {
    const fresh = this.#takeFresh();
    const delta = this.#delta;
    if (fresh !== undefined && delta !== undefined) {
      const then = JSON.stringify(this.#checkEnvironment.changes);
      if (JSON.stringify(this.#checkEnvironment.observeUserFiles()) === then) {
        return { before: fresh, agentView: delta.changes };
      }
    }
    const before = fresh ?? (await this.#observer.snapshot());
    return { before, agentView: this.#applySnapshot(before).changes };
  }

  /** Task ids of the open background workspace children, in the order they were opened. */
  get openWorkspaceChildren(): string[] {
    return this.#ledger.openChildren.map((child) => child.task_id);
  }

  /**
   * The host says the background workspace task `taskId` (opened by a tool result whose
   * metadata holds `workspace_child: taskId`) has finished (A3S §2.4, "settled child"):
   * the child leaves the open children — also for every later rebuild of the ledger, so
   * `observeWorkspace()`'s replay of the tool observations does not reopen it — and the
   * workspace is re-read at once, so every write on disk, the child's included, joins the
   * ledger as a `workspace` row with the SHA-256 of its bytes. A tool result observed
   * later that names the same id opens a new child.
   *
   * Input: the task id (trimmed, like `workspace_child` ids).
   * Output: `{settled, openChildren, delta}` — `settled` is false when no open child had
   * that id (nothing is settled; the workspace is still re-read); `openChildren` the task
   * ids still open; `delta` the re-read's delta, as from `observeWorkspace()`.
   * Errors: `TurngateValidationError` (path `task_id`) for a blank or non-string id;
   * `WorkspaceObserverError` (`git_failed`) from the re-read — then nothing changes.
   */
  async settleWorkspaceChild(taskId: string): Promise<WorkspaceChildSettlement> {
    if (typeof taskId !== "string" || taskId.trim() === "") {
      throw new TurngateValidationError("workspace child", [
        { path: "task_id", message: "must not be blank" },
      ]);
    }
    const id = taskId.trim();
    const snapshot = await this.#observer.snapshot();
    const settled = this.#ledger.openChildren.some((child) => child.task_id === id);
    if (settled) this.#events.push(["settle", id]);
    const delta = this.#applySnapshot(snapshot);
    return { settled, openChildren: this.openWorkspaceChildren, delta };
  }

  /**
   * After the agent exited and before the workspace is observed: find the processes it
   * left running (`settleAgentProcesses`: its process group, the turn's environment
   * marker, this process's orphaned children when it is a subreaper), wait the session's
   * `agentGraceMs` (default 2,000 ms) and SIGKILL them. Each survivor still running after
   * that opens a background workspace child `agent-survivor:<pid>` on the ledger, so the
   * gate keeps the turn `incomplete` (A3S E2) — its writes could land after any check.
   * Input: what to scan for (`graceMs` from the call wins over the session's). Output:
   * the settlement (`survivors` with `found_by` and `outcome`). Errors: throws when the
   * process table cannot be read. Issue 10, "Processes the agent left running".
   */
  async settleAgentProcesses(options: AgentProcessOptions): Promise<AgentProcessSettlement> {
    const graceMs = options.graceMs ?? this.#agentGraceMs;
    const settlement = await settleAgentProcesses({
      ...options,
      ...(graceMs !== undefined ? { graceMs } : {}),
    });
    for (const survivor of settlement.unkillable) {
      this.observeTool("agent", 0, { workspace_child: `agent-survivor:${survivor.pid}` });
    }
    return settlement;
  }

  /**
   * Record host reports (one or many). Each goes through `acceptReport(report, "host")`,
   * which validates it and rejects a recorded status that its checks do not derive.
   * Errors: the first rejection (`TurngateValidationError`, `TurngateStatusMismatchError`);
   * nothing is recorded then.
   */
  recordVerificationReports(
    reports: VerificationReportInput | readonly VerificationReportInput[],
  ): void {
    const list = Array.isArray(reports) ? reports : [reports as VerificationReportInput];
    const accepted = list.map((report) => acceptReport(report, "host"));
    this.#pushReports(accepted);
    this.#decision = undefined;
  }

  /** Copies of every report recorded in this session, in order. */
  verificationReports(): VerificationReport[] {
    return this.#reports.map((report) => structuredClone(report));
  }

  /** Summary over every recorded report (A3S §1.4). */
  verificationSummary(): VerificationSummary {
    return summarizeReports(this.#reports);
  }

  /** The summary as one line of text (A3S §2.19). */
  verificationSummaryText(): string {
    return formatVerificationSummary(this.verificationSummary());
  }

  /** The presets of the workspace root (A3S §2.17); the session's `env` PATH finds Python. */
  verificationPresets(): VerificationPreset[] {
    return verificationPresets(this.root, this.#env ? { env: this.#env } : {});
  }

  /**
   * Run `commands` one after another in the workspace root (A3S §2.16), derive one check
   * each, build a report for `subject` and record it.
   *
   * The commands run with the shell fixed at baseline time (absolute path) in the
   * controlled environment of `runner/check-env.ts` (issue 10), built from the session's
   * `env` in a fresh folder removed afterwards. The report gets `needs_review` checks of
   * its own (kind `review`, `SessionEnvironment.reviewChecks`) when the turn changed what
   * the checks depend on: `turngate:config` (the configuration file) and
   * `turngate:cargo-target` (the checks' `CARGO_TARGET_DIR`).
   *
   * With `bind: true`: the workspace is snapshotted before the first command (and the
   * ledger rebuilt from that snapshot) and after the last; the report gets
   * `effect_digest` only when the two snapshots are identical and complete and the ledger
   * is not empty. Otherwise it stays unbound and `binding` says why (`ReportBinding`).
   *
   * With `bind: true` (issue 10, "What the checks changed"; docs/design.md §3a): the workspace is
   * snapshotted before the first command (and the ledger rebuilt from that snapshot) and
   * after the last, and `checkChanges` compares the two. The report gets `effect_digest`
   * only when the observation is complete, the ledger is not empty, and the checks changed
   * nothing in source scope: no pre-existing source file modified, deleted or with changed
   * size/mtime/ctime/inode, no new source file, no harness file (`.git/config`, hooks,
   * info/), nothing unreadable. Changes to ignored files and output locations are listed as
   * `checkOutputs` and never unbind. Otherwise the report stays unbound and `binding` says
   * why and what to do (`hint`).
   *
   * `"rewrite_paths"` (SessionOptions.rewritePaths): when every check of the first run
   * passed and the only unbinding changes are rewrites of those lockfiles, each becomes a
   * ledger row with tool `check:<id>` (the first check after which it had changed; with
   * several commands the workspace is snapshotted after each) and the commands run once
   * more on the new bytes; that run's report binds when it changes nothing again. There is
   * never a third run, and nothing is restored.
   * Zero commands give a `skipped` report.
   * Errors: `TurngateValidationError` for a malformed command (path `commands.N.field`),
   * before anything runs; `WorkspaceObserverError` from the snapshots.
   */
  async verifyCommands(
    subject: string,
    commands: readonly VerificationCommandInput[],
    options: VerifyCommandsOptions = {},
  ): Promise<VerifyCommandsResult> {
    const parsed: VerificationCommand[] = commands.map((command, index) =>
      parseVerificationCommand(command, `commands.${index}`),
    );
    if (!options.bind) {
      const { runs, checks } = await this.#runCommands(parsed, options, undefined);
      const report = createReport(subject, checks);
      this.recordVerificationReports(report);
      const binding: ReportBinding = { bound: false, reason: "not_requested" };
      const isolation: SessionIsolation = {
        mode: "in-place",
        requested: "in-place",
        available: true,
      };
      return { report, binding, runs, isolation };
    }
    const setup = await this.#isolationFor(options.isolation);
    this.#ranIsolation = setup;
    if (setup.record.mode === "clean-room")
      return this.#verifyInRoom(subject, parsed, options, setup);
    this.#setupFailure = undefined;

    const { before, agentView } = await this.#inPlaceBefore();
    const attribute = this.#rewritePaths.length > 0 && parsed.length > 1;
    const first = await this.#runCommands(parsed, options, attribute ? before : undefined);
    const after = await this.#observer.snapshot();
    const changes = checkChanges(before, after);
    this.#adopted.adopt(agentView, after, changes.outputs);
    const firstPassed = createReport(subject, first.checks).status === "passed";
    const rewritten = onlyRewrites(changes, this.#isRewritePath);

    if (rewritten.length === 0 || !firstPassed || options.signal?.aborted) {
      const phase: RewritePhase =
        rewritten.length > 0
          ? "first_run_failed"
          : this.#rewritePaths.length > 0
            ? "mixed"
            : "not_configured";
      const binding = await this.#bindingFor(before, changes, [changes.outputs], phase);
      return this.#finish(subject, first, binding);
    }

    // The first run passed and rewrote only "rewrite_paths" lockfiles: record who rewrote
    // them, adopt the new bytes and run once more.
    const rewrites: CheckRewrite[] = rewritten.map((path) => ({
      path,
      checkId: first.rewrittenBy.get(path) ?? (parsed[parsed.length - 1] as VerificationCommand).id,
    }));
    for (const rewrite of rewrites) {
      const entry = after.entries.get(rewrite.path);
      this.#events.push([
        "tool",
        `check:${rewrite.checkId}`,
        0,
        {
          changed_paths: [rewrite.path],
          check_id: rewrite.checkId,
          content_digest: entry?.content_digest ?? "",
        },
      ]);
    }
    const agentViewAfter = this.#applySnapshot(after).changes;
    const second = await this.#runCommands(parsed, options, undefined);
    const final = await this.#observer.snapshot();
    const again = checkChanges(after, final);
    this.#adopted.adopt(agentViewAfter, final, again.outputs);
    const binding = await this.#bindingFor(
      after,
      again,
      [changes.outputs, again.outputs],
      "second_run",
    );
    binding.rewrites = rewrites;
    const result = this.#finish(subject, second, binding);
    result.firstRuns = first.runs;
    return result;
  }

  /** Runs `parsed` in order; with `attributeFrom`, snapshots after each command to find
   * which one first changed each "rewrite_paths" lockfile. */
  async #runCommands(
    parsed: readonly VerificationCommand[],
    options: VerifyCommandsOptions,
    attributeFrom: WorkspaceSnapshot | undefined,
    room?: { checks: RoomChecks; snapshot: WorkspaceSnapshot; outputs?: CopiedOutputs },
  ): Promise<{
    runs: CommandRun[];
    checks: VerificationCheck[];
    rewrittenBy: Map<string, string>;
  }> {
    const runs: CommandRun[] = [];
    const checks: VerificationCheck[] = [];
    const rewrittenBy = new Map<string, string>();
    const reviews = this.#checkEnvironment.reviewChecks(
      this.#ledger.records.map((record) => record.path),
    );
    const prepared = this.#checkEnvironment.prepare();
    const homeValues = this.#ranIsolation.homeValues;
    let setupDone = room === undefined;
    try {
      for (const [index, command] of parsed.entries()) {
        if (options.signal?.aborted) break;
        if (!setupDone && room) {
          setupDone = true;
          const failed = await this.#roomSetup(room, prepared, options, homeValues);
          if (failed !== undefined) {
            // No check runs on dependencies that could not be set up from the in-scope bytes.
            runs.push(failed);
            checks.push(failed.check);
            break;
          }
        }
        options.onProgress?.({ type: "start", index, total: parsed.length, command });
        const hit = await options.cache?.lookup(command, index);
        if (hit !== undefined) {
          const check: VerificationCheck = {
            ...hit.check,
            id: command.id,
            kind: command.kind,
            description: command.description,
            required: command.required,
          };
          const execution: ShellRunResult = {
            command: command.command,
            exitCode: hit.exitCode,
            signal: null,
            timedOut: check.failure_class === "timeout",
            aborted: false,
            timeoutMs: command.timeout_ms ?? 0,
            durationMs: hit.durationMs,
            output: hit.output,
            totalBytes: hit.totalBytes,
            capturedBytes: Buffer.byteLength(hit.output, "utf8"),
            truncated: hit.truncated,
          };
          runs.push({ command, check, execution, cached: hit.source });
          checks.push(check);
          options.onProgress?.({
            type: "end",
            index,
            total: parsed.length,
            command,
            check,
            durationMs: 0,
            execution,
          });
          continue;
        }
        const run = await runVerificationCommand(command, {
          root: room ? room.checks.workspace : this.root,
          logDir: this.#logDir,
          env: room ? roomCheckEnv(prepared.env, homeValues) : prepared.env,
          shell: prepared.shell,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(room ? await this.#roomLaunch(room, command, prepared.dir) : {}),
        });
        if (room) {
          await room.checks.afterCheck();
          const copied = copyRoomOutputs(
            room.checks.tree,
            this.#outputPatterns,
            join(room.checks.outputsDir, this.#ledger.digest || "none"),
          );
          if (copied.paths.length > 0) {
            const all = new Set([...(room.outputs?.paths ?? []), ...copied.paths]);
            room.outputs = { dir: copied.dir, paths: [...all].sort() };
          }
        }
        // Vanished or newly skipped tests against the last verified run (issue #16 §3).
        run.check = await this.#testHistory.judge(
          command.id,
          run.check,
          run.testResults,
          this.#ledger.records,
        );
        runs.push({
          command,
          check: run.check,
          execution: run.execution,
          ...(run.testResults ? { testResults: run.testResults } : {}),
        });
        if (run.execution.log)
          this.#evidenceLogs.set(run.execution.log.uri, run.execution.log.sha256);
        checks.push(run.check);
        options.onProgress?.({
          type: "end",
          index,
          total: parsed.length,
          command,
          check: run.check,
          durationMs: run.execution.durationMs,
          execution: run.execution,
        });
        if (attributeFrom !== undefined && index < parsed.length - 1) {
          const now = await this.#observer.snapshot();
          for (const path of unbindingPaths(checkChanges(attributeFrom, now))) {
            if (this.#isRewritePath(path) && !rewrittenBy.has(path))
              rewrittenBy.set(path, command.id);
          }
        }
      }
    } finally {
      this.#checkEnvironment.finish(prepared);
    }
    checks.push(...reviews);
    return { runs, checks, rewrittenBy };
  }

  /**
   * `verifyCommands({bind: true})` in the clean room (docs/design.md §3b): snapshot the
   * workspace (the ledger is rebuilt from it: digest D), then before each check make the
   * room hold exactly D's source-scope bytes (`RoomChecks.prepare`) and run the check in the
   * sandbox. The report binds to D whatever the workspace does meanwhile; a workspace that
   * changed while the checks ran is observed afterwards, so the turn's digest is the new
   * one (the gate then finds no report for it) and `binding.changedAfter` names the paths.
   * A sandbox that cannot start runs nothing (`isolation_unavailable`); a workspace that
   * changed between the snapshot and a copy leaves the report unbound
   * (`workspace_changed_during_check`).
   */
  async #verifyInRoom(
    subject: string,
    parsed: readonly VerificationCommand[],
    options: VerifyCommandsOptions,
    setup: IsolationSetup,
  ): Promise<VerifyCommandsResult> {
    this.#setupFailure = undefined;
    // The snapshot comes first: a turn whose checks cannot run still has its ledger. The
    // turn's own observation is reused when it is the last thing that happened.
    const fresh = this.#takeFresh();
    const before = fresh ?? (await this.#observer.snapshot());
    if (fresh === undefined) this.#applySnapshot(before);
    if (!setup.record.available || setup.bwrap === undefined) {
      const binding: ReportBinding = {
        bound: false,
        reason: "isolation_unavailable",
        hint: isolationUnavailableMessage(setup.record.reason ?? "unknown"),
      };
      return this.#finish(subject, { runs: [], checks: [] }, binding);
    }
    const digest = this.#ledger.digest;
    const checks = await RoomChecks.open({
      root: this.root,
      bwrap: setup.bwrap,
      head: setup.head,
      ...(setup.roomDir !== undefined ? { roomDir: setup.roomDir } : {}),
      env: this.#env,
      checkPath: this.#checkEnvironment.baseline.plan.path,
      exclude: [dirname(this.#logDir)],
      network: setup.network,
      turnStartMs: this.#roomTrustBeforeMs(),
      ...(setup.setup !== undefined ? { setup: setup.setup } : {}),
    });
    let run: { runs: CommandRun[]; checks: VerificationCheck[] } | undefined;
    let moved: string | undefined;
    const room: { checks: RoomChecks; snapshot: WorkspaceSnapshot; outputs?: CopiedOutputs } = {
      checks,
      snapshot: before,
    };
    try {
      run = await this.#runCommands(parsed, options, undefined, room);
    } catch (error) {
      if (!(error instanceof RoomSourceChangedError)) throw error;
      moved = error.path;
    } finally {
      await checks.close();
      const sealed = checks.sealedMs;
      if (sealed !== undefined) this.#roomSealedMs = sealed;
    }
    const after = await this.#observer.snapshot();
    this.#applySnapshot(after);
    const changedAfter = changedSourcePaths(before, after);
    if (moved !== undefined || run === undefined) {
      return this.#finish(
        subject,
        { runs: [], checks: [] },
        {
          bound: false,
          reason: "workspace_changed_during_check",
          changedPaths: [moved ?? ""],
          unreadable: [],
          hint: `${moved} changed in the workspace while turngate copied it into the clean room: stop whatever writes it, then run the checks again`,
        },
      );
    }
    let binding: ReportBinding;
    if (before.unreadable.length > 0) {
      binding = {
        bound: false,
        reason: "observation_incomplete",
        hint: "the turn's observation is incomplete (see the unreadable paths): make them readable or remove them, then run again",
      };
    } else if (digest === "") binding = { bound: false, reason: "no_effect" };
    else {
      binding = { bound: true, effectDigest: digest };
      if (changedAfter.length > 0) binding.changedAfter = changedAfter;
    }
    const result = this.#finish(subject, run, binding);
    if (room.outputs !== undefined) result.outputs = room.outputs;
    return result;
  }

  /**
   * The clean room's dependency setup (docs/design.md §3b, `isolation/room-setup.ts`), before
   * the first check that runs: the room is prepared, and when a dependency folder changed
   * during the turn (or is absent but needed) the setup's cached result is reused, or the
   * setup command runs in the room, in the sandbox, with network, and what it produced is
   * sealed in the cache. Output: undefined (no setup needed, a cache hit, or it passed), or
   * the failed setup's run (check id {@link SETUP_CHECK_ID}): the turn's checks do not run.
   */
  async #roomSetup(
    room: { checks: RoomChecks; snapshot: WorkspaceSnapshot },
    prepared: ReturnType<SessionEnvironment["prepare"]>,
    options: VerifyCommandsOptions,
    homeValues: Readonly<Record<string, string>>,
  ): Promise<CommandRun | undefined> {
    await room.checks.prepare(
      room.snapshot.entries,
      this.#ledger.records.map((record) => record.path),
    );
    const plan = room.checks.planSetup();
    if (plan === undefined) return undefined;
    options.onSetup?.({
      command: plan.setup.command,
      reason: plan.reason,
      cache: plan.cached !== undefined ? "hit" : "miss",
      key: plan.key.slice(0, 12),
    });
    if (plan.cached !== undefined) return undefined;
    const command: VerificationCommand = {
      id: SETUP_CHECK_ID,
      kind: "command",
      description: `dependency setup in the clean room: ${plan.setup.command}`,
      command: plan.setup.command,
      required: true,
      expect_exit: 0,
      timeout_ms: SETUP_TIMEOUT_MS,
    };
    const run = await runVerificationCommand(command, {
      root: room.checks.workspace,
      logDir: this.#logDir,
      env: roomCheckEnv(prepared.env, homeValues),
      shell: prepared.shell,
      ...(options.signal ? { signal: options.signal } : {}),
      launch: room.checks.setupLauncher([prepared.dir]),
    });
    if (run.check.status === "passed") {
      await room.checks.adoptSetup(plan);
      return undefined;
    }
    if (run.execution.log) this.#evidenceLogs.set(run.execution.log.uri, run.execution.log.sha256);
    const log = run.execution.log?.path;
    const check: VerificationCheck = {
      ...run.check,
      status: "failed",
      residual_risk: `the dependency setup \`${plan.setup.command}\` failed in the clean room (${plan.reason})${log !== undefined ? `; its log: ${log}` : ""}: no check ran. Make \`${plan.setup.command}\` succeed on a clean copy of the change (commit the lockfile that matches the manifests), or set "setup" in turngate.config.json to the command that installs the dependencies`,
    };
    this.#setupFailure = { command: plan.setup.command, reason: plan.reason, log };
    return { command, check, execution: run.execution };
  }

  /** The sandbox launcher of one check in the room (after the room is prepared for it). */
  async #roomLaunch(
    room: { checks: RoomChecks; snapshot: WorkspaceSnapshot },
    command: VerificationCommand,
    freshDir: string,
  ): Promise<{ launch: ReturnType<RoomChecks["launcher"]>; resultsDir: string }> {
    await room.checks.prepare(
      room.snapshot.entries,
      this.#ledger.records.map((record) => record.path),
    );
    const cwd =
      command.cwd !== undefined ? join(room.checks.workspace, command.cwd) : room.checks.workspace;
    return { launch: room.checks.launcher(cwd, [freshDir]), resultsDir: freshDir };
  }

  #finish(
    subject: string,
    run: { runs: CommandRun[]; checks: VerificationCheck[] },
    binding: ReportBinding,
  ): VerifyCommandsResult {
    this.#testHistory.bind(binding.bound === true ? binding.effectDigest : undefined);
    const report =
      binding.bound === true
        ? createReport(subject, run.checks, { effectDigest: binding.effectDigest })
        : createReport(subject, run.checks);
    this.recordVerificationReports(report);
    return { report, binding, runs: run.runs, isolation: { ...this.#ranIsolation.record } };
  }

  /**
   * The isolation of one `verifyCommands` call: the session's (decided the first time it is
   * needed) unless `request` names another, which is decided now (`decideIsolation`, kept per
   * request).
   */
  async #isolationFor(request: IsolationRequest | undefined): Promise<IsolationSetup> {
    const base = this.#isolationSetup;
    if (request === undefined || request === base.record.requested) {
      return this.#sessionIsolation();
    }
    let decided = this.#isolationOverrides.get(request);
    if (decided === undefined) {
      decided = await decideIsolation(
        {
          isolation: request,
          network: base.network,
          ...(base.roomDir !== undefined ? { roomDir: base.roomDir } : {}),
          ...(base.setup !== undefined ? { setup: base.setup } : {}),
        },
        this.root,
        this.#env,
      );
      decided.explicit = true;
      this.#isolationOverrides.set(request, decided);
    }
    return decided;
  }

  /**
   * Decide whether the turn may end (A3S §2.7 via core's `decideCompletion`): first the
   * host attestor (when set, the ledger is not empty and it was not yet asked about this
   * digest) may add a report, accepted as a host report; then the gate runs with the
   * session's reports and waivers. The outcome is kept for `proof()`. When the turn is
   * allowed and changed something, the git tree id of the source scope is written now
   * ({@link sourceTreeNow}) for the proof's `workspace.final_tree`.
   * Errors: rejects with the attestor's error, or a validation error for its report.
   */
  async decide(options: DecideOptions = {}): Promise<GateOutcome> {
    const forced = options.forceEnded === true;
    if (
      this.#verifier !== undefined &&
      !forced &&
      this.#verifierRun === undefined &&
      !this.#ledger.isEmpty
    ) {
      await this.#runVerifier(this.#verifier);
    }
    const digest = this.#ledger.digest;
    if (this.#attestor && digest !== "" && !this.#attestedDigests.has(digest)) {
      this.#reports = await mergeAttestedReport(this.#attestor, this.#ledger, this.#reports);
      this.#attestedDigests.add(digest);
    }
    const turnReports = this.#reports.slice(this.#turn.reportsFrom);
    let outcome = decideCompletion({
      ledger: this.#ledger,
      reports: turnReports,
      waivers: this.#waivers,
      allowContinuation: this.#allowContinuation && this.#continuations === 0 && !forced,
      observations: this.#observations,
    });
    // docs/design.md §3b: clean-room checks were required and the sandbox cannot start, so
    // no check ran: the turn says why instead of only "no bound report" (fail closed).
    if (
      outcome.kind === "incomplete" &&
      outcome.reason === "unverified_mutation" &&
      !this.#ranIsolation.record.available
    ) {
      outcome = {
        ...outcome,
        reason: "isolation_unavailable",
        message: isolationUnavailableMessage(this.#ranIsolation.record.reason ?? "unknown"),
      };
    }
    // docs/design.md §3b: the dependency setup failed, so no check ran: name it, its log and the fix.
    const setupFailure = this.#setupFailure;
    if (
      outcome.kind === "incomplete" &&
      outcome.reason === "unverified_mutation" &&
      setupFailure !== undefined
    ) {
      outcome = { ...outcome, message: setupFailedMessage(setupFailure) };
    }
    if (outcome.kind === "continue") this.#continuations += 1;
    const at = new Date();
    let finalTree: SourceTree | undefined;
    if (this.#baselineTree !== undefined) {
      finalTree =
        outcome.kind === "allow" && digest !== "" ? await this.sourceTreeNow() : this.#baselineTree;
    }
    this.#decision = { outcome, reports: turnReports, at };
    if (finalTree) this.#decision.finalTree = finalTree;
    await this.#testHistory.commit(outcome, digest);
    return outcome;
  }

  /**
   * The git tree id of the source scope as the turn's last observation found it, written to
   * the object store (docs/design.md §3 "Proof"): the baseline tree plus the delta
   * (`turnSourceTree`: only the changed files are hashed) when there is a baseline tree and a
   * delta, else every file hashed (`sourceTreeId`, its index started from the baseline tree
   * when there is one). Either way the tree is checked against the judged snapshot
   * (`treeSnapshotMismatch`: same entries, modes and raw bytes, nothing else); on a mismatch,
   * or with no judged snapshot, `{tree: null, reason: "final_tree: …"}`. Output: `{tree,
   * reason: null}` or `{tree: null, reason}`. Never throws.
   */
  async sourceTreeNow(): Promise<SourceTree> {
    const baselineTree = this.#baselineTree?.tree;
    const delta = this.#delta;
    const judged = this.#judged;
    // docs/design.md §3 "Proof": no tree is recorded that was not checked against the bytes
    // judged.
    if (!judged)
      return { tree: null, reason: "final_tree: no judged observation to check it against" };
    // Check outputs adopted in place (issue 10) are on disk but not in the delta: git's tree
    // holds them, so every file is hashed (from the baseline tree when there is one, never
    // HEAD), and every blob is checked.
    if (baselineTree === undefined || baselineTree === null || !delta || this.#adopted.size > 0) {
      const full = await sourceTreeId(this.root, this.#env, {
        ...(baselineTree ? { from: baselineTree } : {}),
      });
      if (full.tree === null) return full;
      const mismatch = await treeSnapshotMismatch(this.root, full.tree, judged, {
        env: this.#env,
      });
      return mismatch === undefined ? full : { tree: null, reason: `final_tree: ${mismatch}` };
    }
    const tree = await turnSourceTree({
      root: this.root,
      baselineTree,
      delta,
      snapshot: judged,
      configuredIgnores: this.#observer.configuredIgnores,
      env: this.#env,
    });
    return tree.tree === null
      ? { tree: null, reason: tree.reason }
      : { tree: tree.tree, reason: null };
  }

  /**
   * Bind an external observation to the session (issue 13 item 6; A3S §1.14, §2.12): the
   * gate's first rule sees it — the newest observation per subject counts, one with
   * `required_action: "workspace_change"` keeps the turn open (`continue` once per turn
   * when `allowContinuation`, else `incomplete`), `none` closes an earlier one of its
   * subject, and a host waiver of its digest or of the current effect digest clears it.
   * Observations are kept for the session (every turn sees them).
   * Errors: `TurngateValidationError` (path `observation.field`, e.g. `observation.payload`
   * for a payload over 8,192 bytes, `observation.digest` for a blank digest); nothing is
   * recorded then.
   */
  recordObservation(observation: ExternalObservationInput): ExternalObservation {
    const parsed = parseExternalObservation(observation, "observation");
    this.#observations.push(parsed);
    this.#decision = undefined;
    return structuredClone(parsed);
  }

  /** The external observations recorded in this session, in order (copies). */
  observations(): ExternalObservation[] {
    return structuredClone(this.#observations);
  }

  /** How many gate continuations this turn has spent (0 or 1). */
  get continuationCount(): number {
    return this.#continuations;
  }

  /** The verifier's run of this turn, once it ran (issue 13 item 5). */
  get verifierRun(): VerifierRun | undefined {
    return this.#verifierRun === undefined ? undefined : structuredClone(this.#verifierRun);
  }

  /**
   * Runs the verifier once for this turn (A3S §2.18 with docs/design.md §3's effect check): the
   * workspace is snapshotted before and after; a change voids the report
   * (`verifier_changed_workspace`, a failed `verifier` report) and is observed like any
   * other change. A crash, a timeout or a refused command records A3S's failed `verifier`
   * report with the reason; nothing is thrown.
   */
  async #runVerifier(verifier: SessionVerifier): Promise<void> {
    const effectDigest = this.#ledger.digest;
    const before = await this.#observer.snapshot();
    const run: VerifierRun = { status: "no_report", effectDigest };
    let report: VerificationReport | undefined;
    try {
      if (typeof verifier === "function") {
        const paths = this.#ledger.distinctPaths.map((path) => ({
          path,
          content_digest: this.#ledger.contentDigestForPath(path) ?? "",
        }));
        const given = await callWithDeadline(
          (signal) =>
            verifier({
              effectDigest,
              paths,
              root: this.root,
              toolPolicy: verifierToolPolicy,
              signal,
            }),
          VERIFIER_TIMEOUT_MS,
        );
        if (given !== null && given !== undefined) {
          report = acceptReport(given, "verifier");
          run.status = "reported";
        }
      } else {
        const policy = commandPolicy(verifier.command);
        if (!policy.allowed) {
          run.status = "refused";
          run.message = policy.message;
        } else {
          const command = parseVerificationCommand(
            {
              id: "review",
              kind: "verifier",
              description: verifier.command,
              command: verifier.command,
              required: true,
              timeout_ms: verifier.timeoutMs ?? VERIFIER_TIMEOUT_MS,
            },
            "verifier",
          );
          const { checks } = await this.#runCommands([command], {}, undefined);
          const timedOut = checks[0]?.residual_risk?.includes("timed out") === true;
          report = createReport("verifier", checks, { effectDigest });
          run.status = timedOut ? "timed_out" : "reported";
          if (timedOut) run.message = checks[0]?.residual_risk;
        }
      }
    } catch (error) {
      run.status = error instanceof VerifierTimeout ? "timed_out" : "crashed";
      run.message = error instanceof Error ? error.message : String(error);
    }
    const after = await this.#observer.snapshot();
    const changed = WorkspaceObserver.diff(before, after).changes.map((c) => c.path);
    if (changed.length > 0) {
      run.status = "verifier_changed_workspace";
      run.changedPaths = changed;
      run.message = `the verifier changed the workspace (${changed.join(", ")}); its report is void`;
      this.#applySnapshot(after);
    }
    if (run.status !== "reported" && run.status !== "no_report") {
      report = failedVerifierReport(effectDigest, `verifier ${run.status}: ${run.message ?? ""}`);
    }
    if (report !== undefined) {
      run.report = report;
      this.#pushReports([report]);
    }
    this.#verifierRun = run;
  }

  /**
   * End the turn (issue 13; A3S §1.17 `AgentResult`, §2.6): re-read the workspace
   * (`observeWorkspace()`), decide (`decide()`), and when the gate allows, return the
   * `TurnResult` (completion terminal, the summary counts and text over the turn's reports,
   * its refused tool reports and proof) and start the next turn: its baseline is the state
   * this turn was judged on (`judgedSnapshot()`, docs/cli.md "Gapless turns": whatever changes
   * after the decision, by anyone, is a change of the next turn), an empty ledger, no adopted check outputs, the attestor free to be asked again, and the
   * shell-evidence candidates re-read. The session's reports are kept
   * (`verificationReports()`), but a report of an earlier turn is never a gate input of a
   * later one: a digest is relative to its baseline, so the same digest later can name other
   * bytes. (The environment baseline of issue 10 is kept for the session, so a user-level
   * file changed in an earlier turn stays an `environment` row.)
   *
   * **Change from A3S:** a refused turn does not end. A3S's `send()` returns the gate error
   * and its next run starts from a fresh ledger; here the turn stays open (same baseline,
   * ledger and reports), so an unverified change cannot escape by starting another turn.
   * Errors: `TurngateGateError` (`turn_incomplete`, or `turn_continue` for the one
   * continuation) carrying the outcome; `WorkspaceObserverError` from the re-read; the
   * attestor's error.
   */
  async endTurn(options: DecideOptions = {}): Promise<TurnResult> {
    await this.observeWorkspace();
    const outcome = await this.decide(options);
    if (outcome.kind !== "allow") throw new TurngateGateError(outcome);
    const decision = this.#decision;
    if (decision === undefined) throw new TurngateError("not_decided", "endTurn: no decision");
    const result = turnResult({
      turn: this.#turn.number,
      terminal: outcome.terminal,
      effectDigest: this.#ledger.digest,
      reports: decision.reports,
      refused: this.#turn.turnRefused(),
      proof: this.proof(),
    });
    // Gapless turns (docs/cli.md "Gapless turns"): the next turn starts from the state this one
    // was judged on, so a change made after the decision is a change of the next turn.
    const judged = this.judgedSnapshot();
    let baseline: WorkspaceSnapshot;
    if (judged !== undefined) {
      this.#observer.restoreBaseline(judged);
      baseline = judged;
    } else {
      baseline = await this.#observer.baseline();
    }
    this.#baseline = baseline;
    if (decision.finalTree !== undefined) this.#baselineTree = decision.finalTree;
    this.#startedAt = new Date();
    this.#events = [];
    this.#delta = undefined;
    this.#judged = undefined;
    this.#ledger = new MutationLedger();
    this.#attestedDigests = new Set();
    this.#adopted = new AdoptedCheckOutputs();
    this.#decision = undefined;
    this.#continuations = 0;
    this.#verifierRun = undefined;
    this.#turn.next(this.#reports.length);
    return result;
  }

  /**
   * The `turn_proof.v1` of the last decision (docs/design.md §3 "Proof"): ledger rows, effect
   * digest, the reports bound to that digest, the waivers of that digest, the terminal,
   * the outcome, tool versions and ISO-8601 timestamps (session start, decision), the
   * workspace root and git tree ids, the evidence logs the kept reports cite (with their
   * SHA-256) and the trust claim (issue 10).
   * Errors: `TurngateError` `not_decided` before `decide()` (or after a change since it);
   * `turn_not_allowed` when the outcome was not `allow` (a proof needs a terminal), unless
   * `options.incomplete` (an agent hook's stop, issue 19): then `terminal` is null.
   */
  proof(options: { incomplete?: boolean } = {}): TurnProof {
    const decision = this.#decision;
    if (decision === undefined) {
      throw new TurngateError(
        "not_decided",
        "proof() needs a current decision: call decide() first",
      );
    }
    return buildTurnProof({
      outcome: decision.outcome,
      ledger: this.#ledger,
      reports: decision.reports,
      waivers: this.#waivers,
      toolVersions: this.#toolVersions,
      startedAt: this.#startedAt,
      finishedAt: decision.at,
      evidenceLogs: this.#evidenceLogs,
      trust: this.#trust,
      // Recorded when the host chose an isolation (a session without the option proves as before).
      ...(this.#ranIsolation.explicit ? { isolation: { ...this.#ranIsolation.record } } : {}),
      ...(options.incomplete === true ? { incomplete: true } : {}),
      ...(this.#baselineTree && decision.finalTree
        ? {
            workspace: {
              root: this.root,
              baseline_tree: this.#baselineTree.tree,
              final_tree: decision.finalTree.tree,
              tree_reason: this.#baselineTree.reason ?? decision.finalTree.reason,
            },
          }
        : {
            workspace: {
              root: this.root,
              baseline_tree: null,
              final_tree: null,
              tree_reason: "git trees were not recorded (recordTrees: false)",
            },
          }),
    });
  }

  #applySnapshot(snapshot: WorkspaceSnapshot, userFiles = true): WorkspaceDelta {
    let delta = WorkspaceObserver.diff(this.#baseline, snapshot);
    if (this.#adopted.size > 0) {
      delta = { ...delta, changes: this.#adopted.apply(delta.changes, snapshot) };
    }
    const ledger = new MutationLedger({ hasher: this.#hasher });
    for (const event of this.#events) {
      if (event[0] === "tool") ledger.observeTool(event[1], event[2], event[3]);
      else ledger.recordChildPaths(event[1], []);
    }
    ledger.observeUnseenPaths(ledgerPaths(delta.changes));
    ledger.recordEnvironmentPaths(
      userFiles ? this.#checkEnvironment.observeUserFiles() : this.#checkEnvironment.changes,
    );
    if (!delta.complete) ledger.setObservationIncomplete(true);
    this.#ledger = ledger;
    this.#delta = delta;
    this.#judged = snapshot;
    this.#decision = undefined;
    return delta;
  }

  /**
   * The binding for the checks' changes `changes` (from `checkChanges(before, …)`), with
   * the check outputs of `outputLists` merged and capped. `phase` picks the wording of the
   * lockfile hint. In a git work tree, asks git which modified source files are untracked
   * (their hint says "outputs", QA finding P2).
   */
  async #bindingFor(
    before: WorkspaceSnapshot,
    changes: CheckChanges,
    outputLists: ReadonlyArray<readonly CheckOutput[]>,
    phase: RewritePhase,
  ): Promise<ReportBinding & { rewrites?: CheckRewrite[] }> {
    const outputs = capCheckOutputs(outputLists);
    const withOutputs = <T extends object>(binding: T): T =>
      outputs.count > 0 ? { ...binding, checkOutputs: outputs } : binding;
    const stale = unbindingPaths(changes).length > 0;
    // A turn whose own observation is incomplete says so first, unless the checks also
    // changed something (as before issue 10).
    if (stale || (!leavesBindingIntact(changes) && !this.#ledger.observationIncomplete)) {
      const modified = changes.changed.filter((c) => c.change === "modified").map((c) => c.path);
      const untracked = before.git
        ? await untrackedAmong(before.root, modified)
        : new Set<string>();
      const binding: ReportBinding = {
        bound: false,
        reason: "workspace_changed_during_check",
        changedPaths: stale ? unbindingPaths(changes) : [],
        unreadable: changes.unreadable,
        hint: checkChangesHint(changes, {
          isRewritePath: this.#isRewritePath,
          sourceDirs: sourceDirectories(before),
          phase,
          untracked,
        }),
      };
      if (changes.changed.length > 0) binding.changes = changes.changed;
      if (changes.created.length > 0) binding.created = changes.created;
      return withOutputs(binding);
    }
    if (this.#ledger.observationIncomplete) {
      return withOutputs({
        bound: false,
        reason: "observation_incomplete",
        hint: "the turn's observation is incomplete (see the unreadable paths): make them readable or remove them, then run again",
      });
    }
    if (this.#ledger.isEmpty) {
      return withOutputs({ bound: false, reason: "no_effect" });
    }
    return withOutputs({ bound: true, effectDigest: this.#ledger.digest });
  }
}

/** Source-scope paths whose entry differs between two snapshots (added, changed or removed), sorted. */
/** The check id of a clean-room dependency setup that failed (`Session.verifyCommands`). */
export const SETUP_CHECK_ID = "setup";

/** How long a dependency setup may run, ms (10 minutes). */
const SETUP_TIMEOUT_MS = 600_000;

/**
 * The gate's message for a turn whose clean-room dependency setup failed (docs/design.md
 * §3b): the command, why it ran, its log and what to do.
 */
export function setupFailedMessage(failure: {
  command: string;
  reason: string;
  log: string | undefined;
}): string {
  return `completion gate: the dependency setup \`${failure.command}\` failed in the clean room (it ran because ${failure.reason}), so no check ran${failure.log !== undefined ? `; its log: ${failure.log}` : ""}. Make \`${failure.command}\` succeed on a clean copy of the change (a lockfile that matches the manifests, dependencies that can be fetched), or set "setup" in turngate.config.json to the command that installs them ("setup": false hides a changed dependency folder instead)`;
}

function changedSourcePaths(before: WorkspaceSnapshot, after: WorkspaceSnapshot): string[] {
  const paths: string[] = [];
  for (const [path, entry] of after.entries) {
    const old = before.entries.get(path);
    if (old === undefined || old.content_digest !== entry.content_digest || old.kind !== entry.kind)
      paths.push(path);
  }
  for (const path of before.entries.keys()) if (!after.entries.has(path)) paths.push(path);
  return paths.sort();
}

/** Options of `Session.decide` and `Session.endTurn`. */
export interface DecideOptions {
  /**
   * The run was force-ended (a budget reached, A3S §2.6 `force_terminal`): no gate
   * continuation and no verifier run.
   */
  forceEnded?: boolean;
}

/**
 * Checks `SessionOptions.rewritePaths`: an array of valid entries (`rewritePathProblem`).
 * Throws `TurngateValidationError` naming `rewrite_paths` or `rewrite_paths.N`.
 */
function validateRewritePaths(paths: unknown): void {
  if (paths === undefined) return;
  if (!Array.isArray(paths)) {
    throw new TurngateValidationError("session options", [
      { path: "rewrite_paths", message: "must be an array of lockfile names or paths" },
    ]);
  }
  const issues = paths.flatMap((entry: unknown, index: number) => {
    const problem = rewritePathProblem(entry);
    return problem === undefined ? [] : [{ path: `rewrite_paths.${index}`, message: problem }];
  });
  if (issues.length > 0) throw new TurngateValidationError("session options", issues);
}
