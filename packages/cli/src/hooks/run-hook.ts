import type { CliContext } from "../context.js";
import {
  ADAPTERS,
  boundAnswer,
  type Harness,
  type HarnessReply,
  type HookAnswer,
  type HookEventKind,
} from "./adapters/index.js";
import { handleTool, handleTurnStart } from "./events.js";
import { parsePayload } from "./payload.js";
import { locateSessionWorkspace, withWorkspaceNote } from "./session-pin.js";
import { hookSessionPaths } from "./session-state.js";
import { handleStop } from "./stop.js";

/**
 * `turngate hook <harness> <event>` (issue 19 item 1): read the event payload, find the
 * harness session and its workspace (pinned by the session's first turn start:
 * `locateSessionWorkspace`, docs/hooks.md "Where the workspace is"), handle the event and answer in the harness's own
 * format, channel and exit code. **Fail closed**: at a stop, every problem — malformed
 * JSON, no session id, a workspace that cannot be used, an internal error — is a block with
 * a reason the harness shows (never exit 1, which Claude Code treats as "go on"); at a turn
 * start or tool event the problem is reported and the event allowed (the stop then blocks:
 * it finds no baseline). An event name turngate does not know is answered as a stop would
 * be — a block — so a misconfigured hook is seen at once.
 * Input: harness, event name, stdin bytes, the CLI context, and `userLevel` (the hook comes
 * from a user-level install: it gates only projects that opted in, issue 34 item 4).
 * Output: the reply to write.
 * Never throws.
 */
export async function runHook(
  harness: Harness,
  event: string,
  stdin: Uint8Array,
  ctx: CliContext,
  options: { userLevel?: boolean } = {},
): Promise<HarnessReply> {
  const adapter = ADAPTERS[harness];
  const kind: HookEventKind = adapter.eventKind(event) ?? "stop";
  try {
    if (adapter.eventKind(event) === undefined) {
      return adapter.reply(kind, {
        kind: "block",
        reason: `turngate: \`turngate hook ${harness} ${event}\` is not an event turngate handles for ${harness} (known: ${adapter.installEntries.map((e) => e.event).join(", ")}); fix the hook configuration (\`turngate hook install ${harness}\` writes it).`,
      });
    }
    const parsed = parsePayload(stdin);
    if (!parsed.ok)
      return adapter.reply(kind, failed(kind, `${parsed.error}; the hook cannot judge this event`));
    const payload = parsed.payload;
    const sessionId = adapter.sessionId(payload);
    if (sessionId === undefined) {
      return adapter.reply(
        kind,
        failed(
          kind,
          "the payload has no session id, so turngate cannot find this session's baseline",
        ),
      );
    }
    const { root, note } = await locateSessionWorkspace({
      harness,
      adapter,
      kind,
      payload,
      sessionId,
      env: ctx.env,
      cwd: ctx.cwd,
    });
    const paths = hookSessionPaths(root, harness, sessionId, ctx.env);
    const context = {
      ctx,
      adapter,
      payload,
      root,
      sessionId,
      paths,
      userLevel: options.userLevel === true,
    };
    let answer: HookAnswer;
    if (kind === "turn_start") answer = await handleTurnStart(context);
    else if (kind === "tool") answer = await handleTool(context);
    else answer = await handleStop(context);
    return adapter.reply(
      kind,
      boundAnswer(withWorkspaceNote(answer, note), adapter.reasonMaxChars),
    );
  } catch (error) {
    return adapter.reply(kind, failed(kind, `internal error: ${(error as Error).message}`));
  }
}

/** The answer to an event turngate could not handle: a block at a stop, else an allow with a notice. */
function failed(kind: HookEventKind, why: string): HookAnswer {
  if (kind === "stop") {
    return {
      kind: "block",
      reason: `turngate blocked the stop because it could not judge it (fail closed): ${why}. Tell the person; they can fix turngate's setup or waive the turn.`,
    };
  }
  return {
    kind: "allow",
    notice: `turngate: ${why}; the next stop will be blocked until this is fixed.`,
  };
}
