/**
 * Waiting for a check's process group to end after its shell exited (docs/design.md §3
 * "Checks": nothing a check started outlives it).
 */
import { runningGroupMembers } from "../processes/process-table.js";
import { processGroupAlive } from "./process-group.js";

/** How `waitForGroupExit` looks at the group; tests replace it. */
export interface GroupProbe {
  /** `kill(-pgid, 0)` succeeds: some process of the group exists, zombies included. */
  alive: (pgid: number) => boolean;
  /** Members that have not exited (the process table, zombies left out); throws when unreadable. */
  running: (pgid: number) => number[];
  /** Resolves after `ms` milliseconds. */
  sleep: (ms: number) => Promise<void>;
  /** Milliseconds now (a monotonic or wall clock). */
  now: () => number;
}

const REAL_PROBE: GroupProbe = {
  alive: processGroupAlive,
  running: (pgid) => runningGroupMembers(pgid),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
};

/** Milliseconds between `kill(-pgid, 0)` polls. */
export const GROUP_POLL_MS = 5;
/** Milliseconds between process-table reads while the group exists. */
export const GROUP_TABLE_MS = 25;

/**
 * Poll (`GROUP_POLL_MS`, `kill(-pgid, 0)`) until group `pgid` is gone or `ms` passed;
 * resolves true if it still has a running member then. A group whose members have all exited
 * but are not reaped yet is gone: the process table is read one poll into the wait and every
 * `GROUP_TABLE_MS` after it, and a group of zombies only ends the wait at once. An init that
 * reaps orphans late (some containers and VMs) keeps the released supervisor a zombie for a
 * second or more; before this, every check waited the whole bound (100 ms) for it. A table
 * that cannot be read counts as a running member. `pgid` undefined: false at once.
 */
export async function waitForGroupExit(
  pgid: number | undefined,
  ms: number,
  probe: GroupProbe = REAL_PROBE,
): Promise<boolean> {
  if (pgid === undefined) return false;
  const deadline = probe.now() + ms;
  let tableAt = probe.now() + GROUP_POLL_MS;
  while (probe.alive(pgid)) {
    const now = probe.now();
    if (now >= tableAt || now >= deadline) {
      let running: boolean;
      try {
        running = probe.running(pgid).length > 0;
      } catch {
        running = true;
      }
      if (!running) return false;
      if (now >= deadline) return true;
      tableAt = now + GROUP_TABLE_MS;
    }
    await probe.sleep(GROUP_POLL_MS);
  }
  return false;
}
