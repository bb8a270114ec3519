import { defaultProcessSource, type ProcessSource, processRunning } from "./process-table.js";
import { reapChild } from "./subreaper.js";

/**
 * Sends a signal to a pid (negative: a process group), like `process.kill`. May throw
 * (`ESRCH`, `EPERM`); injected by tests to simulate a process that cannot be killed.
 */
export type KillFunction = (pid: number, signal: NodeJS.Signals) => void;

/** Options of `killProcesses`. */
export interface KillOptions {
  /** Default `process.kill`. */
  kill?: KillFunction;
  /** How long to wait for the processes to be gone after SIGKILL, ms; default 1,000. */
  waitMs?: number;
  /** Poll interval while waiting, ms; default 20. */
  pollMs?: number;
  /** Process groups to SIGKILL as a whole as well (catches a fork racing the scan). */
  groups?: readonly number[];
  /**
   * SIGSTOP every group and pid before the first SIGKILL, so a process that keeps forking
   * cannot start a new child between the signals; default false.
   */
  stopFirst?: boolean;
  source?: ProcessSource;
}

/** Default bounded wait after SIGKILL, ms. */
export const KILL_WAIT_MS = 1000;

/**
 * SIGKILL `pids` (and `groups`; with `stopFirst` each gets SIGSTOP before), then wait up to `waitMs` until none of them runs; zombie
 * children of this process are reaped on the way (`reapChild`). Input: pids; output: the
 * pids still running after the wait (`unkillable`: another user's process, a process in
 * uninterruptible sleep, or a `kill` that was refused) and those gone (`killed`), each in
 * input order. Never throws: a refused signal only means the pid may stay in `unkillable`.
 */
export async function killProcesses(
  pids: readonly number[],
  options: KillOptions = {},
): Promise<{ killed: number[]; unkillable: number[] }> {
  const kill = options.kill ?? ((pid, signal) => process.kill(pid, signal));
  const source = options.source ?? defaultProcessSource();
  const send = (pid: number, signal: NodeJS.Signals = "SIGKILL") => {
    try {
      kill(pid, signal);
    } catch {
      // ESRCH: already gone; EPERM: it stays and is reported as unkillable.
    }
  };
  if (options.stopFirst === true) {
    for (const group of options.groups ?? []) send(-group, "SIGSTOP");
    for (const pid of pids) send(pid, "SIGSTOP");
  }
  for (const group of options.groups ?? []) send(-group);
  for (const pid of pids) send(pid);
  const running = (pid: number) => {
    reapChild(pid);
    return processRunning(pid, source);
  };
  const deadline = Date.now() + (options.waitMs ?? KILL_WAIT_MS);
  let left = pids.filter(running);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 20));
    left = left.filter(running);
  }
  const still = new Set(left);
  return { killed: pids.filter((pid) => !still.has(pid)), unkillable: left };
}
