import {
  BLOCK_CAP_ENV,
  envInteger,
  type HarnessAdapter,
  HOOK_REASON_MAX_CHARS,
  type HookEventKind,
  record,
  text,
} from "./types.js";

/**
 * OpenAI Codex CLI (https://developers.openai.com/codex/hooks; the Stop input and output
 * schemas are `codex-rs/hooks/schema/generated/stop.command.{input,output}.schema.json`):
 * Stop sends `session_id`, `turn_id`, `cwd`, `stop_hook_active`, `last_assistant_message`,
 * `model`, `permission_mode`, `transcript_path`; it answers with JSON on stdout —
 * `{"decision":"block","reason"}` continues the turn with the reason for the model,
 * `systemMessage` is shown to the person. Matching hooks of every config layer run, and
 * they run concurrently (so another tool's hook may write while turngate's checks run: the
 * sealed checks then unbind and say which path). Codex documents no stop-block cap; set
 * TURNGATE_HOOK_BLOCK_CAP if one is configured. The reason also goes to stderr, which one
 * of Codex's channels discards (codex#46455): stdout is the channel that decides.
 */
export const codexAdapter: HarnessAdapter = {
  name: "codex",
  docs: ["https://developers.openai.com/codex/hooks"],
  eventKind(event) {
    const kinds: Record<string, HookEventKind> = {
      SessionStart: "turn_start",
      UserPromptSubmit: "turn_start",
      PostToolUse: "tool",
      Stop: "stop",
      SubagentStop: "stop",
    };
    return kinds[event];
  },
  sessionId: (payload) => text(payload.session_id),
  workspaceDir: (payload) => text(payload.cwd),
  prompt: (payload) => text(payload.prompt),
  toolTouch(payload) {
    const tool = text(payload.tool_name);
    if (!tool) return undefined;
    const input = record(payload.tool_input) ?? {};
    const path = text(input.file_path) ?? text(input.path);
    return { tool, paths: path ? [path] : [] };
  },
  atCap: () => false,
  reasonMaxChars: HOOK_REASON_MAX_CHARS,
  blockCap(env) {
    const cap = envInteger(env, BLOCK_CAP_ENV, 0);
    return cap > 0 ? cap : null;
  },
  reply(kind, answer) {
    if (answer.kind === "block") {
      return {
        stdout: `${JSON.stringify({ decision: "block", reason: answer.reason })}\n`,
        stderr: `${answer.reason}\n`,
        exitCode: 0,
      };
    }
    if (answer.kind === "handled") {
      return {
        stdout: `${JSON.stringify({ decision: "block", reason: answer.notice })}\n`,
        stderr: "",
        exitCode: 0,
      };
    }
    if (answer.notice !== undefined && kind !== "tool") {
      return {
        stdout: `${JSON.stringify({ systemMessage: answer.notice })}\n`,
        stderr: "",
        exitCode: 0,
      };
    }
    return { stdout: "", stderr: "", exitCode: 0 };
  },
  installEntries: [
    { event: "SessionStart" },
    { event: "UserPromptSubmit" },
    { event: "PostToolUse" },
    { event: "Stop" },
  ],
};
