/**
 * The check supervisor (issue 10, "turngate's own processes never outlive it"): checks
 * run under `/bin/sh` with a supervisor subshell reading a pipe from turngate; a check that
 * ends normally releases it. Real processes; the kill -9 cases are in
 * packages/cli/test/kill-nine.test.ts.
 */
import { describe, expect, test } from "vitest";
import { runShellCommand } from "../../src/runner/shell.js";
import { SUPERVISED_WRAPPER, supervisedSpawn } from "../../src/runner/supervisor.js";
import { runningGroupMembers } from "./helpers.js";

describe("check supervisor", () => {
  test("the wrapper runs the check with the given shell under /bin/sh", () => {
    expect(supervisedSpawn("sh", "npm test")).toEqual({
      file: "/bin/sh",
      args: ["-c", SUPERVISED_WRAPPER, "turngate-check", "sh", "npm test"],
    });
  });

  test("the check's exit code and signal pass through and it does not see the supervisor's fd 3", async () => {
    const closed = await runShellCommand(
      "[ -e /proc/$$/fd/3 ] && echo fd3 open || echo fd3 closed; exit 7",
      { cwd: "/" },
    );
    expect([closed.exitCode, closed.signal, closed.output]).toEqual([7, null, "fd3 closed\n"]);
    const killed = await runShellCommand("kill -TERM $$", { cwd: "/" });
    expect([killed.exitCode, killed.signal]).toEqual([143, "SIGTERM"]);
  });

  test("a check that ends normally releases its supervisor: nothing of its group is left when the result comes", async () => {
    const result = await runShellCommand("echo $$", { cwd: "/" });
    const pgid = Number(result.output.trim());
    expect(result.exitCode).toBe(0);
    expect(runningGroupMembers(pgid)).toEqual([]);
  });
});
