/**
 * `exitOnTerminationSignals`: a host killed by SIGINT, SIGTERM or SIGHUP while a check runs
 * leaves no process of the check's group behind and exits with 128 + the signal number.
 * Real processes: a Node host (through tsx) runs `sh -c` with a background and a foreground
 * `sleep`; the test signals the host and checks the group by pid in /proc.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { signalExitCode } from "../../src/runner/exit-on-signal.js";
import { runningGroupMembers, stillRunningAfter, tempDir } from "./helpers.js";

let dir: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir("signal");
});
afterEach(async () => {
  await dir.cleanup();
});

const repoRoot = fileURLToPath(new URL("../../../..", import.meta.url));
const shell = fileURLToPath(new URL("../../src/runner/shell.ts", import.meta.url));
const exitOnSignal = fileURLToPath(new URL("../../src/runner/exit-on-signal.ts", import.meta.url));

/** Starts a host that runs a long check with the handlers installed; resolves with its pgid. */
async function hostWithLongCheck(marker: string) {
  const script = `import { runShellCommand } from ${JSON.stringify(shell)};
import { exitOnTerminationSignals } from ${JSON.stringify(exitOnSignal)};
import { writeFileSync } from "node:fs";
import { join } from "node:path";
const dir = process.argv[1];
exitOnTerminationSignals({ beforeExit: (signal) => writeFileSync(join(dir, "before-exit"), signal) });
void runShellCommand("echo $$ > group.pid && sleep ${marker} & sleep ${marker}", { cwd: dir });`;
  const host = spawn(
    process.execPath,
    [
      "--conditions=@turngate/source",
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      script,
      dir.path,
    ],
    { cwd: repoRoot, stdio: "ignore" },
  );
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    host.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const pidFile = join(dir.path, "group.pid");
  const deadline = Date.now() + testTimeout(30_000);
  let members: number[] = [];
  while (Date.now() < deadline) {
    if (existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n")) {
      members = runningGroupMembers(Number(readFileSync(pidFile, "utf8")));
      if (members.length >= 4) break; // sh, its supervisor, the background and the foreground sleep
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { host, exited, pgid: Number(readFileSync(pidFile, "utf8")), members };
}

describe("exitOnTerminationSignals", () => {
  test.each([
    ["SIGTERM", 143, "41.11"],
    ["SIGHUP", 129, "41.12"],
    ["SIGINT", 130, "41.13"],
  ] as const)(
    "%s: the check's process group is killed and the host exits %i",
    async (signal, code, marker) => {
      const { host, exited, pgid, members } = await hostWithLongCheck(marker);
      expect(members.length).toBe(4);
      host.kill(signal);
      expect(await exited).toEqual({ code, signal: null });
      expect(readFileSync(join(dir.path, "before-exit"), "utf8")).toBe(signal);
      expect(await stillRunningAfter(pgid, members)).toEqual([]);
    },
    60_000,
  );

  test("signalExitCode is 128 + the signal number", () => {
    expect([signalExitCode("SIGHUP"), signalExitCode("SIGINT"), signalExitCode("SIGTERM")]).toEqual(
      [129, 130, 143],
    );
  });
});
