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
 * Goose (https://block.github.io/goose/docs/guides/context-engineering/hooks; Open Plugins
 * hooks): a plugin folder `~/.agents/plugins/<name>/` (user) or
 * `<project>/.agents/plugins/<name>/` with `plugin.json` and `hooks/hooks.json`. Payloads
 * carry `event`, `session_id`, and where they apply `message` (UserPromptSubmit),
 * `tool_name` / `tool_input` / `working_dir` (tool events), `last_assistant_message` (Stop).
 * Only PreToolUse and Stop can block: exit 2 with the reason on stderr, or
 * `{"decision":"block","reason"}` on stdout whatever the exit status; a Stop hook that gives
 * no decision is fail-open, so turngate always gives one. Goose ends the turn when a Stop
 * hook blocked "more than" GOOSE_STOP_HOOK_BLOCK_CAP (8 in goose's source) consecutive
 * times, so the block after the cap is the one recorded `capped`. A prompt cannot
 * be kept from the model: a `/turngate waive` prompt is recorded and still reaches it.
 */
export const gooseAdapter: HarnessAdapter = {
  name: "goose",
  docs: ["https://block.github.io/goose/docs/guides/context-engineering/hooks"],
  eventKind(event) {
    const kinds: Record<string, HookEventKind> = {
      SessionStart: "turn_start",
      UserPromptSubmit: "turn_start",
      PostToolUse: "tool",
      AfterFileEdit: "tool",
      Stop: "stop",
    };
    return kinds[event];
  },
  sessionId: (payload) => text(payload.session_id),
  workspaceDir: (payload) => text(payload.working_dir) ?? text(payload.cwd),
  prompt: (payload) => text(payload.message) ?? text(payload.prompt),
  toolTouch(payload) {
    const tool = text(payload.tool_name);
    if (!tool) return undefined;
    const input = record(payload.tool_input) ?? {};
    const path = text(input.path) ?? text(input.file_path);
    return { tool, paths: path ? [path] : [] };
  },
  atCap: () => false,
  reasonMaxChars: HOOK_REASON_MAX_CHARS,
  blockCap: (env) =>
    envInteger(env, BLOCK_CAP_ENV, envInteger(env, "GOOSE_STOP_HOOK_BLOCK_CAP", 8) + 1),
  reply(kind, answer) {
    if (answer.kind === "block") {
      return {
        stdout: `${JSON.stringify({ decision: "block", reason: answer.reason })}\n`,
        stderr: `${answer.reason}\n`,
        exitCode: 2,
      };
    }
    const notice = answer.notice;
    if (kind === "stop") {
      return {
        stdout: `${JSON.stringify({ decision: "allow" })}\n`,
        stderr: notice ? `${notice}\n` : "",
        exitCode: 0,
      };
    }
    return { stdout: "", stderr: notice ? `${notice}\n` : "", exitCode: 0 };
  },
  installEntries: [
    { event: "SessionStart" },
    { event: "UserPromptSubmit" },
    { event: "PostToolUse" },
    { event: "Stop" },
  ],
};
