import {
  BLOCK_CAP_ENV,
  envInteger,
  type HarnessAdapter,
  HOOK_REASON_MAX_CHARS,
  type HookEventKind,
  text,
} from "./types.js";

/** Cursor's default `loop_limit` for stop follow-ups (hooks docs: follow-ups are capped, 5 by default). */
export const CURSOR_DEFAULT_LOOP_LIMIT = 5;

/**
 * Cursor (https://cursor.com/docs/agent/hooks; `.cursor/hooks.json` / `~/.cursor/hooks.json`,
 * `{"version": 1, "hooks": {event: [{command, loop_limit?}]}}`): every payload carries
 * `conversation_id`, `generation_id`, `hook_event_name`, `workspace_roots`; `stop` adds
 * `status` (`completed`, `aborted`, `error`) and `loop_count`. A stop answers
 * `{"followup_message": …}` on stdout, which Cursor submits as the next user message, up
 * to the hook's `loop_limit` (default 5): at `loop_count` ≥ `loop_limit` a follow-up is not
 * sent, so turngate records the turn `incomplete` / `capped` instead of blocking.
 * `beforeSubmitPrompt` answers `{"continue": false, "user_message": …}` to keep a prompt
 * from the model; `afterFileEdit` sends `file_path`. Cursor payloads may start with a UTF-8
 * BOM (seen on Windows).
 */
export const cursorAdapter: HarnessAdapter = {
  name: "cursor",
  docs: ["https://cursor.com/docs/agent/hooks"],
  eventKind(event) {
    const kinds: Record<string, HookEventKind> = {
      beforeSubmitPrompt: "turn_start",
      afterFileEdit: "tool",
      afterShellExecution: "tool",
      stop: "stop",
    };
    return kinds[event];
  },
  sessionId: (payload) => text(payload.conversation_id),
  workspaceDir(payload, env) {
    const roots = payload.workspace_roots;
    const first = Array.isArray(roots) ? text(roots[0]) : undefined;
    return first ?? text(payload.cwd) ?? text(env.CURSOR_PROJECT_DIR);
  },
  prompt: (payload) => text(payload.prompt),
  toolTouch(payload) {
    const path = text(payload.file_path);
    if (path) return { tool: "afterFileEdit", paths: [path] };
    if (text(payload.command)) return { tool: "shell", paths: [] };
    return undefined;
  },
  atCap(payload, env) {
    const count = payload.loop_count;
    const limit = envInteger(env, BLOCK_CAP_ENV, CURSOR_DEFAULT_LOOP_LIMIT);
    return typeof count === "number" && count >= limit;
  },
  reasonMaxChars: HOOK_REASON_MAX_CHARS,
  blockCap: (env) => envInteger(env, BLOCK_CAP_ENV, CURSOR_DEFAULT_LOOP_LIMIT),
  reply(kind, answer) {
    if (kind === "stop") {
      if (answer.kind === "block") {
        return {
          stdout: `${JSON.stringify({ followup_message: answer.reason })}\n`,
          stderr: `${answer.reason}\n`,
          exitCode: 0,
        };
      }
      return {
        stdout: "{}\n",
        stderr: answer.kind === "allow" && answer.notice ? `${answer.notice}\n` : "",
        exitCode: 0,
      };
    }
    if (kind === "turn_start") {
      if (answer.kind === "handled") {
        return {
          stdout: `${JSON.stringify({ continue: false, user_message: answer.notice })}\n`,
          stderr: "",
          exitCode: 0,
        };
      }
      return { stdout: `${JSON.stringify({ continue: true })}\n`, stderr: "", exitCode: 0 };
    }
    return { stdout: "{}\n", stderr: "", exitCode: 0 };
  },
  installEntries: [
    { event: "beforeSubmitPrompt" },
    { event: "afterFileEdit" },
    { event: "afterShellExecution" },
    { event: "stop" },
  ],
};
