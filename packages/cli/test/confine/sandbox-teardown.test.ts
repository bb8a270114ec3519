/**
 * A confined turn does not report bubblewrap's own teardown as a process the agent left
 * running (`withoutSandboxTeardown`, docs/guarantees.md "Confined agents"; found by the
 * new-user trial: bubblewrap's init, reparented to turngate, can still be ending when the
 * survivors are first looked for).
 */
import { describe, expect, test } from "vitest";
import { withoutSandboxTeardown } from "../../src/confine-agent.js";

const argv = ["/usr/bin/bwrap", "--unshare-pid", "--die-with-parent", "--", "sh", "-c", "agent"];
const own = argv.join(" ");

describe("withoutSandboxTeardown", () => {
  test("bubblewrap's own init that exited by itself is dropped; the agent's processes, and a bwrap that had to be killed, stay reported", () => {
    const survivors = [
      { pid: 10, command_line: own, found_by: "subreaper" as const, outcome: "exited" as const },
      {
        pid: 11,
        command_line: own,
        found_by: "environment_marker" as const,
        outcome: "killed" as const,
      },
      {
        pid: 12,
        command_line: own,
        found_by: "subreaper" as const,
        outcome: "unkillable" as const,
      },
      {
        pid: 13,
        command_line: "sleep 100",
        found_by: "environment_marker" as const,
        outcome: "exited" as const,
      },
      {
        pid: 14,
        command_line: `${own} extra`,
        found_by: "subreaper" as const,
        outcome: "exited" as const,
      },
    ];
    expect(withoutSandboxTeardown(survivors, argv).map((s) => s.pid)).toEqual([11, 12, 13, 14]);
    expect(withoutSandboxTeardown([], argv)).toEqual([]);
  });

  test("the init read as a zombie (its name in brackets, no arguments) is dropped when it exited by itself, kept when it had to be killed", () => {
    const survivors = [
      {
        pid: 20,
        command_line: "[bwrap]",
        found_by: "subreaper" as const,
        outcome: "exited" as const,
      },
      {
        pid: 21,
        command_line: "[bwrap]",
        found_by: "subreaper" as const,
        outcome: "killed" as const,
      },
      { pid: 22, command_line: "[sh]", found_by: "subreaper" as const, outcome: "exited" as const },
    ];
    expect(withoutSandboxTeardown(survivors, argv).map((s) => s.pid)).toEqual([21, 22]);
  });
});
