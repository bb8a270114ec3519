/**
 * turngate's own check processes never outlive it (issue 10): `kill -9` of the real
 * `turngate run` process, and of a `turngate bridge --stdio` host during
 * `session.verify_commands`, while a check runs `sh -c` with a background and a foreground
 * `sleep`. No handler runs on SIGKILL: the check's supervisor sees its pipe from turngate
 * close and SIGKILLs the group. Afterwards no process of the check's group may run within
 * 1 s (by pgid and by pid, /proc).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { SKIP_REASON } from "./clean-room/helpers.js";
import { cliBundleArgs } from "./cli-bundle.js";
import { gitProject } from "./helpers.js";
import { runningGroupMembers, stillRunningAfter, waitForArgv } from "./process-groups.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const nodeArgs = cliBundleArgs();

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

/** The long check: writes its process group id (the shell's pid) to `pidFile`, then sleeps. */
const longCheck = (pidFile: string, seconds: string) =>
  `echo $$ > ${pidFile} && sleep ${seconds} & sleep ${seconds}`;

/** Waits until `pidFile` names a group with sh, its supervisor and both sleeps running. */
async function waitForGroup(pidFile: string): Promise<{ pgid: number; members: number[] }> {
  const deadline = Date.now() + testTimeout(30_000);
  while (Date.now() < deadline) {
    if (existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n")) {
      const pgid = Number(readFileSync(pidFile, "utf8"));
      const members = runningGroupMembers(pgid);
      if (members.length >= 4) return { pgid, members };
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the check never started: ${pidFile}`);
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
}

/** SIGKILL every pid still running (a failed test must not leak its sleeps). */
function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

describe("kill -9 of turngate mid-check", () => {
  test("turngate run: no process of the check remains after 1 s", async () => {
    const p = gitProject({ "value.txt": "41\n" });
    const pidFile = join(p.agents, "group.pid");
    const agent = p.agent("agent.js", `require("node:fs").writeFileSync("value.txt", "42\\n");`);
    const run = spawn(
      process.execPath,
      [
        ...nodeArgs,
        "run",
        "--root",
        p.root,
        // The check's pid file is read from outside; a clean room has its own /tmp and pids.
        "--isolation",
        "in-place",
        "--check",
        longCheck(pidFile, "43.11"),
        "--",
        "node",
        agent,
      ],
      { cwd: repoRoot, stdio: "ignore" },
    );
    let members: number[] = [];
    cleanup = () => {
      if (run.exitCode === null && run.signalCode === null) run.kill("SIGKILL");
      killAll(members);
      p.cleanup();
    };
    const exited = exitOf(run);
    const group = await waitForGroup(pidFile);
    members = group.members;
    run.kill("SIGKILL");
    expect(await exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(await stillRunningAfter(group.pgid, group.members, 1000)).toEqual([]);
  });

  test("turngate bridge --stdio SIGKILLed during session.verify_commands: no process of the check remains after 1 s", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-bridge-kill9-")));
    const pidFile = join(root, "group.pid");
    const bridge = spawn(process.execPath, [...nodeArgs, "bridge", "--stdio"], { cwd: repoRoot });
    let members: number[] = [];
    cleanup = () => {
      if (bridge.exitCode === null && bridge.signalCode === null) bridge.kill("SIGKILL");
      killAll(members);
      rmSync(root, { recursive: true, force: true });
    };
    const exited = exitOf(bridge);
    let stdout = "";
    bridge.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const request = (id: number, method: string, params: unknown) =>
      bridge.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    request(1, "session.create", { root, options: { use_git: false } });
    const deadline = Date.now() + testTimeout(30_000);
    while (!stdout.includes('"session_id"') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
    }
    const sessionId = (
      JSON.parse(stdout.split("\n")[0] as string) as { result: { session_id: string } }
    ).result.session_id;
    request(2, "session.verify_commands", {
      session_id: sessionId,
      subject: "hang",
      commands: [
        { id: "hang", kind: "test", description: "d", command: longCheck(pidFile, "43.12") },
      ],
    });
    const group = await waitForGroup(pidFile);
    members = group.members;
    bridge.kill("SIGKILL");
    expect(await exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(await stillRunningAfter(group.pgid, group.members, 1000)).toEqual([]);
  });

  test.skipIf(SKIP_REASON !== "")(
    `turngate run in a clean room: no process of the sandboxed check remains after 1 s${SKIP_REASON}`,
    async () => {
      const p = gitProject({ "value.txt": "41\n" });
      const agent = p.agent("agent.js", `require("node:fs").writeFileSync("value.txt", "42\\n");`);
      const run = spawn(
        process.execPath,
        [
          ...nodeArgs,
          "run",
          "--root",
          p.root,
          "--isolation",
          "clean-room",
          "--check",
          "sleep 43.13 & sleep 43.13; wait",
          "--",
          "node",
          agent,
        ],
        { cwd: repoRoot, stdio: "ignore" },
      );
      let sleeps: number[] = [];
      cleanup = () => {
        if (run.exitCode === null && run.signalCode === null) run.kill("SIGKILL");
        killAll(sleeps);
        p.cleanup();
      };
      const exited = exitOf(run);
      // The sleeps run in the sandbox's own pid namespace; the test finds them by argv.
      sleeps = await waitForArgv(["sleep", "43.13"], 2);
      run.kill("SIGKILL");
      expect(await exited).toEqual({ code: null, signal: "SIGKILL" });
      expect(await stillRunningAfter(-1, sleeps, 1000)).toEqual([]);
    },
  );
});
