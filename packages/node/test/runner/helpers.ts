import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testTimeout } from "../../../../test-time.js";

/** A fresh temporary folder; `cleanup()` removes it. */
export async function tempDir(
  prefix: string,
): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `turngate-${prefix}-`));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/**
 * True while process `pid` exists and is not a zombie (state `Z` in /proc/<pid>/stat):
 * an exited process that nobody has reaped yet runs nothing.
 */
export function processRunning(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

/** Pids of the running (non-zombie) processes whose process group is `pgid`. */
export function runningGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[0] = state, fields[1] = ppid, fields[2] = pgrp
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") {
      members.push(Number(entry));
    }
  }
  return members;
}

/**
 * Polls (every 10 ms, at most `ms`, default 1,000) until no process of group `pgid` and
 * none of `pids` runs; returns what still runs then (`[]` when all are gone). SIGKILL is
 * delivered asynchronously, so a killed process may still be listed for a moment on a busy
 * machine: tests assert "nothing runs within 1 s" (issue 10) rather than at once.
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
