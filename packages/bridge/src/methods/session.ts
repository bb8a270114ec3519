/**
 * `session.*` methods (stateful, server only): wrap `@turngate/node`'s `Session` — one per
 * `session.create`, addressed by `session_id` — so a binding drives the same host session a
 * Node host gets in-process (docs/design.md §1, §3, a3s-completion-gate.md §2.16).
 */
import {
  deserializeSnapshot,
  rewritePathProblem,
  serializeSnapshot,
  TurngateGateError,
  type VerifyProgressEvent,
  type WorkspaceSnapshot,
} from "@turngate/node";
import * as z from "zod";
import { BridgeError } from "../errors.js";
import { defineMethod, type MethodContext } from "../method.js";
import { PROGRESS_NOTIFICATION } from "../protocol.js";
import { openHostSession } from "../server/open-session.js";
import type { SessionRegistry } from "../server/sessions.js";
import {
  CompletionWaiverSchema,
  ExternalObservationSchema,
  GateOutcomeSchema,
  MutationRecordSchema,
  TurnProofSchema,
  VerificationCommandSchema,
  VerificationPresetSchema,
  VerificationReportSchema,
  VerificationSummarySchema,
} from "../wire/domain.js";
import {
  RefusedReportSchema,
  TurnEndSchema,
  wireRefused,
  wireTurnResult,
} from "../wire/evidence.js";
import {
  ExistenceEvidenceSchema,
  GoalAchievementSchema,
  GoalCriteriaSchema,
  VerifierRunSchema,
} from "../wire/goals.js";
import { jsonObject } from "../wire/json-object.js";
import {
  CommandRunSchema,
  IsolationRequestSchema,
  IsolationSchema,
  ReportBindingSchema,
  WorkspaceChangeSchema,
  wireBinding,
  wireDelta,
  wireRun,
} from "../wire/session.js";
import { acceptHostReports } from "./accept-reports.js";

/** Context of the stdio server: the method context plus its open sessions. */
export interface SessionContext extends MethodContext {
  readonly sessions: SessionRegistry;
}

const SessionId = z.string().describe('id returned by session.create, e.g. "session-1"');
const Digest = z.string().describe('the session ledger\'s effect digest ("" when empty)');
const only = z.strictObject({ session_id: SessionId });

function define<P extends z.ZodType, R extends z.ZodType>(
  description: string,
  params: P,
  result: R,
  handler: (params: z.output<P>, ctx: SessionContext) => Promise<z.output<R>>,
) {
  return defineMethod<P, R, SessionContext>({ description, params, result, handler });
}

/** The host session behind a `session_id`. */
type HostSession = ReturnType<SessionRegistry["get"]>["session"];

/**
 * A read-only method: params are just `{ session_id }` and the result is `read` applied to
 * that session. An unknown id fails as `ctx.sessions.get` fails (unknown_session).
 */
function defineRead<R extends z.ZodType>(
  description: string,
  result: R,
  read: (session: HostSession) => z.output<R> | Promise<z.output<R>>,
) {
  return define(description, only, result, async (p, ctx) =>
    read(ctx.sessions.get(p.session_id).session),
  );
}

/** Wire form of one `verifyCommands` progress event (the `progress` notification's params). */
export function progressParams(requestId: string | number | null, event: VerifyProgressEvent) {
  const common = {
    request_id: requestId,
    index: event.index,
    total: event.total,
    check_id: event.command.id,
    command: event.command.command,
  };
  if (event.type === "start") return { event: "check_started", ...common };
  return {
    event: "check_finished",
    ...common,
    status: event.check.status,
    exit_code: event.execution.exitCode,
    duration_ms: event.durationMs,
  };
}

/** The wire (snake_case) name of a Node API option name: `useGit` → `use_git`. */
export function wireFieldName(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * Re-raises a workspace-observer error of `session.create` with a wire field path: the
 * observer names its TypeScript option (`useGit`); on the wire the path is
 * `options.use_git` and the message says `use_git` too (issue #11 class 4).
 */
function withOptionPath(error: unknown): never {
  const field = (error as { field?: unknown }).field;
  if (error instanceof Error && typeof field === "string") {
    const wire = wireFieldName(field);
    const path = field === "root" ? "root" : `options.${wire}`;
    const message = wire === field ? error.message : error.message.split(field).join(wire);
    throw new BridgeError((error as { code?: string }).code ?? "invalid_params", message, path);
  }
  throw error;
}

/**
 * `options.continue_from` as a snapshot (docs/cli.md "Gapless turns"). Errors: `BridgeError`
 * `invalid_snapshot` at `options.continue_from.<field>` (`entries[2].path` → `entries.2.path`).
 */
function restoredSnapshot(value: Record<string, unknown>): WorkspaceSnapshot {
  try {
    return deserializeSnapshot(value);
  } catch (error) {
    const field = (error as { field?: unknown }).field;
    const tail =
      typeof field === "string" && field !== "snapshot"
        ? `.${field.replace(/\[(\d+)\]/g, ".$1")}`
        : "";
    throw new BridgeError(
      "invalid_snapshot",
      `options.continue_from is not a baseline session.baseline returned: ${(error as Error).message}`,
      `options.continue_from${tail}`,
    );
  }
}

/** The observer's refusal of a snapshot taken on another root. */
function isSnapshotRootError(error: unknown): boolean {
  return (
    (error as { code?: unknown }).code === "invalid_snapshot" &&
    (error as { field?: unknown }).field === "root"
  );
}

export const sessionMethods = {
  "session.create": define(
    "Starts a host session on a workspace root (absolute, or relative to the bridge's cwd): waivers are validated and the workspace baseline is taken before this returns.",
    z.strictObject({
      root: z.string().min(1).describe("workspace root directory"),
      waivers: z.array(CompletionWaiverSchema).default([]),
      options: z
        .strictObject({
          ignores: z.array(z.string()).optional().describe("extra gitignore-style patterns"),
          use_git: z.boolean().optional().describe("force (true) or forbid (false) git mode"),
          sandboxed: z
            .boolean()
            .optional()
            .describe(
              "the host's claim that the agent runs as another OS user or in a sandbox (recorded as the proof's trust: sandboxed); default unsandboxed",
            ),
          rewrite_paths: z
            .array(
              z.string().superRefine((entry, refine) => {
                const problem = rewritePathProblem(entry);
                if (problem !== undefined) refine.addIssue({ code: "custom", message: problem });
              }),
            )
            .optional()
            .describe(
              'lockfiles a passing check may rewrite, then the checks run once more (e.g. ["Cargo.lock"]; lockfile names only)',
            ),
          existence_evidence: z
            .boolean()
            .optional()
            .describe(
              "let an existence check in a bash command (test -f P, [ -e P ], [[ -f P ]]) on a mutated path whose bytes match the ledger bind the turn's passing reports or synthesise shell:mutation_path_verify:<path>; default false (the file existing proves the write landed, not that the code works)",
            ),
          verifier_command: z
            .string()
            .regex(/\S/, { message: "must not be blank" })
            .optional()
            .describe(
              "the read-only verifier (a3s-completion-gate.md §2.18): a command run once per turn before the gate when the turn mutated the workspace; refused unread when it breaks the verifier tool policy (>, rm , mv , tee ); the workspace is snapshotted around it and any change voids its report (verifier_changed_workspace); its report (subject verifier) is bound only to the digest it ran on",
            ),
          verifier_timeout_ms: z
            .int()
            .min(1000)
            .optional()
            .describe("the verifier command's timeout in ms (default 120000)"),
          allow_continuation: z
            .boolean()
            .optional()
            .describe(
              "let the gate answer continue once per turn for an open external observation (never for an unverified mutation); default false",
            ),
          isolation: IsolationRequestSchema.optional().describe(
            "where bound checks run (docs/design.md §3b): clean-room (a copy of exactly the digest's source-scope bytes in a bubblewrap sandbox; fails closed with isolation_unavailable when it cannot start), in-place (the workspace itself), auto (clean-room where the sandbox starts); default in-place. Decided when the session starts (the room's .git is at the baseline's HEAD)",
          ),
          network: z
            .boolean()
            .optional()
            .describe("clean-room checks may reach the network; default false (loopback only)"),
          setup: z
            .union([z.string().regex(/\S/, { message: "must not be blank" }), z.literal(false)])
            .optional()
            .describe(
              "the clean room's dependency setup (docs/design.md §3b): a shell command run in the room, in the sandbox, with network, when a dependency folder changed during the turn (or node_modules is absent but declared), its result cached by the digest of its inputs; false: never (a changed folder stays hidden); default the preset's (npm ci, pnpm install --frozen-lockfile, pip install -e . into a room venv)",
            ),
          continue_from: jsonObject()
            .optional()
            .describe(
              "gapless turns (docs/cli.md \"Gapless turns\"): the `baseline` an earlier session's session.baseline returned (a turngate.workspace_snapshot.v1 of this root). The session starts from it instead of the workspace now, so whatever changed since — by anyone, between the two sessions — is in this session's ledger. Refused at options.continue_from.<field> when malformed or of another root",
            ),
        })
        .default({}),
    }),
    z.strictObject({ session_id: SessionId }),
    async (p, ctx) => {
      const continueFrom =
        p.options.continue_from !== undefined
          ? restoredSnapshot(p.options.continue_from)
          : undefined;
      const session = await openHostSession({
        root: p.root,
        ...(continueFrom !== undefined ? { baseline: continueFrom } : {}),
        waivers: p.waivers,
        ...(p.options.ignores ? { ignores: p.options.ignores } : {}),
        ...(p.options.use_git !== undefined ? { useGit: p.options.use_git } : {}),
        ...(p.options.sandboxed !== undefined ? { sandboxed: p.options.sandboxed } : {}),
        ...(p.options.rewrite_paths ? { rewritePaths: p.options.rewrite_paths } : {}),
        ...(p.options.existence_evidence !== undefined
          ? { existenceEvidence: p.options.existence_evidence }
          : {}),
        ...(p.options.verifier_command !== undefined
          ? {
              verifierCommand: {
                command: p.options.verifier_command,
                ...(p.options.verifier_timeout_ms !== undefined
                  ? { timeoutMs: p.options.verifier_timeout_ms }
                  : {}),
              },
            }
          : {}),
        ...(p.options.allow_continuation !== undefined
          ? { allowContinuation: p.options.allow_continuation }
          : {}),
        ...(p.options.isolation !== undefined ? { isolation: p.options.isolation } : {}),
        ...(p.options.network !== undefined ? { network: p.options.network } : {}),
        ...(p.options.setup !== undefined ? { setup: p.options.setup } : {}),
      }).catch((error: unknown) =>
        withOptionPath(
          continueFrom !== undefined && isSnapshotRootError(error)
            ? new BridgeError(
                "invalid_snapshot",
                `options.continue_from: ${(error as Error).message}: pass the baseline of a session on this root`,
                "options.continue_from.root",
              )
            : error,
        ),
      );
      return { session_id: ctx.sessions.add(session) };
    },
  ),
  "session.close": define(
    "Closes a session: a running check is killed (its call answers session_closed) and the id becomes unknown.",
    only,
    z.strictObject({}),
    async (p, ctx) => {
      ctx.sessions.close(p.session_id);
      return {};
    },
  ),
  "session.observe_tool": define(
    "Observes one tool result into the session's mutation ledger (a3s-completion-gate.md §2.1) and reads its evidence (§2.9, §2.13): a verification_report in the metadata is accepted only with verification_author host or verifier (else refused, with a reason, and kept); a bash result whose metadata has a command covering one of the turn's preset commands yields an unbound shell:<id> report (needs_review when the exit status is masked). Returns the rows it added, the resulting effect digest, the reports accepted and the reports refused.",
    z.strictObject({
      session_id: SessionId,
      tool: z.string(),
      exit_code: z.int(),
      metadata: jsonObject().optional(),
    }),
    z.strictObject({
      effect_digest: Digest,
      added: z.array(MutationRecordSchema),
      reports: z.array(VerificationReportSchema).describe("reports this tool result contributed"),
      refused_reports: z
        .array(RefusedReportSchema)
        .describe("reports it carried that were refused"),
      existence: ExistenceEvidenceSchema.optional().describe(
        "the existence checks of a bash command, when the session has existence_evidence",
      ),
    }),
    async (p, ctx) => {
      const { session } = ctx.sessions.get(p.session_id);
      const added = session.observeTool(p.tool, p.exit_code, p.metadata);
      const evidence = session.lastToolEvidence;
      const existence = session.lastExistenceEvidence;
      return {
        effect_digest: session.effectDigest,
        added: [...added],
        reports: evidence.reports,
        refused_reports: evidence.refused.map(wireRefused),
        ...(existence
          ? {
              existence: {
                checks: existence.checks.map((c) => ({
                  path: c.path,
                  ledger_path: c.ledgerPath,
                  status: c.status,
                })),
                bound: existence.bound,
                synthesized: existence.synthesized,
              },
            }
          : {}),
      };
    },
  ),
  "session.observe_workspace": define(
    'Re-reads the workspace against the session\'s baseline and rebuilds the ledger: changed paths join it with the SHA-256 of their bytes ("deleted" for a deletion). Returns the delta and the resulting effect digest; `complete: false` (unreadable paths) makes the gate answer observation_incomplete.',
    only,
    z.strictObject({
      effect_digest: Digest,
      changes: z.array(WorkspaceChangeSchema),
      complete: z.boolean(),
      unreadable: z.array(z.string()),
    }),
    async (p, ctx) => {
      const { session } = ctx.sessions.get(p.session_id);
      const delta = await session.observeWorkspace();
      return { effect_digest: session.effectDigest, ...wireDelta(delta) };
    },
  ),
  "session.settle_child": define(
    "The host says the background workspace task task_id (opened by a tool result whose metadata holds workspace_child) has finished (a3s-completion-gate.md §2.4): the child leaves the open children for good (re-reads do not reopen it; a later tool result naming the id opens a new child) and the workspace is re-read at once, so the child's writes join the ledger like session.observe_workspace's. `settled` is false when no open child had that id; `open_children` lists the task ids still open.",
    z.strictObject({
      session_id: SessionId,
      task_id: z
        .string()
        .regex(/\S/, { message: "must not be blank" })
        .describe("the workspace_child id of the finished task"),
    }),
    z.strictObject({
      settled: z.boolean(),
      open_children: z.array(z.string()),
      effect_digest: Digest,
      changes: z.array(WorkspaceChangeSchema),
      complete: z.boolean(),
      unreadable: z.array(z.string()),
    }),
    async (p, ctx) => {
      const { session } = ctx.sessions.get(p.session_id);
      const out = await session.settleWorkspaceChild(p.task_id);
      return {
        settled: out.settled,
        open_children: out.openChildren,
        effect_digest: session.effectDigest,
        ...wireDelta(out.delta),
      };
    },
  ),
  "session.record_reports": define(
    "Records host verification reports. A report whose status differs from the status derived from its checks is refused (report_status_mismatch, path reports.N.status) and nothing is recorded.",
    z.strictObject({ session_id: SessionId, reports: z.array(VerificationReportSchema) }),
    z.strictObject({ recorded: z.int().nonnegative() }),
    async (p, ctx) => {
      const { session } = ctx.sessions.get(p.session_id);
      acceptHostReports(p.reports, "reports");
      session.recordVerificationReports(p.reports);
      return { recorded: p.reports.length };
    },
  ),
  "session.reports": defineRead(
    "Every report recorded in the session, in recording order.",
    z.strictObject({ reports: z.array(VerificationReportSchema) }),
    (session) => ({ reports: session.verificationReports() }),
  ),
  "session.summary": defineRead(
    "Verification summary over the session's reports (a3s-completion-gate.md §1.4).",
    VerificationSummarySchema,
    (session) => session.verificationSummary(),
  ),
  "session.summary_text": defineRead(
    "One-line summary text over the session's reports (a3s-completion-gate.md §2.19).",
    z.strictObject({ text: z.string() }),
    (session) => ({ text: session.verificationSummaryText() }),
  ),
  "session.presets": defineRead(
    "Verification presets detected at the workspace root (Rust, Node, Python, Go; a3s-completion-gate.md §2.17).",
    z.strictObject({ presets: z.array(VerificationPresetSchema) }),
    (session) => ({ presets: session.verificationPresets() }),
  ),
  "session.verify_commands": define(
    "Runs verification commands one after another in the workspace root and records the resulting report (zero commands → a skipped report). With `bind`, the workspace is snapshotted before and after: the checks changed nothing in source scope → the report is bound to the effect digest (ignored and output-location changes are listed as check_outputs); a pre-existing source file modified, deleted or with changed size/mtime/ctime/inode, a new source file, a .git config/hooks/info change or an unreadable path → unbound, binding.reason workspace_changed_during_check with a hint. With the session's rewrite_paths, a passing first run that rewrote only those lockfiles runs once more (binding.rewrites). Sends `progress` notifications (check_started, check_finished) carrying this request's id.",
    z.strictObject({
      session_id: SessionId,
      subject: z.string(),
      commands: z.array(VerificationCommandSchema),
      bind: z.boolean().default(false),
      isolation: IsolationRequestSchema.optional().describe(
        "with bind: where these checks run, overriding the session's isolation for this call (a clean room chosen here has its .git at the HEAD of this moment)",
      ),
    }),
    z.strictObject({
      report: VerificationReportSchema,
      binding: ReportBindingSchema,
      runs: z.array(CommandRunSchema),
      isolation: IsolationSchema,
    }),
    async (p, ctx) => {
      const entry = ctx.sessions.get(p.session_id);
      const { signal } = entry.abort;
      const out = await entry.session.verifyCommands(p.subject, p.commands, {
        bind: p.bind,
        ...(p.isolation !== undefined ? { isolation: p.isolation } : {}),
        signal,
        onProgress: (event) =>
          ctx.notify(PROGRESS_NOTIFICATION, progressParams(ctx.requestId, event)),
      });
      if (signal.aborted) {
        throw new BridgeError(
          "session_closed",
          `session ${p.session_id} was closed while checks ran`,
        );
      }
      return {
        report: out.report,
        binding: wireBinding(out.binding),
        runs: out.runs.map(wireRun),
        isolation: { ...out.isolation },
      };
    },
  ),
  "session.baseline": defineRead(
    "The current turn's baseline as a turngate.workspace_snapshot.v1 object (docs/cli.md \"Gapless turns\"): after session.end_turn ended a turn, the state that turn was judged on; while a turn is open, that turn's baseline, so its changes — verified or not — stay in the ledger of whoever continues from it. Pass it as a later session.create's options.continue_from (another bridge process, a restarted host) so no change made between the two sessions is dropped. One entry per file (paths, content digests, stat data): keep it where the agent cannot write it.",
    z.strictObject({ baseline: jsonObject() }),
    (session) => ({
      baseline: serializeSnapshot(session.baseline) as unknown as Record<string, unknown>,
    }),
  ),
  "session.effect_digest": defineRead(
    "The session ledger's current effect digest.",
    z.strictObject({ effect_digest: Digest }),
    (session) => ({ effect_digest: session.effectDigest }),
  ),
  "session.decide": defineRead(
    "Completion gate decision for the session: its ledger, reports and waivers (the host attestor, when set, runs first). The outcome is kept for session.proof.",
    GateOutcomeSchema,
    (session) => session.decide(),
  ),
  "session.end_turn": defineRead(
    "Ends the turn (issue 13; a3s-completion-gate.md §1.17): re-reads the workspace and decides. When the gate allows, ended is true, result carries A3S's result fields (completion, verification_status, pending/failed/report counts, summary text) over the turn's own reports, its refused tool reports and proof, and the next turn begins with an empty ledger and, as its baseline, the state this turn was judged on (gapless turns: a change made after the decision is the next turn's) (the session keeps its reports, but an earlier turn's report is never a later turn's gate input). Otherwise ended is false and outcome says why; the turn stays open.",
    TurnEndSchema,
    async (session) => {
      try {
        const result = await session.endTurn();
        return {
          ended: true,
          outcome: { kind: "allow" as const, terminal: result.completion },
          result: wireTurnResult(result),
        };
      } catch (error) {
        if (error instanceof TurngateGateError) return { ended: false, outcome: error.outcome };
        throw error;
      }
    },
  ),
  "session.goal_criteria": defineRead(
    "The goal criteria of the current turn (a3s-completion-gate.md §2.14), read when the turn started: the ACCEPTANCE.md machine criteria of every active loop (STATE.md Status: running, retrying or paused) under .a3s/loops/<id>/ and .turngate/goals/<id>/; they are shell-evidence candidates after the presets. Files that cannot be read are listed in unreadable.",
    GoalCriteriaSchema,
    (session) => session.goalCriteria(),
  ),
  "session.goal_achievement": define(
    "Goal-achievement gating over the current turn's reports and goal criteria (§2.15): the model's claim counts only when the reports support it and every active loop has a passing shell:acceptance report of its own criteria.",
    z.strictObject({ session_id: SessionId, llm_achieved: z.boolean() }),
    GoalAchievementSchema,
    async (p, ctx) => ctx.sessions.get(p.session_id).session.goalAchievement(p.llm_achieved),
  ),
  "session.record_observation": define(
    "Binds an external observation to the session (a3s-completion-gate.md §1.14, §2.12): the newest per subject counts; required_action workspace_change keeps the turn open (continue once per turn with allow_continuation, else incomplete); a host waiver of its digest or of the effect digest clears it. A payload over 8192 bytes or a blank digest is refused (path observation.payload / observation.digest) and nothing is recorded.",
    z.strictObject({ session_id: SessionId, observation: ExternalObservationSchema }),
    z.strictObject({ observation: ExternalObservationSchema }),
    async (p, ctx) => {
      const { session } = ctx.sessions.get(p.session_id);
      return {
        observation: session.recordObservation(p.observation),
      };
    },
  ),
  "session.verifier_run": defineRead(
    "How the turn's read-only verifier run went, once it ran (null before): status reported, no_report, refused, crashed, timed_out or verifier_changed_workspace (its report is void), the digest it ran for, a message, the paths it changed and the report recorded for it.",
    z.strictObject({ verifier_run: VerifierRunSchema.nullable() }),
    (session) => {
      const run = session.verifierRun;
      if (run === undefined) return { verifier_run: null };
      return {
        verifier_run: {
          status: run.status,
          effect_digest: run.effectDigest,
          ...(run.message !== undefined ? { message: run.message } : {}),
          ...(run.changedPaths !== undefined ? { changed_paths: run.changedPaths } : {}),
          ...(run.report !== undefined ? { report: run.report } : {}),
        },
      };
    },
  ),
  "session.refused_reports": defineRead(
    "Every report tool results carried that was refused in this session, in order (reason, typed code and message, the author and report as given).",
    z.strictObject({ refused_reports: z.array(RefusedReportSchema) }),
    (session) => ({ refused_reports: session.refusedReports().map(wireRefused) }),
  ),
  "session.proof": defineRead(
    "The turn proof (turn_proof.v1) of the last decision: ledger rows, effect digest, bound reports, waivers used, terminal, outcome, tool versions and timestamps. Errors: not_decided before session.decide (or after a change since), turn_not_allowed when the decision was not allow.",
    z.strictObject({ proof: TurnProofSchema }),
    (session) => ({ proof: session.proof() }),
  ),
};
