/**
 * The workspace's verification profile store (issue #14 item 7): `turngate run` / `verify`
 * record every check's timing into `<state folder>/verification-profiles.json`, one row per
 * check id, so p50 / p95 exist after a few turns; `turngate profile show` and
 * `turngate hud` read it. A store error never changes a verdict (the caller reports it).
 */
import { dirname } from "node:path";
import {
  type HudModel,
  hudModel,
  observationFromCommandResult,
  type ProfileRecordSet,
  type ProfileRow,
  recordRun,
} from "@turngate/core";
import {
  fileHashSnapshot,
  ProfileStore,
  toCommandResult,
  type VerifyCommandsResult,
  type WorkspaceDelta,
} from "@turngate/node";
import type { CliContext } from "./context.js";
import { stateWriteProblem } from "./state-dir.js";

/** Rung given to a row turngate creates for a check: its checks are the full verify. */
export const TURN_CHECK_RUNG = "R4";
/** Top-level key of the record set where turngate keeps the last turn (Harn keeps unknown keys). */
export const LAST_TURN_KEY = "turngate_last_turn";

/** The last turn as the HUD needs it. */
export interface LastTurn {
  started_ms: number;
  ended_ms: number;
  verdict: string;
  rung: string;
  /** `{path: sha256}` of the bytes the checks verified (changed, non-deleted paths). */
  snapshot: Record<string, string>;
}

/** The store of a state folder (`<state>/verification-profiles.json`). */
export function workspaceProfileStore(stateDir: string, now?: () => number): ProfileStore {
  return new ProfileStore(stateDir, now === undefined ? {} : { now });
}

/** The state folder of `{proofs}` paths (`<state>/proofs`). */
export function stateDirOf(state: { proofs: string }): string {
  return dirname(state.proofs);
}

/**
 * Records one observation per check run (duration, exit, failure signature; a missing row
 * is created with the check's command, rung R4) and the last turn (verdict = the checks'
 * report status, snapshot = the changed paths' SHA-256), in one locked update.
 * Returns the check ids recorded. Throws `ProfileStoreError` / fs errors.
 */
export async function recordTurnTimings(
  store: ProfileStore,
  verification: VerifyCommandsResult,
  delta: WorkspaceDelta,
  times: { startedMs: number; endedMs: number },
): Promise<string[]> {
  const ids: string[] = [];
  const snapshot: Record<string, string> = {};
  for (const c of delta.changes) if (c.change !== "deleted") snapshot[c.path] = c.content_digest;
  await store.update((current) => {
    let set: ProfileRecordSet = { ...(current ?? { schemaVersion: 1 }) };
    const rows: ProfileRow[] = [...(set.rows ?? [])];
    for (const run of verification.runs) {
      const id = run.command.id;
      const command = {
        mode: "shell",
        command: run.command.command,
        ...(run.command.cwd !== undefined ? { cwd: run.command.cwd } : {}),
      };
      const at = rows.findIndex((r) => r.id === id);
      if (at < 0) {
        rows.push({
          id,
          name: run.command.description || id,
          check: { rung: TURN_CHECK_RUNG, command },
        });
      } else {
        const row = rows[at] as ProfileRow;
        rows[at] = { ...row, check: { ...(row.check ?? { rung: TURN_CHECK_RUNG }), command } };
      }
    }
    set = { ...set, rows };
    for (const run of verification.runs) {
      const observation = observationFromCommandResult(toCommandResult(run.execution), {});
      set = recordRun(set, run.command.id, observation, times.endedMs).profiles ?? set;
      ids.push(run.command.id);
    }
    const last: LastTurn = {
      started_ms: times.startedMs,
      ended_ms: times.endedMs,
      verdict: verification.report.status,
      rung: TURN_CHECK_RUNG,
      snapshot,
    };
    return { ...set, [LAST_TURN_KEY]: last };
  });
  return ids;
}

/**
 * The HUD model of the workspace: the last turn as the last check (its snapshot against
 * the current SHA-256 of the same paths), the ladder over the stored rows.
 */
export async function workspaceHud(
  root: string,
  store: ProfileStore,
  nowMs: number,
): Promise<HudModel> {
  const profiles = await store.read();
  const last = (profiles as Record<string, unknown> | null)?.[LAST_TURN_KEY] as
    | LastTurn
    | undefined;
  const state: Record<string, unknown> = {};
  const options: Record<string, unknown> = { now_ms: nowMs, profiles };
  if (last !== undefined) {
    state.started_ms = last.started_ms;
    state.last_check = {
      rung: last.rung,
      verdict: last.verdict,
      at_ms: last.ended_ms,
      bound_snapshot: last.snapshot,
    };
    const paths = Object.keys(last.snapshot).slice(0, 4096);
    if (paths.length > 0) {
      state.current_hashes = (
        await fileHashSnapshot(root, paths, { algorithm: "sha256" })
      ).snapshot;
    }
  }
  return hudModel(state, options);
}

/**
 * `recordTurnTimings` for a turn, with any error reported on stderr as a warning and
 * otherwise ignored: a profile-store problem never changes the turn's verdict or exit code.
 */
export async function recordTurnTimingsReported(
  state: { proofs: string },
  verification: VerifyCommandsResult,
  delta: WorkspaceDelta,
  startedMs: number,
  ctx: Pick<CliContext, "stderr" | "now">,
): Promise<void> {
  const now = ctx.now ?? Date.now;
  const store = workspaceProfileStore(stateDirOf(state), now);
  try {
    await recordTurnTimings(store, verification, delta, { startedMs, endedMs: now() });
  } catch (error) {
    ctx.stderr.write(
      `turngate: warning: check timings were not recorded: ${stateWriteProblem(error, stateDirOf(state))} (the verdict is unaffected)\n`,
    );
  }
}
