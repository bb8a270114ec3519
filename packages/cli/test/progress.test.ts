import { tmpdir } from "node:os";
import { runShellCommand, type ShellRunResult } from "@turngate/node";
import { describe, expect, test, vi } from "vitest";
import { createProgressReporter, formatSeconds } from "../src/progress.js";
import { Collector } from "./helpers.js";

/** A real run of `command` (in the temp folder), for the progress lines' failure classes. */
const run = (command: string, options: { timeoutMs?: number; abortAfterMs?: number } = {}) => {
  const controller = new AbortController();
  if (options.abortAfterMs !== undefined)
    setTimeout(() => controller.abort(), options.abortAfterMs);
  return runShellCommand(command, {
    cwd: tmpdir(),
    signal: controller.signal,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
};
const endLine = (execution: ShellRunResult, status: "passed" | "failed", durationMs = 1234) => {
  const out = new Collector();
  const progress = createProgressReporter(out);
  progress.onProgress({
    type: "end",
    index: 0,
    total: 1,
    command,
    check: { ...check, status },
    durationMs,
    execution,
  });
  return out.text;
};

const command = {
  id: "t:1",
  kind: "test",
  description: "d",
  command: "npm test",
  required: true,
  expect_exit: 0,
};
const check = {
  id: "t:1",
  kind: "test",
  description: "d",
  status: "failed" as const,
  required: true,
};

describe("progress", () => {
  test("not a terminal: one plain line per start and per end", async () => {
    const execution = await run("exit 1");
    const out = new Collector();
    const progress = createProgressReporter(out);
    progress.onProgress({ type: "start", index: 0, total: 1, command });
    progress.onProgress({
      type: "end",
      index: 0,
      total: 1,
      command,
      check,
      durationMs: 1234,
      execution,
    });
    progress.close();
    expect(out.text).toBe(
      "turngate: check t:1 started: npm test\nturngate: check t:1 failed in 1.2s: exit code 1, expected 0 (assertion)\n",
    );
  });

  test("a terminal: a live line redrawn with the elapsed time, replaced by the result", async () => {
    const execution = await run("true");
    const out = new Collector();
    out.isTTY = true;
    // The redraw clock is faked (no wall-clock sleep that a loaded machine could stretch):
    // 250 ms pass exactly, so the line is drawn at 0 ms and redrawn at 100 and 200 ms.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
    try {
      const progress = createProgressReporter(out);
      progress.onProgress({ type: "start", index: 0, total: 1, command });
      vi.advanceTimersByTime(250);
      progress.onProgress({
        type: "end",
        index: 0,
        total: 1,
        command,
        check: { ...check, status: "passed" },
        durationMs: 250,
        execution,
      });
      expect(out.text.split("\r\x1b[2K").filter(Boolean)).toEqual([
        "  … t:1  npm test  0.0s",
        "  … t:1  npm test  0.1s",
        "  … t:1  npm test  0.2s",
        "  ✔ t:1 passed in 0.3s\n",
      ]);
      // The result line is final: the redraw timer is stopped (a second of fake time later,
      // nothing more was written).
      const length = out.text.length;
      vi.advanceTimersByTime(1000);
      expect(out.text.length).toBe(length);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  test("timed-out, cancelled, killed and unrunnable checks are named by their failure class, never plain failed (issue #12 item 5)", async () => {
    expect(endLine(await run("sleep 5", { timeoutMs: 1000 }), "failed")).toBe(
      "turngate: check t:1 timed out after 1000 ms (timeout)\n",
    );
    expect(endLine(await run("sleep 5", { abortAfterMs: 50 }), "failed", 300)).toBe(
      "turngate: check t:1 cancelled after 0.3s (cancelled)\n",
    );
    expect(endLine(await run("kill -KILL $$"), "failed", 100)).toBe(
      "turngate: check t:1 ended by signal SIGKILL after 0.1s (signal)\n",
    );
    expect(endLine(await run("sh -c 'kill -SEGV $$'"), "failed", 100)).toBe(
      "turngate: check t:1 ended by signal SIGSEGV (exit 139) after 0.1s (signal)\n",
    );
    expect(endLine(await run("no-such-command-turngate"), "failed", 10)).toBe(
      "turngate: check t:1 could not run after 0.0s: command not found, exit 127 (infrastructure)\n",
    );
    expect(endLine(await run("true"), "passed", 10)).toBe("turngate: check t:1 passed in 0.0s\n");
  });

  test("formatSeconds rounds to one decimal", () => {
    expect(formatSeconds(0)).toBe("0.0s");
    expect(formatSeconds(1249)).toBe("1.2s");
    expect(formatSeconds(61_060)).toBe("61.1s");
  });
});
