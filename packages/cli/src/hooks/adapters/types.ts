/** The harnesses `turngate hook` plugs into (issue 19). */
export const HARNESSES = ["claude-code", "codex", "cursor", "goose"] as const;

export type Harness = (typeof HARNESSES)[number];

/**
 * What a harness event means to turngate:
 * - `turn_start`: a prompt was submitted or a session started — take (or keep) the baseline;
 *   a prompt can carry the person's `/turngate waive <digest> <reason>`;
 * - `tool`: a tool ran — record which tool touched which path (to name rows in answers);
 * - `stop`: the agent (or a subagent) tries to end its turn — run the gate.
 */
export type HookEventKind = "turn_start" | "tool" | "stop";

/** turngate's answer to one event, before it is put in the harness's own format. */
export type HookAnswer =
  /** Go on (a stop: the turn may end). `notice` is shown to the person where the harness can. */
  | { kind: "allow"; notice?: string }
  /** A stop: keep the model working; `reason` is what the model reads. */
  | { kind: "block"; reason: string }
  /** A prompt turngate handled itself (`/turngate waive …`): keep it from the model. */
  | { kind: "handled"; notice: string };

/** What the hook process writes and exits with. */
export interface HarnessReply {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** A tool event's record: the tool's name and the paths it names (absolute or relative). */
export interface ToolTouch {
  tool: string;
  paths: string[];
}

/** One entry `turngate hook install` writes for a harness. */
export interface InstallEntry {
  /** The harness's event name. */
  event: string;
  /** A tool matcher, where the harness takes one. */
  matcher?: string;
}

/**
 * One harness's adapter: how to read its payloads and how to answer in its own format and
 * channel. Every field it reads is optional in practice: a missing one falls back or, at a
 * stop, blocks (fail closed).
 */
export interface HarnessAdapter {
  name: Harness;
  /** The published hook documentation this adapter follows (cited in docs/hooks.md). */
  docs: readonly string[];
  /** The kind of an event name (case as the harness sends it), undefined when turngate has no use for it. */
  eventKind(event: string): HookEventKind | undefined;
  /** The harness's session (conversation) id. */
  sessionId(payload: Record<string, unknown>): string | undefined;
  /** The directory the payload names for the workspace, before the git top level is found. */
  workspaceDir(payload: Record<string, unknown>, env: NodeJS.ProcessEnv): string | undefined;
  /**
   * The project folder the harness gives its hooks apart from the shell's current directory
   * (Claude Code's `CLAUDE_PROJECT_DIR`), preferred over `workspaceDir` when a session's
   * workspace is pinned (docs/hooks.md "Where the workspace is"); absent when the harness
   * gives none.
   */
  projectDir?(env: NodeJS.ProcessEnv): string | undefined;
  /** The prompt text of a prompt-submit event. */
  prompt(payload: Record<string, unknown>): string | undefined;
  /** The tool and paths of a tool event. */
  toolTouch(payload: Record<string, unknown>): ToolTouch | undefined;
  /** The harness says it will not honour another block (Cursor: `loop_count` ≥ `loop_limit`). */
  atCap(payload: Record<string, unknown>, env: NodeJS.ProcessEnv): boolean;
  /** The harness's cap on consecutive stop blocks in one turn, or null (none known). */
  blockCap(env: NodeJS.ProcessEnv): number | null;
  /**
   * The most characters of a block reason or notice the harness shows the model whole
   * (issue 34): turngate bounds its text to this (`boundAnswer`).
   */
  reasonMaxChars: number;
  /** Put `answer` to an event of `kind` in the harness's format, channel and exit code. */
  reply(kind: HookEventKind, answer: HookAnswer): HarnessReply;
  /** The events `turngate hook install` registers. */
  installEntries: readonly InstallEntry[];
}

/** `value` when it is a non-empty string. */
export function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** `payload[key]` when it is a plain object. */
export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A positive integer from an environment variable, else `fallback`. */
export function envInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || !/^[1-9][0-9]{0,5}$/.test(raw)) return fallback;
  return Number(raw);
}

/**
 * The bound on a hook answer's text, in characters: Claude Code injects hook output into the
 * model's context up to 10,000 characters and replaces longer output by a file path and a
 * 2 KB preview (code.claude.com/docs/en/hooks, "Hook output"). Codex, Cursor and Goose
 * document no bound for a stop's reason / follow-up message, so they get the same one.
 */
export const HOOK_REASON_MAX_CHARS = 10_000;

/**
 * `answer` with its text (a block's `reason`, a notice) cut to `maxChars` characters: the
 * first part is kept and a last line says it was cut. Texts within the bound are returned
 * as they are. The failure digests are bounded before this (`summarizeFailure`); this is
 * the last guard for turngate's own lines (many changed paths). Pure.
 */
export function boundAnswer(answer: HookAnswer, maxChars: number): HookAnswer {
  const cut = (text: string): string => {
    if (text.length <= maxChars) return text;
    const note = `\n… (cut to the ${maxChars} characters the harness shows)`;
    const head = text.slice(0, Math.max(0, maxChars - note.length));
    const end = head.lastIndexOf("\n");
    return `${end > maxChars / 2 ? head.slice(0, end) : head}${note}`;
  };
  if (answer.kind === "block") return { ...answer, reason: cut(answer.reason) };
  if (answer.notice !== undefined) return { ...answer, notice: cut(answer.notice) };
  return answer;
}

/** `TURNGATE_HOOK_BLOCK_CAP`: overrides every harness's block cap (a person who raised it in the harness). */
export const BLOCK_CAP_ENV = "TURNGATE_HOOK_BLOCK_CAP";
