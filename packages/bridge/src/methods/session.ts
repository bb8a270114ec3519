/**
 * `session.*` methods (stateful, server only): wrap `@turngate/node`'s `Session` — one per
 * `session.create`, addressed by `session_id` — so a binding drives the same host session a
 * Node host gets in-process (DESIGN §1, §3, a3s-completion-gate.md §2.16).
 */
import { z } from "zod";
import { BridgeError } from "../errors.js";
import { defineMethod, type MethodContext } from "../method.js";
import { PROGRESS_NOTIFICATION } from "../protocol.js";
import type { HostProgressEvent } from "../server/host-session.js";
import { openHostSession } from "../server/open-session.js";
import type { SessionRegistry } from "../server/sessions.js";
import {
  CompletionWaiverSchema,
  GateOutcomeSchema,
  TurnProofSchema,
  VerificationCommandSchema,
  VerificationPresetSchema,
  VerificationReportSchema,
  VerificationSummarySchema,
} from "../wire/domain.js";
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

/** Wire form of a progress event (the `progress` notification's params). */
export function progressParams(requestId: string | number | null, event: HostProgressEvent) {
  const body: Record<string, unknown> = {
    request_id: requestId,
    event: event.type,
    index: event.index,
    check_id: event.id,
    command: event.command,
  };
  if (event.type === "check_finished") {
    body.status = event.status;
    body.exit_code = event.exit_code ?? null;
    body.duration_ms = event.duration_ms;
  }
  return body;
}

export const sessionMethods = {
  "session.create": define(
    "Opens a host session on a workspace root (absolute, or relative to the bridge's cwd): the run-start baseline is taken now. `waivers` are host waivers the gate honours.",
    z.strictObject({
      root: z.string().min(1).describe("workspace root directory"),
      waivers: z.array(CompletionWaiverSchema).default([]),
      options: z.strictObject({}).default({}).describe("host options of the session"),
    }),
    z.strictObject({ session_id: SessionId }),
    async (p, ctx) => {
      const abort = new AbortController();
      const session = await openHostSession({
        root: p.root,
        waivers: p.waivers,
        signal: abort.signal,
      });
      return { session_id: ctx.sessions.add(session, abort) };
    },
  ),
  "session.close": define(
    "Closes a session: running checks are killed (their calls answer session_closed); the id becomes unknown.",
    only,
    z.strictObject({}),
    async (p, ctx) => {
      await ctx.sessions.close(p.session_id);
      return {};
    },
  ),
  "session.observe_tool": define(
    "Observes one tool result into the session's mutation ledger (a3s-completion-gate.md §2.1) and returns the resulting effect digest.",
    z.strictObject({
      session_id: SessionId,
      tool: z.string(),
      exit_code: z.int(),
      metadata: z.record(z.string(), z.unknown()).optional(),
    }),
    z.strictObject({ effect_digest: Digest }),
    async (p, ctx) => {
      const { session } = ctx.sessions.get(p.session_id);
      await session.observeTool(p.tool, p.exit_code, p.metadata);
      return { effect_digest: session.effectDigest };
    },
  ),
  "session.observe_workspace": define(
    "Re-reads the workspace against the session's baseline; changed paths join the ledger with the SHA-256 of their bytes. Returns the resulting effect digest.",
    only,
    z.strictObject({ effect_digest: Digest }),
    async (p, ctx) => {
      const { session } = ctx.sessions.get(p.session_id);
      await session.observeWorkspace();
      return { effect_digest: session.effectDigest };
    },
  ),
  "session.record_reports": define(
    "Records host verification reports. A report whose status differs from the status derived from its checks is refused (report_status_mismatch, path reports.N.status) and nothing is recorded.",
    z.strictObject({ session_id: SessionId, reports: z.array(VerificationReportSchema) }),
    z.strictObject({ recorded: z.int().nonnegative() }),
    async (p, ctx) => {
      const { session } = ctx.sessions.get(p.session_id);
      acceptHostReports(p.reports, "reports");
      await session.recordVerificationReports(p.reports);
      return { recorded: p.reports.length };
    },
  ),
  "session.reports": define(
    "Every report recorded in the session, in recording order.",
    only,
    z.strictObject({ reports: z.array(VerificationReportSchema) }),
    async (p, ctx) => ({
      reports: await ctx.sessions.get(p.session_id).session.verificationReports(),
    }),
  ),
  "session.summary": define(
    "Verification summary over the session's reports.",
    only,
    VerificationSummarySchema,
    async (p, ctx) => ctx.sessions.get(p.session_id).session.verificationSummary(),
  ),
  "session.summary_text": define(
    "One-line summary text over the session's reports (a3s-completion-gate.md §2.19).",
    only,
    z.strictObject({ text: z.string() }),
    async (p, ctx) => ({
      text: await ctx.sessions.get(p.session_id).session.verificationSummaryText(),
    }),
  ),
  "session.presets": define(
    "Verification presets detected at the workspace root (Rust, Node, Python, Go; a3s-completion-gate.md §2.17).",
    only,
    z.strictObject({ presets: z.array(VerificationPresetSchema) }),
    async (p, ctx) => ({
      presets: await ctx.sessions.get(p.session_id).session.verificationPresets(),
    }),
  ),
  "session.verify_commands": define(
    "Runs verification commands in order and records the resulting report. With `bind`, the workspace is snapshotted before and after: unchanged → the report is bound to the effect digest; changed → unbound and stale. Sends `progress` notifications (check_started, check_finished) carrying this request's id.",
    z.strictObject({
      session_id: SessionId,
      subject: z.string(),
      commands: z.array(VerificationCommandSchema),
      bind: z.boolean().default(false),
    }),
    z.strictObject({ report: VerificationReportSchema }),
    async (p, ctx) => {
      const entry = ctx.sessions.get(p.session_id);
      const onProgress = (event: HostProgressEvent) =>
        ctx.notify(PROGRESS_NOTIFICATION, progressParams(ctx.requestId, event));
      try {
        const report = await entry.session.verifyCommands(p.subject, p.commands, {
          bind: p.bind,
          onProgress,
          signal: entry.abort.signal,
        });
        return { report };
      } catch (error) {
        if (entry.abort.signal.aborted) {
          throw new BridgeError(
            "session_closed",
            `session ${p.session_id} was closed while checks ran`,
          );
        }
        throw error;
      }
    },
  ),
  "session.effect_digest": define(
    "The session ledger's current effect digest.",
    only,
    z.strictObject({ effect_digest: Digest }),
    async (p, ctx) => ({ effect_digest: ctx.sessions.get(p.session_id).session.effectDigest }),
  ),
  "session.decide": define(
    "Completion gate decision for the session (its ledger, reports and waivers).",
    z.strictObject({ session_id: SessionId, allow_continuation: z.boolean().default(false) }),
    GateOutcomeSchema,
    async (p, ctx) =>
      ctx.sessions.get(p.session_id).session.decide({ allowContinuation: p.allow_continuation }),
  ),
  "session.proof": define(
    "The turn proof (turn_proof.v1) of the session: ledger rows, effect digest, bound reports, waivers used, terminal, gate outcome, tool versions and timestamps.",
    only,
    z.strictObject({ proof: TurnProofSchema }),
    async (p, ctx) => ({ proof: await ctx.sessions.get(p.session_id).session.proof() }),
  ),
};
