/**
 * Payload fixtures of each harness's documented hook events (issue 19 item 6), with every
 * field the harness's page lists, and the reading of an answer by that harness's documented
 * semantics. Sources:
 * - Claude Code: https://code.claude.com/docs/en/hooks (common fields session_id,
 *   transcript_path, cwd, permission_mode, hook_event_name; Stop adds stop_hook_active and
 *   last_assistant_message; exit 0 / exit 2 blocks with stderr / any other exit is a
 *   non-blocking error);
 * - Codex: https://developers.openai.com/codex/hooks and codex-rs/hooks/schema/generated/
 *   stop.command.{input,output}.schema.json (session_id, turn_id, cwd, hook_event_name,
 *   model, permission_mode, stop_hook_active, last_assistant_message, transcript_path);
 * - Cursor: https://cursor.com/docs/agent/hooks (conversation_id, generation_id, model,
 *   hook_event_name, cursor_version, workspace_roots, user_email; stop adds status and
 *   loop_count; answers followup_message);
 * - Goose: goose's hooks guide (event, session_id, message, tool_name, tool_input,
 *   working_dir, last_assistant_message; exit 2 or {"decision":"block"} blocks).
 */
import { readdirSync } from "node:fs";
import type { Harness } from "../../src/hooks/adapters/index.js";
import { SESSION_ROOTS_DIR } from "../../src/hooks/session-pin.js";

/**
 * The workspace folders under a hook state folder: every entry but the sessions' pinned
 * workspaces (`session-roots/`, docs/hooks.md "Where the workspace is").
 */
export function workspaceStateDirs(state: string): string[] {
  return readdirSync(state).filter((name) => name !== SESSION_ROOTS_DIR);
}

/** The kinds of event the scenarios send. */
export type FixtureEvent = "turn_start" | "tool" | "stop";

/** The harness's event name for each kind. */
export const EVENT_NAMES: Record<Harness, Record<FixtureEvent, string>> = {
  "claude-code": { turn_start: "UserPromptSubmit", tool: "PostToolUse", stop: "Stop" },
  codex: { turn_start: "UserPromptSubmit", tool: "PostToolUse", stop: "Stop" },
  cursor: { turn_start: "beforeSubmitPrompt", tool: "afterFileEdit", stop: "stop" },
  goose: { turn_start: "UserPromptSubmit", tool: "PostToolUse", stop: "Stop" },
};

/** Options of one payload. */
export interface FixtureOptions {
  session: string;
  /** The workspace directory; null leaves every directory field out (missing `cwd`). */
  root: string | null;
  prompt?: string;
  /** The path a tool event names (absolute). */
  path?: string;
  /** Cursor's loop_count on a stop. */
  loopCount?: number;
  /** Claude Code / Codex stop_hook_active. */
  stopHookActive?: boolean;
}

/** A documented payload of `harness` for an event of `kind`, as a JSON object. */
export function payload(
  harness: Harness,
  kind: FixtureEvent,
  o: FixtureOptions,
): Record<string, unknown> {
  const name = EVENT_NAMES[harness][kind];
  const cwd = o.root === null ? {} : { cwd: o.root };
  switch (harness) {
    case "claude-code": {
      const common = {
        session_id: o.session,
        transcript_path: "/tmp/transcript.jsonl",
        ...cwd,
        permission_mode: "default",
        hook_event_name: name,
      };
      if (kind === "turn_start") return { ...common, prompt: o.prompt ?? "fix the bug" };
      if (kind === "tool") {
        return {
          ...common,
          tool_name: "Write",
          tool_input: { file_path: o.path, content: "…" },
          tool_response: { filePath: o.path, success: true },
          tool_use_id: "toolu_01",
        };
      }
      return {
        ...common,
        stop_hook_active: o.stopHookActive ?? false,
        last_assistant_message: "Done.",
      };
    }
    case "codex": {
      const common = {
        session_id: o.session,
        transcript_path: null,
        ...cwd,
        hook_event_name: name,
        model: "gpt-5",
        permission_mode: "default",
      };
      if (kind === "turn_start")
        return { ...common, turn_id: "turn-1", prompt: o.prompt ?? "fix the bug" };
      if (kind === "tool") {
        return {
          ...common,
          turn_id: "turn-1",
          tool_name: "Bash",
          tool_input: { command: "echo hi" },
          tool_use_id: "call_1",
          tool_response: "hi",
        };
      }
      return {
        ...common,
        turn_id: "turn-1",
        stop_hook_active: o.stopHookActive ?? false,
        last_assistant_message: "Done.",
      };
    }
    case "cursor": {
      const common = {
        conversation_id: o.session,
        generation_id: "gen-1",
        model: "gpt-5",
        hook_event_name: name,
        cursor_version: "2.0.77",
        ...(o.root === null ? {} : { workspace_roots: [o.root] }),
        user_email: "user@example.invalid",
      };
      if (kind === "turn_start")
        return { ...common, prompt: o.prompt ?? "fix the bug", attachments: [] };
      if (kind === "tool") {
        return { ...common, file_path: o.path, edits: [{ old_string: "a", new_string: "b" }] };
      }
      return { ...common, status: "completed", loop_count: o.loopCount ?? 0 };
    }
    case "goose": {
      const common = { event: name, session_id: o.session };
      if (kind === "turn_start") {
        return {
          ...common,
          matcher_context: o.prompt ?? "fix the bug",
          message: o.prompt ?? "fix the bug",
        };
      }
      if (kind === "tool") {
        return {
          ...common,
          matcher_context: "developer__write",
          tool_name: "developer__write",
          tool_input: { path: o.path, content: "…" },
          ...(o.root === null ? {} : { working_dir: o.root }),
          tool_call_id: "call_1",
        };
      }
      return { ...common, last_assistant_message: "Done." };
    }
  }
}

/** How the harness reads a stop hook's reply, by its documented semantics. */
export type StopReading =
  | { decision: "block"; reason: string }
  | { decision: "allow"; notice: string | null }
  /** The harness would go on as if nothing was said (fail-open) — never acceptable at a stop. */
  | { decision: "ignored"; why: string };

/**
 * Read a stop hook's `{stdout, stderr, status}` as `harness` does.
 * - Claude Code: exit 2 blocks with stderr; exit 0 reads stdout JSON (`decision: "block"`
 *   blocks with `reason`); any other exit is a non-blocking error (ignored).
 * - Codex: stdout JSON `decision: "block"` blocks with `reason`; exit 0 otherwise allows.
 * - Cursor: stdout JSON `followup_message` is sent as the next user message (a block).
 * - Goose: exit 2 blocks with stderr; stdout `{"decision":"block"}` blocks whatever the exit;
 *   exit 0 with empty stdout or `{"decision":"allow"}` allows; anything else is no decision.
 */
export function readStop(
  harness: Harness,
  r: { stdout: string; stderr: string; status: number | null },
): StopReading {
  const json = (() => {
    try {
      const v = JSON.parse(r.stdout);
      return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  })();
  const notice = (j: Record<string, unknown> | undefined) =>
    typeof j?.systemMessage === "string"
      ? j.systemMessage
      : r.stderr.trim() === ""
        ? null
        : r.stderr.trim();
  switch (harness) {
    case "claude-code":
      if (r.status === 2) return { decision: "block", reason: r.stderr.trim() };
      if (r.status !== 0) return { decision: "ignored", why: `exit ${r.status}` };
      if (json?.decision === "block") return { decision: "block", reason: String(json.reason) };
      return { decision: "allow", notice: notice(json) };
    case "codex":
      if (r.status !== 0 && r.status !== 2) return { decision: "ignored", why: `exit ${r.status}` };
      if (json?.decision === "block") return { decision: "block", reason: String(json.reason) };
      if (r.status === 2) return { decision: "block", reason: r.stderr.trim() };
      return { decision: "allow", notice: notice(json) };
    case "cursor":
      if (r.status !== 0) return { decision: "ignored", why: `exit ${r.status}` };
      if (json === undefined) return { decision: "ignored", why: "stdout is not JSON" };
      if (typeof json.followup_message === "string" && json.followup_message !== "") {
        return { decision: "block", reason: json.followup_message };
      }
      return { decision: "allow", notice: r.stderr.trim() === "" ? null : r.stderr.trim() };
    case "goose":
      if (r.status === 2) return { decision: "block", reason: r.stderr.trim() };
      if (json?.decision === "block") return { decision: "block", reason: String(json.reason) };
      if (r.status === 0 && (r.stdout.trim() === "" || json?.decision === "allow")) {
        return { decision: "allow", notice: r.stderr.trim() === "" ? null : r.stderr.trim() };
      }
      return { decision: "ignored", why: "no decision" };
  }
}
