import { mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "@turngate/core";
import { writeJsonAtomic } from "@turngate/node";
import * as z from "zod";
import type { StatePaths } from "../state-dir.js";
import { resolveStatePaths } from "../state-dir.js";
import type { Harness } from "./adapters/index.js";

/** Schema id of a hook session's state file (`<session dir>/session.json`). */
export const HOOK_SESSION_SCHEMA = "turngate.hook_session.v1";

/** `TURNGATE_HOOK_STATE_DIR`: where hook sessions are kept (default `$XDG_STATE_HOME/turngate/hooks`). */
export const HOOK_STATE_DIR_ENV = "TURNGATE_HOOK_STATE_DIR";

/** Most tool rows kept per turn, and most past turns kept per session. */
export const TOOL_ROWS_KEPT = 500;
export const TURNS_KEPT = 20;

const AttemptsSchema = z.object({
  attempts: z.number().int().nonnegative(),
  infrastructure_attempts: z.number().int().nonnegative(),
});

const VerdictSchema = z.object({
  verdict: z.string(),
  reason: z.string().nullable(),
  effect_digest: z.string(),
  attempt: z.number().int().nonnegative(),
  cached: z.boolean(),
  at: z.string(),
  message: z.string(),
  /** The trust the stop recorded (docs/hooks.md "Confined hooks"); absent before issue 32. */
  trust: z.enum(["unsandboxed", "confined-writes", "confined"]).optional(),
});

/** A trust level and why it is not higher (docs/hooks.md "Confined hooks"). */
const TrustSchema = z.object({
  level: z.enum(["unsandboxed", "confined-writes", "confined"]),
  why: z.string(),
});

const TurnSchema = z.object({
  number: z.number().int().positive(),
  started_at: z.string(),
  /** The baseline this turn is judged against (carried over from an unfinished turn). */
  baseline_id: z.string().nullable(),
  carried_over: z.boolean(),
  blocks: z.number().int().nonnegative(),
  attempts: z.record(z.string(), AttemptsSchema),
  tools: z.array(z.object({ tool: z.string(), path: z.string().nullable(), at: z.string() })),
  last: VerdictSchema.nullable(),
  /** A user-level hook's opt-in decision, made when the turn started (issue 34 item 4). */
  opt_in: z.object({ gated: z.boolean(), why: z.string() }).optional(),
  /** Why the turn start could not take a baseline; the stop repeats it (issue 34 item 5). */
  start_error: z.string().optional(),
  /**
   * What the harness's configuration files gave when the turn started (issue 32 item 2): a
   * stop never records more, whatever the agent changed since.
   */
  confinement: TrustSchema.optional(),
});

const SessionFileSchema = z.object({
  schema: z.literal(HOOK_SESSION_SCHEMA),
  harness: z.string(),
  session_id: z.string(),
  root: z.string(),
  baseline_id: z.string().nullable(),
  baseline_taken_at: z.string().nullable(),
  turn: TurnSchema.nullable(),
  history: z.array(
    z.object({ number: z.number().int(), started_at: z.string(), last: VerdictSchema.nullable() }),
  ),
  waivers: z.array(
    z.object({
      effect_digest: z.string(),
      reason: z.string(),
      by: z.enum(["terminal", "prompt"]),
      at: z.string(),
      /**
       * The session's baseline when the waiver was recorded (docs/cli.md "Gapless turns"): it
       * applies only to stops judged against that baseline, so a digest reproduced against a
       * later baseline (other bytes around the same rows) is not waived. Absent in files
       * written before issue 32: any baseline.
       */
      baseline_id: z.string().nullable().optional(),
    }),
  ),
  /**
   * The session this one continued from at its first turn (docs/hooks.md "A new session
   * continues the last one"): `judged` from the state that session's last stop judged,
   * `carried` with its baseline (its last turn was not verified, waived or narrative).
   * Absent: the workspace's first session, one the host started over, or a file written
   * before.
   */
  continued_from: z
    .object({
      harness: z.string(),
      session_id: z.string(),
      how: z.enum(["judged", "carried"]),
      verdict: z.string().nullable(),
    })
    .optional(),
  updated_at: z.string(),
});

/** The state of one harness session of one workspace (`turngate.hook_session.v1`). */
export type HookSession = z.output<typeof SessionFileSchema>;
export type HookTurn = z.output<typeof TurnSchema>;
export type HookVerdict = z.output<typeof VerdictSchema>;

/** Where one hook session keeps its files. */
export interface HookSessionPaths extends StatePaths {
  /** `<dir>/session.json`. */
  session: string;
  /** `<dir>/failures/`: cached check failures, `<key>.json`. */
  failures: string;
  /** `<dir>/session.lock/`: held while the session file is read and rewritten. */
  lock: string;
}

/**
 * The folder every hook session lives under: `TURNGATE_HOOK_STATE_DIR`, else
 * `$XDG_STATE_HOME/turngate/hooks`, else `~/.local/state/turngate/hooks` — outside the
 * workspace, so the agent does not write it through its file tools (it runs as the same OS
 * user, so it could through a shell: docs/hooks.md "Trust model of the hooks" says what that
 * means).
 */
export function hookStateBase(env: NodeJS.ProcessEnv): string {
  if (env[HOOK_STATE_DIR_ENV]) return env[HOOK_STATE_DIR_ENV] as string;
  const xdg = env.XDG_STATE_HOME;
  const home = env.HOME ?? homedir();
  return join(xdg && xdg !== "" ? xdg : join(home, ".local", "state"), "turngate", "hooks");
}

/** The folder of a workspace's sessions: `<base>/<first 16 hex of SHA-256(root)>`. */
export function workspaceStateDir(root: string, env: NodeJS.ProcessEnv): string {
  return join(hookStateBase(env), sha256Hex(root).slice(0, 16));
}

/**
 * The paths of one session: `<workspace dir>/<harness>-<first 16 hex of SHA-256(session id)>`.
 * Errors: `TurngateValidationError` (`resolveStatePaths`) when that folder is inside the
 * workspace.
 */
export function hookSessionPaths(
  root: string,
  harness: Harness,
  sessionId: string,
  env: NodeJS.ProcessEnv,
): HookSessionPaths {
  const dir = join(workspaceStateDir(root, env), `${harness}-${sha256Hex(sessionId).slice(0, 16)}`);
  const paths = resolveStatePaths(root, dir, root);
  return {
    ...paths,
    session: join(dir, "session.json"),
    failures: join(dir, "failures"),
    lock: join(dir, "session.lock"),
  };
}

/** A new session's state. */
export function newSession(harness: Harness, sessionId: string, root: string): HookSession {
  return {
    schema: HOOK_SESSION_SCHEMA,
    harness,
    session_id: sessionId,
    root,
    baseline_id: null,
    baseline_taken_at: null,
    turn: null,
    history: [],
    waivers: [],
    updated_at: new Date().toISOString(),
  };
}

/**
 * Read a session file. Output: the state, or undefined when there is none.
 * Errors: `Error` naming the file when it exists but is not a `turngate.hook_session.v1`
 * (the caller fails closed).
 */
export async function readSession(path: string): Promise<HookSession | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return undefined;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`the hook session file ${path} is not JSON (${(error as Error).message})`);
  }
  const parsed = SessionFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `the hook session file ${path} is not a ${HOOK_SESSION_SCHEMA} (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"})`,
    );
  }
  return parsed.data;
}

/** Most time one process waits for a session's lock, ms. */
export const LOCK_WAIT_MS = 60_000;
/** A lock older than this is taken over (its holder died), ms. */
export const LOCK_STALE_MS = 120_000;

/**
 * Run `update` on the session at `paths` under its lock (a `session.lock` folder made with
 * `mkdir`, which is atomic): read the file (or `fallback()` when there is none), let
 * `update` change it and return a value, write it back atomically. Two hook processes of
 * one session (Codex runs matching hooks concurrently) never lose each other's writes.
 * Output: what `update` returned. Errors: a lock not had within {@link LOCK_WAIT_MS}; the
 * errors of `readSession`, `update` and the write.
 */
export async function withSession<T>(
  paths: HookSessionPaths,
  fallback: () => HookSession,
  update: (session: HookSession) => T | Promise<T>,
): Promise<T> {
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await mkdir(paths.lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const info = await stat(paths.lock).catch(() => undefined);
      if (info && Date.now() - info.mtimeMs > LOCK_STALE_MS) {
        await rm(paths.lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`the hook session lock ${paths.lock} was not released within 60 s`);
      }
      await new Promise((done) => setTimeout(done, 25));
    }
  }
  try {
    const session = (await readSession(paths.session)) ?? fallback();
    const value = await update(session);
    session.updated_at = new Date().toISOString();
    await writeJsonAtomic(paths.session, session);
    return value;
  } finally {
    await rm(paths.lock, { recursive: true, force: true });
  }
}

/** Every session folder of a workspace (for `turngate status` / `turngate waive`), newest first. */
export async function listSessions(
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<{ dir: string; session: HookSession }[]> {
  const base = workspaceStateDir(root, env);
  const names = await readdir(base).catch(() => [] as string[]);
  const found: { dir: string; session: HookSession }[] = [];
  for (const name of names) {
    const dir = join(base, name);
    const session = await readSession(join(dir, "session.json")).catch(() => undefined);
    if (session && session.root === root) found.push({ dir, session });
  }
  return found.sort((a, b) => (a.session.updated_at < b.session.updated_at ? 1 : -1));
}
