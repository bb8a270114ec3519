import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { FAILURE_CLASSES, failureClass, runShellCommand } from "../../src/index.js";
import { tempDir } from "./helpers.js";

let dir: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir("failure-class");
});
afterEach(async () => {
  await dir.cleanup();
});

const classOf = async (
  command: string,
  options: { timeoutMs?: number; abortAfterMs?: number } = {},
) => {
  const controller = new AbortController();
  if (options.abortAfterMs !== undefined)
    setTimeout(() => controller.abort(), options.abortAfterMs);
  const run = await runShellCommand(command, {
    cwd: dir.path,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    signal: controller.signal,
  });
  return { class: failureClass(run), exitCode: run.exitCode };
};

describe("failureClass (issue #12 item 5)", () => {
  test("the vocabulary is exactly assertion, timeout, cancelled, signal, infrastructure", () => {
    expect(FAILURE_CLASSES).toEqual([
      "assertion",
      "timeout",
      "cancelled",
      "signal",
      "infrastructure",
    ]);
  });

  test("real runs: exit 0 → null, exit 1 → assertion, 127 and 126 → infrastructure", async () => {
    expect(await classOf("true")).toEqual({ class: null, exitCode: 0 });
    expect(await classOf("echo FAIL; exit 1")).toEqual({ class: "assertion", exitCode: 1 });
    expect(await classOf("no-such-command-turngate")).toEqual({
      class: "infrastructure",
      exitCode: 127,
    });
    writeFileSync(join(dir.path, "script.sh"), "echo hi\n");
    chmodSync(join(dir.path, "script.sh"), 0o644);
    expect(await classOf("./script.sh")).toEqual({ class: "infrastructure", exitCode: 126 });
  });

  test("real runs: a timeout, an abort, and a child killed by a signal", async () => {
    expect((await classOf("sleep 5", { timeoutMs: 1000 })).class).toBe("timeout");
    expect((await classOf("sleep 5", { abortAfterMs: 100 })).class).toBe("cancelled");
    expect(await classOf("sh -c 'kill -9 $$'")).toEqual({ class: "signal", exitCode: 137 });
    expect(await classOf("kill -TERM $$")).toEqual({ class: "signal", exitCode: 143 });
  });

  test("a missing working directory is infrastructure; expect_exit is honoured", async () => {
    const run = await runShellCommand("true", { cwd: join(dir.path, "missing") });
    expect(run.spawnError).toBeDefined();
    expect(failureClass(run)).toBe("infrastructure");
    const three = await runShellCommand("exit 3", { cwd: dir.path });
    expect(failureClass(three, 3)).toBeNull();
    expect(failureClass(three, 0)).toBe("assertion");
  });
});
