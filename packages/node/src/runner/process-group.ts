import { runningGroupMembers } from "../processes/process-table.js";

/** Milliseconds between SIGTERM and SIGKILL when a process group is stopped (A3S: 500 ms). */
export const PROCESS_GROUP_SETTLE_MS = 500;

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Send `signal` to every process of the group led by `pgid` (`kill(-pgid)`).
 * Output: true when the signal was delivered to at least one process; false when the
 * group no longer exists (`ESRCH`) or may not be signalled (`EPERM`).
 */
export function signalProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while at least one process of the group led by `pgid` is alive. */
export function processGroupAlive(pgid: number): boolean {
  return signalProcessGroup(pgid, 0);
}

/**
 * Remember a process group started by this process so that it is killed (SIGKILL) if this
 * process exits first (Node's `exit` event). Returns a function that forgets it again.
 */
export function trackProcessGroup(pgid: number): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", killTrackedProcessGroups);
  }
  liveGroups.add(pgid);
  return () => {
    liveGroups.delete(pgid);
  };
}

/** The process groups `trackProcessGroup` tracks now (a copy): turngate's own running checks. */
export function trackedProcessGroups(): Set<number> {
  return new Set(liveGroups);
}

/**
 * SIGKILL every process group still tracked by `trackProcessGroup`. Synchronous, so it is
 * safe in an `exit` handler; hosts that handle SIGINT/SIGTERM themselves call it before
 * exiting. Output: how many groups were still alive.
 */
export function killTrackedProcessGroups(): number {
  let killed = 0;
  for (const pgid of liveGroups) {
    if (signalProcessGroup(pgid, "SIGKILL")) killed += 1;
  }
  liveGroups.clear();
  return killed;
}

/**
 * Stop a process group: SIGTERM to the group, then SIGKILL after `settleMs` (default
 * 500 ms) if any process of it is still alive. A group left with zombies only (exited, not
 * reaped yet: an init that reaps orphans late) counts as gone. Resolves once the SIGKILL was
 * sent or the group was found gone; never rejects.
 */
export async function stopProcessGroup(
  pgid: number,
  settleMs: number = PROCESS_GROUP_SETTLE_MS,
): Promise<void> {
  if (!signalProcessGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + settleMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    if (!processGroupAlive(pgid) || onlyZombies(pgid)) return;
  }
  signalProcessGroup(pgid, "SIGKILL");
}

/** True when every process of group `pgid` has exited (zombies only); false when unsure. */
function onlyZombies(pgid: number): boolean {
  try {
    return runningGroupMembers(pgid).length === 0;
  } catch {
    return false;
  }
}
