import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { sha256Hex } from "@turngate/core";
import * as z from "zod";
import type { Harness, HarnessAdapter, HookAnswer, HookEventKind } from "./adapters/index.js";
import { within } from "./confine-paths.js";
import { hookStateBase } from "./session-state.js";
import { findWorkspace } from "./workspace.js";

/** Schema id of a session's pinned workspace (`<hook state>/session-roots/<harness>-<hash>.json`). */
export const SESSION_ROOT_SCHEMA = "turngate.hook_session_root.v1";

/**
 * The folder, under the hook state folder, that holds each harness session's pinned
 * workspace. It sits next to the workspaces' session folders (whose names are 16 hex
 * digits) and is keyed by harness and session id only, so no workspace can change it.
 */
export const SESSION_ROOTS_DIR = "session-roots";

const PinSchema = z.object({
  schema: z.literal(SESSION_ROOT_SCHEMA),
  harness: z.string(),
  session_id: z.string(),
  root: z.string(),
  pinned_at: z.string(),
});

/** A session's pinned workspace, as stored. */
export type SessionPin = z.output<typeof PinSchema>;

/**
 * Where the pinned workspace of `harness`'s session `sessionId` is kept (docs/hooks.md
 * "Where the workspace is"): `<hook state>/session-roots/<harness>-<SHA-256(session id)
 * in hex>.json`. Input: the harness, its session id and the environment (`hookStateBase`).
 * Output: an absolute or `TURNGATE_HOOK_STATE_DIR`-relative path. Never throws.
 */
export function sessionPinPath(
  harness: Harness,
  sessionId: string,
  env: NodeJS.ProcessEnv,
): string {
  return join(hookStateBase(env), SESSION_ROOTS_DIR, `${harness}-${sha256Hex(sessionId)}.json`);
}

/**
 * Read the workspace pinned for a session (docs/hooks.md "Where the workspace is").
 * Output: the pinned root, or undefined when the session has none yet.
 * Errors: `Error` naming the file when it cannot be read, is not a
 * `turngate.hook_session_root.v1`, or names another harness or session (the caller fails
 * closed: a stop blocks).
 */
export async function readSessionPin(
  path: string,
  harness: Harness,
  sessionId: string,
): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(
      `the session's workspace record ${path} cannot be read (${(error as Error).message})`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `the session's workspace record ${path} is not JSON (${(error as Error).message})`,
    );
  }
  const parsed = PinSchema.safeParse(raw);
  if (!parsed.success || parsed.data.harness !== harness || parsed.data.session_id !== sessionId) {
    throw new Error(
      `the session's workspace record ${path} is not a ${SESSION_ROOT_SCHEMA} of ${harness} session ${JSON.stringify(sessionId)}`,
    );
  }
  return parsed.data.root;
}

/**
 * Pin `root` as the workspace of a session unless one is pinned already (docs/hooks.md
 * "Where the workspace is"): the record is written whole to a private temporary file and
 * hard-linked to its name, which fails when the name exists — so two events of one session
 * racing to be first (Claude Code's SessionStart and UserPromptSubmit) agree on one root and
 * no reader sees a partial file.
 * Output: the pinned root — `root`, or the one pinned first by another event.
 * Errors: the file system's (the caller answers as for any hook error), and
 * `readSessionPin`'s when the existing record is not valid.
 */
export async function pinSessionRoot(
  path: string,
  harness: Harness,
  sessionId: string,
  root: string,
): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const pin: SessionPin = {
    schema: SESSION_ROOT_SCHEMA,
    harness,
    session_id: sessionId,
    root,
    pinned_at: new Date().toISOString(),
  };
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(pin, null, 2)}\n`, { flag: "wx", mode: 0o600 });
    await link(temporary, path);
    return root;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const first = await readSessionPin(path, harness, sessionId);
    if (first === undefined) throw error;
    return first;
  } finally {
    await rm(temporary, { force: true });
  }
}

/** Where an event is judged: the session's workspace, and the line to add when the event came from elsewhere. */
export interface SessionWorkspace {
  root: string;
  /** One line naming the session's workspace and the event's other folder, or undefined. */
  note?: string;
}

/**
 * The workspace an event of a harness session is judged in (docs/hooks.md "Where the
 * workspace is"). The first turn-start event of a session pins its workspace: the project
 * folder the harness gives hooks apart from the shell's directory (`adapter.projectDir`,
 * Claude Code's `CLAUDE_PROJECT_DIR`), else the folder the payload names, raised to its git
 * top level (`findWorkspace`). Every later event of that session — prompt, tool, stop — is
 * judged in the pinned workspace, whatever folder its payload names: the payload's `cwd` is
 * the shell's current directory, which the agent moves (a `cd` into a folder whose `.git`
 * file points back at the repository would otherwise make that folder the workspace and
 * leave the project's changes unjudged). When the payload's folder resolves to another
 * workspace, `note` says so on one line. An event before any turn start (a hook installed
 * mid-session) uses the first-event choice without pinning it.
 * Input: the harness, its adapter, the event kind, payload, session id, environment and the
 * hook process's cwd.
 * Output: the workspace (absolute, symlink-resolved) and the note.
 * Errors: `findWorkspace`'s for the first workspace; an `Error` naming the pinned workspace
 * when it is no longer a directory; `readSessionPin`'s and `pinSessionRoot`'s.
 */
export async function locateSessionWorkspace(o: {
  harness: Harness;
  adapter: HarnessAdapter;
  kind: HookEventKind;
  payload: Record<string, unknown>;
  sessionId: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}): Promise<SessionWorkspace> {
  const path = sessionPinPath(o.harness, o.sessionId, o.env);
  const named = o.adapter.workspaceDir(o.payload, o.env);
  let root = await readSessionPin(path, o.harness, o.sessionId);
  if (root === undefined) {
    const project = o.adapter.projectDir?.(o.env);
    const first = findWorkspace(project ?? named, o.cwd);
    root =
      o.kind === "turn_start" ? await pinSessionRoot(path, o.harness, o.sessionId, first) : first;
    if (root === first && project === undefined) return { root };
  } else {
    try {
      if (!statSync(root).isDirectory()) throw new Error("not a directory");
    } catch (error) {
      throw new Error(
        `this session's workspace ${root} (where it started) cannot be used (${(error as Error).message})`,
      );
    }
  }
  const head = `turngate: this session's workspace is ${root} (where it started)`;
  let other: string;
  try {
    other = findWorkspace(named, o.cwd);
  } catch (error) {
    return {
      root,
      note: `${head}; the event's folder cannot be used (${(error as Error).message}), so ${root} is judged.`,
    };
  }
  if (other === root) return { root };
  return {
    root,
    note: within(other, root)
      ? `${head}; the event came from ${other}, which is judged as part of it.`
      : `${head}; the event came from ${other}, outside it: ${root} is judged, not ${other}.`,
  };
}

/**
 * `answer` with `note` (from `locateSessionWorkspace`) put first on its own line — before a
 * block's reason or a notice, so bounding the text never cuts it. Without a note, `answer`.
 */
export function withWorkspaceNote(answer: HookAnswer, note: string | undefined): HookAnswer {
  if (note === undefined) return answer;
  if (answer.kind === "block") return { ...answer, reason: `${note}\n${answer.reason}` };
  if (answer.kind === "handled") return { ...answer, notice: `${note}\n${answer.notice}` };
  return {
    kind: "allow",
    notice: answer.notice === undefined ? note : `${note}\n${answer.notice}`,
  };
}
