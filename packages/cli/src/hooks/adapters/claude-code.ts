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
 * Claude Code (https://code.claude.com/docs/en/hooks): every event sends `session_id`,
 * `transcript_path`, `cwd`, `hook_event_name` on stdin; `CLAUDE_PROJECT_DIR` names the
 * project. Exit 0 = success (stdout JSON read), exit 2 = blocking error with stderr fed to
 * Claude, **any other code is a non-blocking error** — so turngate never exits 1 from a hook
 * (fail closed, claude-code#44707). A Stop/SubagentStop block is exit 2 with the reason on
 * stderr; a prompt turngate handled is `{"decision":"block","reason"}` on UserPromptSubmit
 * (the prompt is erased, the reason shown to the person). Claude Code hands 8 consecutive
 * Stop-hook blocks back to the model and ends the turn at the 9th (not on the reference
 * page; measured with Claude Code 2.1.328 in test/hooks/real-harness/claude-code.test.ts),
 * so the 9th block is the one recorded `capped`; override with TURNGATE_HOOK_BLOCK_CAP.
 */
export const claudeCodeAdapter: HarnessAdapter = {
  name: "claude-code",
  docs: ["https://code.claude.com/docs/en/hooks"],
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
  workspaceDir: (payload, env) => text(payload.cwd) ?? text(env.CLAUDE_PROJECT_DIR),
  projectDir: (env) => text(env.CLAUDE_PROJECT_DIR),
  prompt: (payload) => text(payload.prompt),
  toolTouch(payload) {
    const tool = text(payload.tool_name);
    if (!tool) return undefined;
    const input = record(payload.tool_input) ?? {};
    const path = text(input.file_path) ?? text(input.notebook_path) ?? text(input.path);
    return { tool, paths: path ? [path] : [] };
  },
  atCap: () => false,
  reasonMaxChars: HOOK_REASON_MAX_CHARS,
  blockCap: (env) => envInteger(env, BLOCK_CAP_ENV, 9),
  reply(kind, answer) {
    if (answer.kind === "block") {
      // Exit 2 on Stop: "prevents stopping, shows stderr to Claude" (hooks reference, exit
      // code 2 behaviour); stdout is ignored then.
      return { stdout: "", stderr: `${answer.reason}\n`, exitCode: 2 };
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
    { event: "PostToolUse", matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash" },
    { event: "Stop" },
    { event: "SubagentStop" },
  ],
};
