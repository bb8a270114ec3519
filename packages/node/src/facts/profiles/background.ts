/**
 * Background commands for background checks and warm-state processes (harn-verification.md
 * §1.4 `start_check` / `finish_check`, §1.8, §2.5 `command_wait` / `command_cancel`).
 *
 * Each command runs with `sh -c` as the leader of its own process group (so a teardown or
 * a timeout stops its children too), its output captured like a foreground check (first
 * 64 KiB + last 36 KiB), and it is tracked so that the group is SIGKILLed if this Node
 * process exits first. Handles live in this process only: a receipt cannot be finished by
 * another process.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { TurngateError } from "@turngate/core";
import { OutputCapture } from "../../runner/capture.js";
import {
  processGroupAlive,
  stopProcessGroup,
  trackProcessGroup,
} from "../../runner/process-group.js";
import type { CheckCommandResult } from "./command-result.js";

/** What `startBackground` returns (Harn's started command). */
export interface BackgroundStarted {
  handle_id: string;
  /** Process id of the shell, which leads the process group (`pgid === pid`). */
  pid: number;
  command: string;
  started_at_ms: number;
  background: true;
}

interface Entry {
  started: BackgroundStarted;
  done: Promise<CheckCommandResult>;
  stop: () => Promise<void>;
  finished: boolean;
  cancelled: boolean;
}

const handles = new Map<string, Entry>();

/**
 * Starts `command` in the background in `cwd`. `timeoutMs` (optional) stops the group
 * when it overruns (the result is then `timed_out`). Throws `TurngateError`
 * `background_spawn_failed` when the shell cannot be spawned.
 */
export function startBackground(
  command: string,
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): BackgroundStarted {
  const t0 = performance.now();
  const child = spawn("sh", ["-c", command], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid === undefined) {
    throw new TurngateError(
      "background_spawn_failed",
      `could not start ${JSON.stringify(command)} in ${options.cwd}`,
    );
  }
  const pid = child.pid;
  const untrack = trackProcessGroup(pid);
  const capture = new OutputCapture();
  child.stdout.on("data", (c: Buffer) => capture.push(c));
  child.stderr.on("data", (c: Buffer) => capture.push(c));
  let timedOut = false;
  const entry: Entry = {
    started: {
      handle_id: `bg-${randomUUID()}`,
      pid,
      command,
      started_at_ms: Date.now(),
      background: true,
    },
    done: undefined as unknown as Promise<CheckCommandResult>,
    stop: () => stopProcessGroup(pid),
    finished: false,
    cancelled: false,
  };
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          void entry.stop();
        }, options.timeoutMs);
  entry.done = new Promise<CheckCommandResult>((resolve) => {
    child.once("error", () => undefined);
    child.once("close", (code) => {
      if (timer !== undefined) clearTimeout(timer);
      // The shell is gone; stop whatever it left behind in its group.
      if (processGroupAlive(pid)) void stopProcessGroup(pid);
      untrack();
      entry.finished = true;
      const output = capture.render();
      const ok = code === 0 && !timedOut && !entry.cancelled;
      resolve({
        ok,
        success: ok,
        status: timedOut
          ? "timed_out"
          : entry.cancelled
            ? "cancelled"
            : ok
              ? "completed"
              : "failed",
        exit_code: timedOut ? null : code,
        timed_out: timedOut,
        stdout: output,
        stderr: "",
        combined: output,
        duration_ms: Math.round(performance.now() - t0),
      });
    });
  });
  handles.set(entry.started.handle_id, entry);
  return entry.started;
}

/** Result of `waitBackground` when the command is still running after the wait. */
export interface StillRunning {
  status: "running";
  handle_id: string;
  timed_out: false;
}

/**
 * Waits up to `timeoutMs` (default 60000) for the command of `handleId` to finish.
 * Returns its result, or `{status: "running"}` when it is still running. Throws
 * `TurngateError` `unknown_handle` for a handle this process did not start.
 */
export async function waitBackground(
  handleId: string,
  timeoutMs = 60_000,
): Promise<CheckCommandResult | StillRunning> {
  const entry = handles.get(handleId);
  if (entry === undefined)
    throw new TurngateError(
      "unknown_handle",
      `no background command with handle ${handleId} in this process`,
    );
  let timer: NodeJS.Timeout | undefined;
  const running = new Promise<StillRunning>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: "running", handle_id: handleId, timed_out: false }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([entry.done, running]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Stops the process group of `handleId` (SIGTERM, SIGKILL 500 ms later) and waits up to
 * `waitResultMs` (default 2000) for its result. `cancelled` is true only for the first
 * cancel of a command still running; a second cancel, or an unknown handle, is `false`.
 */
export async function cancelBackground(
  handleId: string,
  waitResultMs = 2_000,
): Promise<{ cancelled: boolean; handle_id: string; result: CheckCommandResult | null }> {
  const entry = handles.get(handleId);
  if (entry === undefined || entry.finished || entry.cancelled) {
    return { cancelled: false, handle_id: handleId, result: null };
  }
  entry.cancelled = true;
  await entry.stop();
  const result = await waitBackground(handleId, waitResultMs);
  return {
    cancelled: true,
    handle_id: handleId,
    result: result.status === "running" ? null : (result as CheckCommandResult),
  };
}
