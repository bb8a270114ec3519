/**
 * Signals while checks run, against real processes: `turngate bridge --stdio` and
 * `turngate run` are signalled while a long check (`sh -c`, a background and a foreground
 * `sleep`) runs; afterwards no process of the check's process group may be running
 * (checked by pid in /proc), and the exit code must be the documented one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { SKIP_REASON } from "./clean-room/helpers.js";
import { cliBundleArgs } from "./cli-bundle.js";
import { gitProject } from "./helpers.js";
import {
  processRunning,
  runningGroupMembers,
  stillRunningAfter,
  waitForArgv,
} from "./process-groups.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const nodeArgs = cliBundleArgs();

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

/** The long check: writes its process group id (the shell's pid) to `pidFile`, then sleeps. */
// The same three processes (the shell and two sleeps) in dash and in bash, the checks'
// shell since issue 10 (bash forks a subshell for a background `a && b` list).
const longCheck = (pidFile: string, seconds: string) =>
  `sleep ${seconds} & sleep ${seconds} & echo $$ > ${pidFile}; wait`;

/** Waits until `pidFile` names a group with sh, its supervisor and both sleeps running; returns pgid and pids. */
async function waitForGroup(pidFile: string): Promise<{ pgid: number; members: number[] }> {
  const deadline = Date.now() + testTimeout(30_000);
  while (Date.now() < deadline) {
    if (existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n")) {
      const pgid = Number(readFileSync(pidFile, "utf8"));
      const members = runningGroupMembers(pgid);
      if (members.length >= 4) return { pgid, members }; // sh, its supervisor, two sleeps
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the check never started: ${pidFile}`);
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
}

describe("turngate bridge --stdio: signals while a check runs", () => {
  test.each([
    ["SIGTERM", 143, "41.31"],
    ["SIGHUP", 129, "41.32"],
    ["SIGINT", 130, "41.33"],
  ] as const)(
    "%s closes the sessions, kills the check's process group and exits %i",
    async (signal, code, seconds) => {
      const root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-bridge-signal-")));
      const pidFile = join(root, "group.pid");
      const bridge = spawn(process.execPath, [...nodeArgs, "bridge", "--stdio"], { cwd: repoRoot });
      cleanup = () => {
        if (bridge.exitCode === null && bridge.signalCode === null) bridge.kill("SIGKILL");
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
      while (!stdout.includes('"session_id"')) await new Promise((r) => setTimeout(r, 25));
      const sessionId = (
        JSON.parse(stdout.split("\n")[0] as string) as { result: { session_id: string } }
      ).result.session_id;
      request(2, "session.verify_commands", {
        session_id: sessionId,
        subject: "hang",
        commands: [
          { id: "hang", kind: "test", description: "d", command: longCheck(pidFile, seconds) },
        ],
      });
      const { pgid, members } = await waitForGroup(pidFile);
      expect(members.length).toBe(4);
      bridge.kill(signal);
      expect(await exited).toEqual({ code, signal: null });
      expect(await stillRunningAfter(pgid, members)).toEqual([]);
    },
    60_000,
  );
});

describe("turngate run: signals while a check runs", () => {
  test.each([
    ["SIGHUP", 129, "42.11"],
    ["SIGTERM", 2, "42.12"],
    ["SIGINT", 2, "42.13"],
  ] as const)(
    "%s: no process of the check's group survives; exit %i",
    async (signal, code, seconds) => {
      const p = gitProject({ "value.txt": "41\n" });
      cleanup = p.cleanup;
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
          longCheck(pidFile, seconds),
          "--",
          "node",
          agent,
        ],
        { cwd: repoRoot },
      );
      let stdout = "";
      let stderr = "";
      run.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      run.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      const exited = exitOf(run);
      const { pgid, members } = await waitForGroup(pidFile);
      run.kill(signal);
      expect(await exited).toEqual({ code, signal: null });
      expect(await stillRunningAfter(pgid, members)).toEqual([]);
      if (code === 2) {
        // The first SIGINT/SIGTERM cancels the checks and the turn is still judged.
        expect(stdout).toContain("incomplete (unverified_mutation): the change (effect digest ");
        // Named cancelled, not failed or "could not run" (issue #12 item 5).
        expect(stdout).toContain(
          `failed (cancelled): check:1: cancelled before it finished: ${longCheck(pidFile, seconds)}\n`,
        );
        expect(stderr).toMatch(
          /\nturngate: check check:1 cancelled after \d+\.\ds \(cancelled\)\n/,
        );
      } else {
        expect(stdout).toBe("");
      }
    },
    60_000,
  );
});

describe(`turngate run in a clean room: signals while a check runs${SKIP_REASON}`, () => {
  test.skipIf(SKIP_REASON !== "").each([
    ["SIGHUP", 129, "44.11"],
    ["SIGTERM", 2, "44.12"],
    ["SIGINT", 2, "44.13"],
  ] as const)(
    "%s: no process of the sandboxed check survives; exit %i",
    async (signal, code, seconds) => {
      const p = gitProject({ "value.txt": "41\n" });
      const agent = p.agent("agent.js", `require("node:fs").writeFileSync("value.txt", "42\\n");`);
      const check = `sleep ${seconds} & sleep ${seconds}; wait`;
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
          check,
          "--",
          "node",
          agent,
        ],
        { cwd: repoRoot },
      );
      let sleeps: number[] = [];
      cleanup = () => {
        if (run.exitCode === null && run.signalCode === null) run.kill("SIGKILL");
        for (const pid of sleeps.filter(processRunning)) process.kill(pid, "SIGKILL");
        p.cleanup();
      };
      let stdout = "";
      run.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
      });
      const exited = exitOf(run);
      // The sleeps run in the sandbox's own pid namespace; the test finds them by argv.
      sleeps = await waitForArgv(["sleep", seconds], 2);
      run.kill(signal);
      expect(await exited).toEqual({ code, signal: null });
      expect(await stillRunningAfter(-1, sleeps)).toEqual([]);
      if (code === 2) {
        expect(stdout).toContain(
          `failed (cancelled): check:1: cancelled before it finished: ${check}\n`,
        );
      } else {
        expect(stdout).toBe("");
      }
    },
    60_000,
  );
});
