/**
 * Processes the agent left running (issue 10): the per-turn marker, the process table
 * reader, the survivors scan (process group, environment marker, subreaper) and the
 * settle step (grace, SIGKILL, unkillable → open background child, A3S E2). Real
 * processes started by `sh`; pids are read back from files the processes write.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { killUntilQuiet } from "../../src/processes/kill-rounds.js";
import { createTurnMarker, environHasMarker, withTurnMarker } from "../../src/processes/marker.js";
import {
  listProcesses,
  parseProcStat,
  processRunning,
  readCommandLine,
  runningGroupMembers,
} from "../../src/processes/process-table.js";
import { settleAgentProcesses } from "../../src/processes/settle.js";
import { reapChild, setChildSubreaper } from "../../src/processes/subreaper.js";
import { childPids, findSurvivors } from "../../src/processes/survivors.js";
import { Session } from "../../src/session/session.js";
import { tempDir } from "../runner/helpers.js";
import { useGitRepos } from "../session/git-repo.js";

const repo = useGitRepos();
let dir: { path: string; cleanup: () => Promise<void> };
const started: number[] = [];
beforeAll(async () => {
  dir = await tempDir("survivors");
});
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
    reapChild(pid);
  }
});
afterAll(async () => {
  setChildSubreaper(false);
  await dir.cleanup();
});

/**
 * Run `script` with `sh -c` like `turngate run` runs an agent (own session and group) and
 * wait for it to exit. Output: the agent's pid (= its process group id).
 */
async function runAgentScript(script: string, env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn("sh", ["-c", script], {
    cwd: dir.path,
    env,
    detached: true,
    stdio: "ignore",
  });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

/** Poll (10 ms, ≤ 10 s) until `name` in the temp folder holds a pid line; returns it. */
async function pidFrom(name: string): Promise<number> {
  const file = join(dir.path, name);
  const deadline = Date.now() + testTimeout(10_000);
  while (Date.now() < deadline) {
    if (existsSync(file) && readFileSync(file, "utf8").endsWith("\n")) {
      const pid = Number(readFileSync(file, "utf8"));
      started.push(pid);
      return pid;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no pid in ${name}`);
}

/** Poll (10 ms, ≤ 10 s) until `pid` runs `commandLine` (a forked shell has exec'd it). */
async function execd(pid: number, commandLine: string): Promise<void> {
  const deadline = Date.now() + testTimeout(10_000);
  while (readCommandLine(pid) !== commandLine && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("turn marker", () => {
  test("a fresh 128-bit hex value per turn under TURNGATE_TURN", () => {
    const a = createTurnMarker();
    const b = createTurnMarker();
    expect(a.name).toBe("TURNGATE_TURN");
    expect(a.value).toMatch(/^[0-9a-f]{32}$/);
    expect(b.value).not.toBe(a.value);
    expect(withTurnMarker({ PATH: "/bin" }, a)).toEqual({ PATH: "/bin", TURNGATE_TURN: a.value });
  });

  test("matches only a whole NUL-separated entry", () => {
    const m = { name: "TURNGATE_TURN", value: "ab" };
    expect(environHasMarker(Buffer.from("A=1\0TURNGATE_TURN=ab\0B=2\0"), m)).toBe(true);
    expect(environHasMarker(Buffer.from("TURNGATE_TURN=ab"), m)).toBe(true);
    expect(environHasMarker(Buffer.from("TURNGATE_TURN=abc\0"), m)).toBe(false);
    expect(environHasMarker(Buffer.from("XTURNGATE_TURN=ab\0"), m)).toBe(false);
    expect(environHasMarker(Buffer.from("A=TURNGATE_TURN=ab\0"), m)).toBe(false);
  });
});

describe("process table", () => {
  test("parses /proc/PID/stat with spaces and parentheses in the command name", () => {
    expect(parseProcStat("4242 (a) (b c) S 7 4240 4200 0 -1 4194560 1 0")).toEqual({
      pid: 4242,
      state: "S",
      ppid: 7,
      pgid: 4240,
      sid: 4200,
    });
    expect(parseProcStat("garbage")).toBeUndefined();
  });

  test("/proc and ps agree on this process's parent and group", () => {
    const fromProc = listProcesses("proc").find((row) => row.pid === process.pid);
    const fromPs = listProcesses("ps").find((row) => row.pid === process.pid);
    expect(fromProc?.ppid).toBe(process.ppid);
    expect(fromPs).toEqual({ ...fromProc, sid: -1, state: fromPs?.state });
    expect(readCommandLine(process.pid)).toBe(
      [process.execPath, ...process.execArgv, ...process.argv.slice(1)].join(" "),
    );
  });
});

describe("process groups", () => {
  test("runningGroupMembers lists a group's running members, not its zombies", async () => {
    // `sleep 0` ends at once and stays a zombie: its parent exec'd `sleep 314`, which never waits.
    const child = spawn("sh", ["-c", "sleep 0 & exec sleep 314"], {
      detached: true,
      stdio: "ignore",
    });
    const pgid = child.pid as number;
    try {
      const deadline = Date.now() + testTimeout(10_000);
      let rows = listProcesses("proc").filter((row) => row.pgid === pgid);
      while (!rows.some((row) => row.state === "Z") && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        rows = listProcesses("proc").filter((row) => row.pgid === pgid);
      }
      expect(rows.map((row) => row.state === "Z").sort()).toEqual([false, true]);
      expect(runningGroupMembers(pgid)).toEqual([pgid]);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("findSurvivors and settleAgentProcesses", () => {
  test("a background job in the agent's group is found by process_group and killed", async () => {
    const marker = createTurnMarker();
    const pgid = await runAgentScript(
      "sleep 300 & echo $! > bg.pid; exit 0",
      withTurnMarker(process.env, marker),
    );
    const pid = await pidFrom("bg.pid");
    await execd(pid, "sleep 300");
    const scan = findSurvivors({ processGroup: pgid, marker });
    expect(scan.survivors).toEqual([{ pid, command_line: "sleep 300", found_by: "process_group" }]);
    const settled = await settleAgentProcesses({ processGroup: pgid, marker, graceMs: 100 });
    expect(settled.survivors).toEqual([
      { pid, command_line: "sleep 300", found_by: "process_group", outcome: "killed" },
    ]);
    expect(settled.unkillable).toEqual([]);
    expect(processRunning(pid)).toBe(false);
  });

  test("a setsid daemon outside the group is found by environment_marker, not by the group", async () => {
    const marker = createTurnMarker();
    const pgid = await runAgentScript(
      "setsid sh -c 'echo $$ > daemon.pid; exec sleep 301' </dev/null >/dev/null 2>&1 & exit 0",
      withTurnMarker(process.env, marker),
    );
    const pid = await pidFrom("daemon.pid");
    expect(findSurvivors({ processGroup: pgid }).survivors).toEqual([]);
    const settled = await settleAgentProcesses({ processGroup: pgid, marker, graceMs: 50 });
    expect(settled.survivors).toEqual([
      { pid, command_line: "sleep 301", found_by: "environment_marker", outcome: "killed" },
    ]);
    expect(settled.markerScanned).toBe(true);
    expect(processRunning(pid)).toBe(false);
  });

  test("a double-forked setsid daemon with a cleared environment is found by the subreaper and reaped", async () => {
    expect(setChildSubreaper(true)).toEqual({ active: true });
    try {
      const marker = createTurnMarker();
      const pgid = await runAgentScript(
        "setsid env -i /bin/sh -c '(/bin/sh -c \"echo \\$\\$ > daemon2.pid; exec /bin/sleep 302\" &) &' </dev/null >/dev/null 2>&1; exit 0",
        withTurnMarker(process.env, marker),
      );
      const pid = await pidFrom("daemon2.pid");
      // Neither the group nor the marker sees it: only its parent (this process) does.
      expect(findSurvivors({ processGroup: pgid, marker }).survivors).toEqual([]);
      const settled = await settleAgentProcesses({
        processGroup: pgid,
        marker,
        subreaper: true,
        graceMs: 50,
      });
      expect(settled.survivors).toEqual([
        { pid, command_line: "/bin/sleep 302", found_by: "subreaper", outcome: "killed" },
      ]);
      // Killed and reaped: no zombie is left in the process table.
      expect(existsSync(`/proc/${pid}`)).toBe(false);
    } finally {
      setChildSubreaper(false);
    }
  });

  test("a survivor that ends within the grace is recorded as exited and not killed", async () => {
    const marker = createTurnMarker();
    const pgid = await runAgentScript(
      "sh -c 'echo $$ > short.pid; exec sleep 0.3' & exit 0",
      withTurnMarker(process.env, marker),
    );
    const pid = await pidFrom("short.pid");
    const sent: Array<[number, string]> = [];
    const begun = Date.now();
    const settled = await settleAgentProcesses({
      processGroup: pgid,
      marker,
      graceMs: 10_000,
      kill: (target, signal) => sent.push([target, signal]),
    });
    expect(settled.survivors.map((s) => [s.pid, s.found_by, s.outcome])).toEqual([
      [pid, "process_group", "exited"],
    ]);
    expect(sent).toEqual([]);
    // The grace ends when the last survivor does, not after the full 10 s.
    expect(Date.now() - begun).toBeLessThan(5000);
  });

  test("a survivor that SIGKILL does not stop is reported unkillable", async () => {
    const marker = createTurnMarker();
    const pgid = await runAgentScript(
      "sleep 303 & echo $! > stuck.pid; exit 0",
      withTurnMarker(process.env, marker),
    );
    const pid = await pidFrom("stuck.pid");
    await execd(pid, "sleep 303");
    const refused: number[] = [];
    // The injected kill refuses like the kernel does for another user's process (EPERM).
    const kill = (target: number) => {
      refused.push(target);
      throw Object.assign(new Error("kill EPERM"), { code: "EPERM" });
    };
    const settled = await settleAgentProcesses({
      processGroup: pgid,
      marker,
      graceMs: 20,
      killWaitMs: 100,
      kill,
    });
    expect(settled.unkillable).toEqual([
      { pid, command_line: "sleep 303", found_by: "process_group", outcome: "unkillable" },
    ]);
    // SIGSTOP, then SIGKILL, to the group and the pid (one round: then it is known unkillable).
    expect(refused).toEqual([-pgid, pid, -pgid, pid]);
    expect(processRunning(pid)).toBe(true);
  });

  test("Session.settleAgentProcesses: an unkillable survivor opens background child agent-survivor:PID and the turn is incomplete (E2)", async () => {
    const r = await repo({ "value.txt": "41\n" });
    const session = await Session.start({ root: r.root, agentGraceMs: 20 });
    const marker = createTurnMarker();
    const pgid = await runAgentScript(
      `printf '42\\n' > ${JSON.stringify(join(r.root, "value.txt"))}; sleep 304 & echo $! > stuck2.pid; exit 0`,
      withTurnMarker(process.env, marker),
    );
    const pid = await pidFrom("stuck2.pid");
    await execd(pid, "sleep 304");
    const settled = await session.settleAgentProcesses({
      processGroup: pgid,
      marker,
      killWaitMs: 100,
      kill: () => {
        throw Object.assign(new Error("kill EPERM"), { code: "EPERM" });
      },
    });
    expect(settled.unkillable.map((s) => s.pid)).toEqual([pid]);
    expect(session.openWorkspaceChildren).toEqual([`agent-survivor:${pid}`]);
    await session.observeWorkspace();
    // Still open after the re-read (the ledger replays the observation), and no row added for it.
    expect(session.openWorkspaceChildren).toEqual([`agent-survivor:${pid}`]);
    expect(session.records.map((row) => [row.tool, row.path])).toEqual([
      ["workspace", "value.txt"],
    ]);
    const outcome = await session.decide();
    expect(outcome).toEqual({
      kind: "incomplete",
      reason: "open_children",
      message: `completion gate: background workspace task agent-survivor:${pid} has not been observed. A final answer does not observe its writes.`,
      effect_digest: session.effectDigest,
      task_ids: [`agent-survivor:${pid}`],
    });
  });

  test("a job-control background job with a cleared environment (own group, same session) is found by session", async () => {
    const marker = createTurnMarker();
    const sid = await runAgentScript(
      "env -i /bin/bash -c 'set -m; /bin/sleep 310 & echo $! > job.pid' </dev/null >/dev/null 2>&1; exit 0",
      withTurnMarker(process.env, marker),
    );
    const pid = await pidFrom("job.pid");
    await execd(pid, "/bin/sleep 310");
    expect(findSurvivors({ processGroup: sid, marker }).survivors).toEqual([]);
    const settled = await settleAgentProcesses({
      processGroup: sid,
      session: sid,
      marker,
      graceMs: 20,
    });
    expect(settled.survivors).toEqual([
      { pid, command_line: "/bin/sleep 310", found_by: "session", outcome: "killed" },
    ]);
    expect(processRunning(pid)).toBe(false);
  });

  test("the subreaper rule never counts the host's own children listed by childPids() before the agent", async () => {
    const own = spawn("sleep", ["313"], { stdio: "ignore" });
    const pid = own.pid as number;
    // Killed by its handle below (not by afterEach's reapChild: it is libuv's child).
    await execd(pid, "sleep 313");
    const before = childPids();
    expect(before.has(pid)).toBe(true);
    expect(findSurvivors({ subreaper: true }).survivors).toContainEqual({
      pid,
      command_line: "sleep 313",
      found_by: "subreaper",
    });
    expect(
      findSurvivors({ subreaper: true, excludePids: before }).survivors.map((s) => s.pid),
    ).not.toContain(pid);
    own.kill("SIGKILL");
  });
});

describe("killUntilQuiet: scan -> SIGSTOP+SIGKILL -> reap until two consecutive empty scans", () => {
  // Pids above Linux's pid_max (4,194,304): never running, so each kill "succeeds" at once.
  const A = 9_000_001;
  const B = 9_000_002;
  const C = 9_000_003;

  test("a process found after an empty scan starts the count again; it ends after two empty scans in a row", async () => {
    const scans: number[][] = [[A], [B], [], [C], [], [], [A]];
    const sent: Array<[number, string]> = [];
    const result = await killUntilQuiet({
      scan: () => scans.shift() ?? [],
      groups: [42],
      kill: (pid, signal) => sent.push([pid, signal]),
      pollMs: 5,
    });
    expect(result).toEqual({
      killed: [A, B, C],
      unkillable: [],
      stillAppearing: [],
      rounds: 6,
      quiet: true,
    });
    expect(scans).toEqual([[A]]); // the seventh scan never ran
    expect(sent.slice(0, 4)).toEqual([
      [-42, "SIGSTOP"],
      [A, "SIGSTOP"],
      [-42, "SIGKILL"],
      [A, "SIGKILL"],
    ]);
    expect(sent.length).toBe(12);
  });

  test("a process that keeps appearing until the round bound is reported as still appearing", async () => {
    let next = 9_100_000;
    const result = await killUntilQuiet({
      scan: () => {
        next += 1;
        return [next];
      },
      kill: () => {},
      maxRounds: 10,
      pollMs: 5,
    });
    expect(result.rounds).toBe(10);
    expect(result.quiet).toBe(false);
    expect(result.killed.length).toBe(10);
    expect(result.stillAppearing).toEqual([9_100_010]);
  });

  test("the time bound ends the rounds too (no new round after maxMs)", async () => {
    let next = 9_200_000;
    const starts: number[] = [];
    const begun = Date.now();
    const result = await killUntilQuiet({
      // Each scan takes 10 ms (like a slow /proc read): 100 ms allow about 10 rounds.
      scan: () => {
        starts.push(Date.now());
        const end = Date.now() + 10;
        while (Date.now() < end) {
          // a slow scan
        }
        next += 1;
        return [next];
      },
      kill: () => {},
      maxRounds: 100_000,
      maxMs: 100,
      pollMs: 5,
    });
    expect(result.quiet).toBe(false);
    expect(result.rounds).toBe(starts.length);
    // No round but the first began after the bound (taken just after `begun`; 50 ms of
    // slack for a loaded machine between the two readings)...
    expect(starts.slice(1).filter((t) => t >= begun + 150)).toEqual([]);
    // ...the rounds ended because the bound passed (the chain kept appearing), and with
    // 10 ms scans at most 15 rounds fit, however loaded the machine is.
    expect(Date.now()).toBeGreaterThanOrEqual(begun + 100);
    expect(result.rounds).toBeLessThanOrEqual(15);
    expect(result.stillAppearing).toEqual([next]);
    expect(Date.now() - begun).toBeLessThan(5000);
  });

  test("an unkillable process is signalled once and then does not keep the rounds going", async () => {
    const sent: Array<[number, string]> = [];
    const result = await killUntilQuiet({
      // This process is running; the injected kill refuses like EPERM.
      scan: () => [process.pid],
      kill: (pid, signal) => {
        sent.push([pid, signal]);
        throw Object.assign(new Error("kill EPERM"), { code: "EPERM" });
      },
      killWaitMs: 50,
      pollMs: 5,
    });
    expect(result).toEqual({
      killed: [],
      unkillable: [process.pid],
      stillAppearing: [],
      rounds: 3,
      quiet: true,
    });
    expect(sent).toEqual([
      [process.pid, "SIGSTOP"],
      [process.pid, "SIGKILL"],
    ]);
  });
});
