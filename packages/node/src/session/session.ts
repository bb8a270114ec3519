import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  acceptReport,
  CORE_VERSION,
  type CompletionAttestor,
  type CompletionWaiver,
  createReport,
  decideCompletion,
  formatVerificationSummary,
  type GateOutcome,
  MutationLedger,
  type MutationRecord,
  mergeAttestedReport,
  parseCompletionWaiver,
  parseVerificationCommand,
  summarizeReports,
  TurngateError,
  TurngateValidationError,
  type TurnProof,
  type VerificationCheck,
  type VerificationCommand,
  type VerificationCommandInput,
  type VerificationPreset,
  type VerificationReport,
  type VerificationReportInput,
  type VerificationSummary,
} from "@turngate/core";

import { turngatePaths } from "../fs/paths.js";
import { verificationPresets } from "../presets/detect.js";
import { runVerificationCommand } from "../runner/verify-command.js";
import { sessionTestHistory } from "../test-history/session-option.js";
import type { TurnTestHistory } from "../test-history/turn-history.js";
import type { WorkspaceDelta } from "../workspace/diff.js";
import { WorkspaceObserver } from "../workspace/observer.js";
import type { WorkspaceSnapshot } from "../workspace/snapshot.js";
import { buildTurnProof } from "./proof.js";
import type {
  CommandRun,
  ReportBinding,
  SessionOptions,
  VerifyCommandsOptions,
  VerifyCommandsResult,
  WorkspaceChildSettlement,
} from "./types.js";

/** Version of @turngate/node, from its package.json (same relative path from src/ and dist/). */
const NODE_PACKAGE_VERSION: string = (
  createRequire(import.meta.url)("../../package.json") as { version: string }
).version;

/**
 * What rebuilds the ledger on every workspace observation, in the order it happened: a tool
 * result, or the host settling a background workspace child.
 */
type LedgerEvent =
  | [kind: "tool", tool: string, exitCode: number, metadata: unknown]
  | [kind: "settle", taskId: string];

/**
 * One agent turn observed by a Node host (issue 3; DESIGN §3): a workspace baseline, the
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
  readonly #baseline: WorkspaceSnapshot;
  readonly #waivers: CompletionWaiver[];
  readonly #attestor: CompletionAttestor | undefined;
  readonly #logDir: string;
  readonly #env: NodeJS.ProcessEnv | undefined;
  readonly #toolVersions: Record<string, string>;
  readonly #startedAt: Date;
  readonly #testHistory: TurnTestHistory;
  #events: LedgerEvent[] = [];
  #delta: WorkspaceDelta | undefined;
  #ledger = new MutationLedger();
  #reports: VerificationReport[] = [];
  /** Digests the attestor was already asked about (it is asked once per digest). */
  #attestedDigests = new Set<string>();
  #decision: { outcome: GateOutcome; reports: VerificationReport[]; at: Date } | undefined;

  private constructor(
    options: SessionOptions,
    observer: WorkspaceObserver,
    baseline: WorkspaceSnapshot,
    waivers: CompletionWaiver[],
    startedAt: Date,
  ) {
    this.root = observer.root;
    this.#observer = observer;
    this.#baseline = baseline;
    this.#waivers = waivers;
    this.#attestor = options.attestor;
    this.#logDir = options.logDir ?? turngatePaths(observer.root).logs;
    this.#env = options.env;
    this.#toolVersions = {
      "@turngate/core": CORE_VERSION,
      "@turngate/node": NODE_PACKAGE_VERSION,
      ...(options.toolVersions ?? {}),
    };
    this.#startedAt = startedAt;
    this.#testHistory = sessionTestHistory(observer.root, options);
  }

  /**
   * Start a session on `options.root`: validate the waivers, then take the workspace
   * baseline (or restore `options.baseline`).
   * Errors: `TurngateValidationError` for a malformed waiver (path `waivers.N.field`);
   * `WorkspaceObserverError` for a bad root, bad ignores, a baseline of another root or a
   * failing `git ls-files`.
   */
  static async start(options: SessionOptions): Promise<Session> {
    const startedAt = new Date();
    const waivers = (options.waivers ?? []).map((waiver, index) =>
      parseCompletionWaiver(waiver, `waivers.${index}`),
    );
    const observerOptions: ConstructorParameters<typeof WorkspaceObserver>[1] = {};
    if (options.ignores !== undefined) observerOptions.ignores = options.ignores;
    if (options.useGit !== undefined) observerOptions.useGit = options.useGit;
    const observer = new WorkspaceObserver(options.root, observerOptions);
    let baseline: WorkspaceSnapshot;
    if (options.baseline !== undefined) {
      observer.restoreBaseline(options.baseline);
      baseline = options.baseline;
    } else {
      baseline = await observer.baseline();
    }
    return new Session(options, observer, baseline, waivers, startedAt);
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
    return rows;
  }

  /**
   * Re-read the workspace, diff it against the baseline and rebuild the ledger: tool rows,
   * then every changed path as a `workspace` row carrying the SHA-256 of its bytes (or the
   * deleted marker); an incomplete read marks the ledger's observation incomplete.
   * Output: the delta `{changes, complete, unreadable}`.
   * Errors: `WorkspaceObserverError` (`git_failed`).
   */
  async observeWorkspace(): Promise<WorkspaceDelta> {
    const snapshot = await this.#observer.snapshot();
    return this.#applySnapshot(snapshot);
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
    this.#reports.push(...accepted);
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

  /** The presets of the workspace root (A3S §2.17). */
  verificationPresets(): VerificationPreset[] {
    return verificationPresets(this.root);
  }

  /**
   * Run `commands` one after another in the workspace root (A3S §2.16), derive one check
   * each, build a report for `subject` and record it.
   *
   * With `bind: true`: the workspace is snapshotted before the first command (and the
   * ledger rebuilt from that snapshot) and after the last; the report gets
   * `effect_digest` only when the two snapshots are identical and complete and the ledger
   * is not empty. Otherwise it stays unbound and `binding` says why (`ReportBinding`).
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
    const before = options.bind ? await this.#observer.snapshot() : undefined;
    if (before) this.#applySnapshot(before);

    const runs: CommandRun[] = [];
    const checks: VerificationCheck[] = [];
    for (const [index, command] of parsed.entries()) {
      if (options.signal?.aborted) break;
      options.onProgress?.({ type: "start", index, total: parsed.length, command });
      const run = await runVerificationCommand(command, {
        root: this.root,
        logDir: this.#logDir,
        resultsDir: join(dirname(this.#logDir), "results"),
        ...(this.#env ? { env: this.#env } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
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
    }

    let binding: ReportBinding = { bound: false, reason: "not_requested" };
    if (before) {
      const after = await this.#observer.snapshot();
      binding = this.#bindingFor(before, after);
    }
    this.#testHistory.bind(binding.bound === true ? binding.effectDigest : undefined);
    const report =
      binding.bound === true
        ? createReport(subject, checks, { effectDigest: binding.effectDigest })
        : createReport(subject, checks);
    this.recordVerificationReports(report);
    return { report, binding, runs };
  }

  /**
   * Decide whether the turn may end (A3S §2.7 via core's `decideCompletion`): first the
   * host attestor (when set, the ledger is not empty and it was not yet asked about this
   * digest) may add a report, accepted as a host report; then the gate runs with the
   * session's reports and waivers. The outcome is kept for `proof()`.
   * Errors: rejects with the attestor's error, or a validation error for its report.
   */
  async decide(): Promise<GateOutcome> {
    const digest = this.#ledger.digest;
    if (this.#attestor && digest !== "" && !this.#attestedDigests.has(digest)) {
      this.#reports = await mergeAttestedReport(this.#attestor, this.#ledger, this.#reports);
      this.#attestedDigests.add(digest);
    }
    const outcome = decideCompletion({
      ledger: this.#ledger,
      reports: this.#reports,
      waivers: this.#waivers,
      allowContinuation: false,
      observations: [],
    });
    this.#decision = { outcome, reports: this.#reports.slice(), at: new Date() };
    await this.#testHistory.commit(outcome, digest);
    return outcome;
  }

  /**
   * The `turn_proof.v1` of the last decision (DESIGN §3 "Proof"): ledger rows, effect
   * digest, the reports bound to that digest, the waivers of that digest, the terminal,
   * the outcome, tool versions and ISO-8601 timestamps (session start, decision).
   * Errors: `TurngateError` `not_decided` before `decide()` (or after a change since it);
   * `turn_not_allowed` when the outcome was not `allow` (a proof needs a terminal).
   */
  proof(): TurnProof {
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
    });
  }

  #applySnapshot(snapshot: WorkspaceSnapshot): WorkspaceDelta {
    const delta = WorkspaceObserver.diff(this.#baseline, snapshot);
    const ledger = new MutationLedger();
    for (const event of this.#events) {
      if (event[0] === "tool") ledger.observeTool(event[1], event[2], event[3]);
      else ledger.recordChildPaths(event[1], []);
    }
    ledger.observeUnseenPaths(
      delta.changes.map((change) => ({ path: change.path, contentDigest: change.content_digest })),
    );
    if (!delta.complete) ledger.setObservationIncomplete(true);
    this.#ledger = ledger;
    this.#delta = delta;
    this.#decision = undefined;
    return delta;
  }

  #bindingFor(before: WorkspaceSnapshot, after: WorkspaceSnapshot): ReportBinding {
    const during = WorkspaceObserver.diff(before, after);
    if (during.changes.length > 0) {
      return {
        bound: false,
        reason: "workspace_changed_during_check",
        changedPaths: during.changes.map((change) => change.path),
        unreadable: during.unreadable,
      };
    }
    if (this.#ledger.observationIncomplete)
      return { bound: false, reason: "observation_incomplete" };
    if (!during.complete) {
      return {
        bound: false,
        reason: "workspace_changed_during_check",
        changedPaths: [],
        unreadable: during.unreadable,
      };
    }
    if (this.#ledger.isEmpty) return { bound: false, reason: "no_effect" };
    return { bound: true, effectDigest: this.#ledger.digest };
  }
}
