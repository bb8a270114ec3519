import { describe, expect, test } from "vitest";
import { createProgressReporter, formatSeconds } from "../src/progress.js";
import { Collector } from "./helpers.js";

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
const execution = {} as never;

describe("progress", () => {
  test("not a terminal: one plain line per start and per end", () => {
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
      "turngate: check t:1 started: npm test\nturngate: check t:1 failed in 1.2s\n",
    );
  });

  test("a terminal: a live line redrawn with the elapsed time, replaced by the result", async () => {
    const out = new Collector();
    out.isTTY = true;
    const progress = createProgressReporter(out);
    progress.onProgress({ type: "start", index: 0, total: 1, command });
    await new Promise((resolve) => setTimeout(resolve, 250));
    progress.onProgress({
      type: "end",
      index: 0,
      total: 1,
      command,
      check: { ...check, status: "passed" },
      durationMs: 250,
      execution,
    });
    const frames = out.text.split("\r\x1b[2K").filter(Boolean);
    expect(frames.length).toBeGreaterThanOrEqual(3);
    expect(frames[0]).toBe("  … t:1  npm test  0.0s");
    expect(frames.slice(1, -1).every((f) => /^ {2}… t:1 {2}npm test {2}\d\.\ds$/.test(f))).toBe(
      true,
    );
    expect(frames.at(-1)).toBe("  ✔ t:1 passed in 0.3s\n");
    const length = out.text.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(out.text.length).toBe(length);
  });

  test("formatSeconds rounds to one decimal", () => {
    expect(formatSeconds(0)).toBe("0.0s");
    expect(formatSeconds(1249)).toBe("1.2s");
    expect(formatSeconds(61_060)).toBe("61.1s");
  });
});
