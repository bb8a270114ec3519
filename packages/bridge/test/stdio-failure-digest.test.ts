import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

// A TAP stream with one passing and one failing test, then a coverage-like table after the
// failure (as nyc prints after tape): the failing test must be named with its message, not
// only the last lines.
const TAP = [
  "TAP version 13",
  "ok 1 - adds",
  "not ok 2 - subtracts",
  "  ---",
  "    operator: equal",
  "    expected: 1",
  "    actual:   2",
  "  ...",
  "1..2",
  "# tests 2",
  "# fail  1",
  "----------|---------|",
  "File      | % Stmts |",
  "----------|---------|",
].join("\n");

interface Run {
  id: string;
  status: string;
  failure_digest: string[];
}

describe("session.verify_commands: failure_digest (issue 34 item 1: every channel names the failing test)", () => {
  let bridge: BridgeProcess;
  let root: string;
  let sessionId: string;
  beforeAll(async () => {
    bridge = new BridgeProcess();
    root = mkdtempSync(join(tmpdir(), "turngate-bridge-digest-"));
    writeFileSync(join(root, "tap.txt"), `${TAP}\n`);
    ({ session_id: sessionId } = await bridge.call<{ session_id: string }>("session.create", {
      root,
      options: { use_git: false },
    }));
  });
  afterAll(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
  });

  test("a failing check's run names the failing test and its assertion, then the last lines; a passing one has []", async () => {
    const result = await bridge.call<{ runs: Run[] }>("session.verify_commands", {
      session_id: sessionId,
      subject: "tests",
      commands: [
        { id: "ok", kind: "test", description: "passes", command: "true", required: true },
        {
          id: "tape",
          kind: "test",
          description: "tape tests",
          command: "cat tap.txt; exit 1",
          required: true,
        },
      ],
    });
    const [ok, tape] = result.runs;
    expect(ok).toMatchObject({ id: "ok", status: "passed", failure_digest: [] });
    expect(tape?.status).toBe("failed");
    const header = tape?.failure_digest[0] ?? "";
    expect(header).toMatch(
      /^failing tests \(1 of 2; full log: file:\/\/\/.+\/\.turngate\/logs\/[0-9a-f]{64}\.log\):$/,
    );
    expect(tape?.failure_digest.slice(1)).toEqual([
      "  ✗ subtracts",
      "      operator: equal",
      "      expected: 1",
      "      actual: 2",
      "last 10 lines:",
      "|     operator: equal",
      "|     expected: 1",
      "|     actual:   2",
      "|   ...",
      "| 1..2",
      "| # tests 2",
      "| # fail  1",
      "| ----------|---------|",
      "| File      | % Stmts |",
      "| ----------|---------|",
    ]);
  });
});
