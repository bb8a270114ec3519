import { readFile } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import { Session } from "@turngate/node";
import { baselineIdOf, recordBaselineHistory, writeBaseline } from "../baseline-store.js";
import { loadConfig } from "../config.js";
import { CLI_VERSION, type CliContext } from "../context.js";
import { turnCheckEnvironment } from "../turn.js";
import type { HarnessAdapter, HookAnswer } from "./adapters/index.js";
import { decideOptIn, type OptIn } from "./opt-in.js";
import {
  type HookSession,
  type HookSessionPaths,
  newSession,
  TOOL_ROWS_KEPT,
  TURNS_KEPT,
  withSession,
} from "./session-state.js";
import { parseWaivePrompt } from "./waive-prompt.js";

/** Terminals after which the next prompt starts from a fresh baseline. */
export const ENDED_OK: readonly string[] = ["verified", "waived", "narrative", "distinct"];

/** What every event handler gets. */
export interface HookEventContext {
  ctx: CliContext;
  adapter: HarnessAdapter;
  payload: Record<string, unknown>;
  root: string;
  sessionId: string;
  paths: HookSessionPaths;
  /**
   * The hook comes from a user-level install (`turngate hook <harness> <event> --user`): it
   * gates only projects that opted in (`decideOptIn`, issue 34 item 4).
   */
  userLevel?: boolean;
}

/**
 * A turn starts (SessionStart, UserPromptSubmit, Cursor `beforeSubmitPrompt`; issue 19
 * item 1): a prompt `/turngate waive <digest> <reason>` records the person's waiver and is
 * kept from the model (where the harness allows); otherwise a baseline is taken in the
 * session's state folder (outside the workspace) and its id kept in the session file —
 * unless the last turn did not end verified, waived or narrative: then the baseline is
 * carried over, so changes no check passed stay in the next stop's digest (fail closed).
 * A turn with no stop and no tool event yet is reused (SessionStart then UserPromptSubmit).
 * A user-level hook (`event.userLevel`) first decides whether the project opted in
 * (`decideOptIn`; kept when unverified changes are carried over): a project that did not
 * gets a turn with no baseline, whose stop passes with one line (issue 34 item 4).
 * A baseline that cannot be taken (a malformed `turngate.config.json`, …) is recorded as the
 * turn's `start_error`: the answer is an allow with a notice, and the stop repeats the cause
 * (issue 34 item 5); the old baseline, if any, stays, so no change is dropped.
 * Output: the answer (allow, or `handled` for a waiver prompt).
 * Errors: session-file errors propagate (the caller answers `allow` with a notice).
 */
export async function handleTurnStart(event: HookEventContext): Promise<HookAnswer> {
  const { ctx, adapter, root, sessionId, paths } = event;
  const waive = parseWaivePrompt(adapter.prompt(event.payload));
  if (waive !== undefined) {
    if ("error" in waive) return { kind: "handled", notice: `turngate: ${waive.error}` };
    await withSession(
      paths,
      () => newSession(adapter.name, sessionId, root),
      (session) => {
        session.waivers.push({
          effect_digest: waive.digest,
          reason: waive.reason,
          by: "prompt",
          at: new Date().toISOString(),
        });
      },
    );
    return {
      kind: "handled",
      notice: `turngate: waiver recorded for effect digest ${waive.digest} (${waive.reason}); the next stop whose changes have exactly this digest ends as waived.`,
    };
  }
  const notice = await withSession(
    paths,
    () => newSession(adapter.name, sessionId, root),
    async (session) => {
      const turn = session.turn;
      if (
        turn &&
        turn.last === null &&
        turn.tools.length === 0 &&
        session.baseline_id !== null &&
        turn.start_error === undefined
      ) {
        return undefined;
      }
      const carry =
        session.baseline_id !== null &&
        turn !== null &&
        !(turn.last !== null && ENDED_OK.includes(turn.last.verdict));
      let startError: string | undefined;
      let optIn: OptIn | undefined;
      if (event.userLevel === true) {
        // Changes no check passed yet keep the project gated, whatever its config says now.
        if (carry && turn?.opt_in?.gated !== false) {
          optIn = { gated: true, why: "the last turn's changes are not verified yet" };
        } else {
          try {
            optIn = decideOptIn(root, ctx.env);
          } catch (error) {
            // Fail closed: a user config turngate cannot read gates the turn, and the stop
            // repeats why.
            startError = (error as Error).message;
            optIn = { gated: true, why: "the user config could not be read" };
          }
        }
      }
      if (turn) {
        session.history.push({ number: turn.number, started_at: turn.started_at, last: turn.last });
        session.history = session.history.slice(-TURNS_KEPT);
      }
      if (optIn !== undefined && !optIn.gated) {
        // Not gated: no baseline (a later opted-in turn takes a fresh one).
        session.baseline_id = null;
        session.baseline_taken_at = null;
      } else if (!carry && startError === undefined) {
        try {
          await takeBaseline(session, paths, root, ctx);
        } catch (error) {
          startError = (error as Error).message;
        }
      }
      session.turn = {
        number: (turn?.number ?? 0) + 1,
        started_at: new Date().toISOString(),
        baseline_id: session.baseline_id,
        carried_over: carry,
        blocks: 0,
        attempts: {},
        tools: [],
        last: null,
        ...(optIn !== undefined ? { opt_in: optIn } : {}),
        ...(startError !== undefined ? { start_error: startError } : {}),
      };
      if (startError !== undefined) {
        return `turngate: this turn could not start: ${startError}. The next stop will be blocked until this is fixed.`;
      }
      return carry
        ? `turngate: the last turn did not end verified, waived or narrative (${turn?.last ? `${turn.last.verdict}${turn.last.reason ? `, ${turn.last.reason}` : ""}` : "no stop was judged"}); its changes stay in this turn's digest until a passing check or a waiver covers them.`
        : undefined;
    },
  );
  return notice === undefined ? { kind: "allow" } : { kind: "allow", notice };
}

/** Take a baseline for `session` into `paths.baseline` and record its id. */
async function takeBaseline(
  session: HookSession,
  paths: HookSessionPaths,
  root: string,
  ctx: CliContext,
): Promise<void> {
  const config = loadConfig(root, undefined);
  const started = await Session.start({
    root,
    ignores: config.ignores,
    ...(config.outputs !== undefined ? { outputs: config.outputs } : {}),
    ...(config.defaultOutputs !== undefined ? { defaultOutputs: config.defaultOutputs } : {}),
    env: ctx.env,
    checkEnvironment: turnCheckEnvironment(root, config, paths.dir, undefined),
  });
  const id = await writeBaseline(
    paths.baseline,
    started.baseline,
    config,
    CLI_VERSION,
    started.environmentBaseline,
    started.baselineTree,
  );
  // The id is the SHA-256 of the bytes written; re-read to be sure what is on disk is ours.
  const written = await readFile(paths.baseline);
  if (baselineIdOf(written) !== id) {
    throw new Error(`the baseline ${paths.baseline} changed while it was written`);
  }
  const takenAt = new Date().toISOString();
  await recordBaselineHistory(paths.baselineHistory, { id, taken_at: takenAt });
  session.baseline_id = id;
  session.baseline_taken_at = takenAt;
}

/**
 * A tool ran (PostToolUse, Cursor `afterFileEdit`, …): record which tool named which path
 * (relative to the workspace when inside it), to name rows in later answers. The digest
 * never comes from here — it is always recomputed from the bytes on disk — and nothing of
 * the payload's tool output is read (a tool or MCP server could claim anything).
 * Output: allow. Errors: the session write's.
 */
export async function handleTool(event: HookEventContext): Promise<HookAnswer> {
  const touch = event.adapter.toolTouch(event.payload);
  if (!touch) return { kind: "allow" };
  await withSession(
    event.paths,
    () => newSession(event.adapter.name, event.sessionId, event.root),
    (session) => {
      if (!session.turn) return;
      const at = new Date().toISOString();
      const rows =
        touch.paths.length === 0
          ? [{ tool: touch.tool, path: null, at }]
          : touch.paths.map((path) => ({
              tool: touch.tool,
              path: workspacePath(event.root, path),
              at,
            }));
      session.turn.tools = [...session.turn.tools, ...rows].slice(-TOOL_ROWS_KEPT);
    },
  );
  return { kind: "allow" };
}

/** `path` relative to `root` when it lies inside it, else as given. */
function workspacePath(root: string, path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
