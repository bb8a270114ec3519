import { readdirSync, readFileSync } from "node:fs";
import { testTimeout } from "../../../test-time.js";

/** State letter and process group of `/proc/<pid>/stat`, or undefined when it is gone. */
function procStat(pid: string): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // After "pid (comm) ": state, ppid, pgrp, … (comm may hold spaces and parentheses).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", pgrp: Number(fields[2]) };
}

const running = (state: string) => state !== "Z" && state !== "X";

/** True while process `pid` exists and is not a zombie (an unreaped exit runs nothing). */
export function processRunning(pid: number): boolean {
  const stat = procStat(String(pid));
  return stat !== undefined && running(stat.state);
}

/** Pids of the running (non-zombie) processes of process group `pgid` (Linux /proc). */
export function runningGroupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      const stat = procStat(entry);
      return stat !== undefined && stat.pgrp === pgid && running(stat.state);
    })
    .map(Number);
}

/**
 * Polls (every 10 ms, at most `ms`, default 1,000) until no process of group `pgid` and
 * none of `pids` runs; returns what still runs then (`[]` when all are gone). SIGKILL is
 * delivered asynchronously: a killed process may still be listed for a moment on a busy
 * machine, so tests assert "nothing runs within 1 s" (issue 10) rather than at once.
 */
export async function stillRunningAfter(
  pgid: number,
  pids: readonly number[],
  ms = testTimeout(1000),
): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = [...new Set([...runningGroupMembers(pgid), ...pids.filter(processRunning)])];
    if (left.length === 0 || Date.now() >= deadline) return left.sort((a, b) => a - b);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Pids of the running (non-zombie) processes whose argv is exactly `argv` (Linux
 * /proc/<pid>/cmdline). Finds a check's processes in a clean room too, where they run in
 * their own pid namespace and cannot tell the test their host pids.
 */
export function runningWithArgv(argv: readonly string[]): number[] {
  const want = `${argv.join("\0")}\0`;
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      let cmdline: string;
      try {
        cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      } catch {
        return false;
      }
      const stat = procStat(entry);
      return cmdline === want && stat !== undefined && running(stat.state);
    })
    .map(Number);
}

/** Polls (every 25 ms, at most `ms`) until `count` processes run `argv`; returns their pids. */
export async function waitForArgv(
  argv: readonly string[],
  count: number,
  ms = testTimeout(30_000),
): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const pids = runningWithArgv(argv);
    if (pids.length >= count) return pids;
    if (Date.now() >= deadline) throw new Error(`never saw ${count} × ${argv.join(" ")}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
