import { describe, expect, test } from "vitest";
import {
  GROUP_POLL_MS,
  GROUP_TABLE_MS,
  type GroupProbe,
  waitForGroupExit,
} from "../../src/runner/group-exit.js";

/**
 * A fake clock and process group: `alive` answers from `aliveFor` polls, `running` from
 * `members`; every call is counted and `sleep` advances the clock without waiting.
 */
function fakeGroup(options: { aliveFor: number; members: () => number[] }): {
  probe: GroupProbe;
  calls: { alive: number; running: number; slept: number };
} {
  let clock = 1_000;
  const calls = { alive: 0, running: 0, slept: 0 };
  const probe: GroupProbe = {
    alive: () => {
      calls.alive += 1;
      return calls.alive <= options.aliveFor;
    },
    running: () => {
      calls.running += 1;
      return options.members();
    },
    sleep: async (ms) => {
      calls.slept += ms;
      clock += ms;
    },
    now: () => clock,
  };
  return { probe, calls };
}

describe("waitForGroupExit: a check's process group after its shell exited", () => {
  test("a group of zombies only (exited, not reaped by a late init) ends the wait at the first table read", async () => {
    const { probe, calls } = fakeGroup({ aliveFor: Number.POSITIVE_INFINITY, members: () => [] });
    expect(await waitForGroupExit(4242, 100, probe)).toBe(false);
    expect(calls).toEqual({ alive: 2, running: 1, slept: GROUP_POLL_MS });
  });

  test("a running member keeps the wait to its bound, then it is reported alive; the table is read every 25 ms", async () => {
    const { probe, calls } = fakeGroup({ aliveFor: Number.POSITIVE_INFINITY, members: () => [7] });
    expect(await waitForGroupExit(4242, 100, probe)).toBe(true);
    expect(calls.slept).toBe(100);
    // Reads at 5, 30, 55, 80 ms and at the deadline.
    expect(calls.running).toBe(1 + Math.floor((100 - GROUP_POLL_MS) / GROUP_TABLE_MS) + 1);
  });

  test("a group that is gone ends the wait without reading the table; an unreadable table counts as running", async () => {
    const gone = fakeGroup({ aliveFor: 1, members: () => [] });
    expect(await waitForGroupExit(4242, 100, gone.probe)).toBe(false);
    expect(gone.calls).toEqual({ alive: 2, running: 0, slept: GROUP_POLL_MS });
    const unreadable = fakeGroup({
      aliveFor: Number.POSITIVE_INFINITY,
      members: () => {
        throw new Error("EACCES");
      },
    });
    expect(await waitForGroupExit(4242, 50, unreadable.probe)).toBe(true);
    expect(unreadable.calls.slept).toBe(50);
    expect(await waitForGroupExit(undefined, 50, unreadable.probe)).toBe(false);
  });
});
