/**
 * The workspace's turn chain across hook sessions (docs/design.md §3b "Gapless turns",
 * docs/hooks.md "A new session continues the last one"): the first turn of a new harness
 * session (a new session id) in a workspace continues from the workspace's previous session —
 * the state its last stop judged when that turn ended verified, waived or narrative, else
 * that session's baseline itself, so what it left unverified stays in the new session's
 * digest. Only the host starts a workspace over (`turngate hook fresh`, which needs a
 * terminal or `TURNGATE_ALLOW_FRESH=1`). Everything here lives in the hook state folder,
 * outside the workspace (docs/hooks.md "Trust model of the hooks").
 */
import { readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic, writeJsonAtomic } from "@turngate/node";
import * as z from "zod";
import {
  baselineIdOf,
  copyBaselineEntries,
  readBaseline,
  recordBaselineHistory,
} from "../baseline-store.js";
import { resolveStatePaths } from "../state-dir.js";
import {
  type HookSession,
  type HookSessionPaths,
  readSession,
  workspaceStateDir,
} from "./session-state.js";

/** Schema id of the host's request to start a workspace's hook chain over. */
export const FRESH_REQUEST_SCHEMA = "turngate.hook_fresh_request.v1";

/** File name of that request in the workspace's hook state folder. */
export const FRESH_REQUEST_FILE = "fresh-request.json";

const FreshRequestSchema = z
  .object({
    schema: z.literal(FRESH_REQUEST_SCHEMA),
    root: z.string(),
    requested_at: z.string(),
    /** How the host consented: an interactive terminal, or `TURNGATE_ALLOW_FRESH=1`. */
    by: z.enum(["terminal", "environment"]),
  })
  .strict();

/** The host's request to start over (`turngate hook fresh`). */
export type FreshRequest = z.output<typeof FreshRequestSchema>;

/** `<workspace hook state dir>/fresh-request.json`. */
export function freshRequestPath(root: string, env: NodeJS.ProcessEnv): string {
  return join(workspaceStateDir(root, env), FRESH_REQUEST_FILE);
}

/**
 * Record the host's request that the next turn start of any hook session of `root` take its
 * baseline from the workspace as it is then (`turngate hook fresh`). The caller has checked
 * the host's consent (`startFresh`'s rule). Output: the request's path.
 * Errors: `TurngateValidationError` when the hook state folder lies inside the workspace
 * (`resolveStatePaths`: the agent could write it there); the `fs` error of the write.
 */
export async function requestFreshStart(
  root: string,
  env: NodeJS.ProcessEnv,
  by: FreshRequest["by"],
): Promise<string> {
  // Where the hooks keep their state: outside the workspace (refused inside it, as for a session).
  resolveStatePaths(root, workspaceStateDir(root, env), root);
  const path = freshRequestPath(root, env);
  const request: FreshRequest = {
    schema: FRESH_REQUEST_SCHEMA,
    root,
    requested_at: new Date().toISOString(),
    by,
  };
  await writeJsonAtomic(path, request);
  return path;
}

/**
 * Take the host's pending fresh-start request of `root`, if any: it is moved into the
 * session's folder (`<session dir>/fresh-request.json`; `rename` is atomic, so exactly one
 * turn start takes it) and returned. A request file turngate cannot read, or one of another
 * workspace, is not a request (it is left where it is).
 * Output: the request, or undefined. Errors: none (a failed move is no request).
 */
export async function takeFreshRequest(
  root: string,
  env: NodeJS.ProcessEnv,
  paths: HookSessionPaths,
): Promise<FreshRequest | undefined> {
  const from = freshRequestPath(root, env);
  let request: FreshRequest;
  try {
    const parsed = FreshRequestSchema.safeParse(JSON.parse(await readFile(from, "utf8")));
    if (!parsed.success || parsed.data.root !== root) return undefined;
    request = parsed.data;
  } catch {
    return undefined;
  }
  try {
    await rename(from, join(paths.dir, FRESH_REQUEST_FILE));
  } catch {
    return undefined;
  }
  return request;
}

/** A hook session of the workspace read back: its folder and state. */
export interface SessionOnDisk {
  dir: string;
  session: HookSession;
}

/** Every session folder of a workspace, read back: the sessions, and the files that could not be. */
export interface SessionScan {
  sessions: SessionOnDisk[];
  /** `session.json` files that exist but are not `turngate.hook_session.v1` (with why). */
  unreadable: string[];
}

/**
 * Read every session of `root` (`<workspace dir>/<harness>-<hash>/session.json`): those of
 * this workspace, newest first (by `updated_at`), and the session files that exist but
 * cannot be read. Errors: none.
 */
export async function scanSessions(root: string, env: NodeJS.ProcessEnv): Promise<SessionScan> {
  const base = workspaceStateDir(root, env);
  const names = await readdir(base).catch(() => [] as string[]);
  const sessions: SessionOnDisk[] = [];
  const unreadable: string[] = [];
  for (const name of names) {
    const dir = join(base, name);
    try {
      const session = await readSession(join(dir, "session.json"));
      if (session && session.root === root) sessions.push({ dir, session });
    } catch (error) {
      unreadable.push((error as Error).message);
    }
  }
  sessions.sort((a, b) => (a.session.updated_at < b.session.updated_at ? 1 : -1));
  return { sessions, unreadable };
}

/**
 * The session a new hook session of `root` continues from (docs/hooks.md "A new session
 * continues the last one"): of the workspace's other sessions (any harness), the most
 * recently updated one that has a baseline; undefined when there is none (the workspace's
 * first gated session: its baseline is the workspace as it is).
 * `ownDir` is the new session's folder (left out).
 * Errors: `Error` naming the files when a session file of this workspace cannot be read
 * (fail closed: the unreadable one may be the last session, and starting from the workspace
 * as it is would drop its unverified change); the message names the host's way out,
 * `turngate hook fresh`.
 */
export async function previousSession(
  root: string,
  env: NodeJS.ProcessEnv,
  ownDir: string,
): Promise<SessionOnDisk | undefined> {
  const scan = await scanSessions(root, env);
  if (scan.unreadable.length > 0) {
    throw new Error(
      `this is a new session, and it continues from the workspace's previous session, but ${scan.unreadable.join("; ")}; so turngate cannot tell what the last session left unverified (fail closed). As the host, look at it, or start this workspace over with \`turngate hook fresh\` in a terminal`,
    );
  }
  return scan.sessions.find((s) => s.dir !== ownDir && s.session.baseline_id !== null);
}

/** A stored baseline taken over from another session (`adoptBaseline`). */
export interface AdoptedBaseline {
  id: string;
  takenAt: string;
}

/**
 * Take `from`'s baseline over as the baseline of the session at `paths` (a new session that
 * continues a session whose last turn did not end verified, waived or narrative): the stored
 * file is read with its recorded id (`readBaseline`: a file whose bytes changed is refused),
 * then written byte for byte to `paths.baseline` (same bytes, same id: the configuration,
 * environment and inherited carry captured with it come along) and recorded in the new
 * session's baseline history.
 * Output: the id and the time the baseline was first taken.
 * Errors: `readBaseline`'s (`baseline_missing`, `baseline_mismatch`, `baseline_invalid`), and
 * `Error` when the copy does not hold the same bytes; `fs` errors of the writes.
 */
export async function adoptBaseline(
  from: SessionOnDisk,
  fromPaths: { baseline: string; baselineHistory: string },
  paths: HookSessionPaths,
): Promise<AdoptedBaseline> {
  const id = from.session.baseline_id;
  if (id === null) throw new Error(`the session ${from.dir} has no baseline`);
  await readBaseline(fromPaths.baseline, {
    expectedId: id,
    historyPath: fromPaths.baselineHistory,
    label: fromPaths.baseline,
  });
  const bytes = await readFile(fromPaths.baseline);
  if (baselineIdOf(bytes) !== id) {
    throw new Error(`the baseline ${fromPaths.baseline} changed while it was read`);
  }
  await copyBaselineEntries(bytes, fromPaths.baseline, paths.baseline);
  await writeFileAtomic(paths.baseline, bytes);
  const written = await readFile(paths.baseline);
  if (baselineIdOf(written) !== id) {
    await rm(paths.baseline, { force: true });
    throw new Error(`the baseline ${paths.baseline} changed while it was written`);
  }
  const takenAt = from.session.baseline_taken_at ?? new Date().toISOString();
  await recordBaselineHistory(paths.baselineHistory, { id, taken_at: takenAt });
  return { id, takenAt };
}
