/**
 * Issue 36, the third failure: with 144,000 hostile lines the stdio fuzz got "no reply to the
 * final initialize: 11 lines out, exit 0" and an uncaught `write ENOBUFS`. The driver was at
 * fault: it wrote every line in one synchronous loop, so its stream buffered them all and
 * one `writev` of the lot failed; the failed stream was destroyed, which closed the bridge's
 * stdin, and the bridge answered what it had read and exited 0, as it must on EOF. These
 * tests pin both sides: the driver writes with backpressure, and a bridge flooded through a
 * full pipe answers every id exactly once and stays up until its input closes.
 */
import { describe, expect, test } from "vitest";
import { StdioDriver } from "./lib/stdio-driver.js";

describe("stdio flood (issue 36)", () => {
  test("the driver waits for the pipe: 48 MiB of lines never pile up in its buffer", async () => {
    const driver = new StdioDriver();
    try {
      const stdin = driver.bridge.child.stdin;
      // Blank lines of 1 MiB: read and dropped by the bridge (no reply), so only the pipe
      // and the driver's buffer are exercised.
      const blank = " ".repeat(1024 * 1024);
      let most = 0;
      for (let i = 0; i < 48; i++) {
        await driver.line(blank);
        most = Math.max(most, stdin.writableLength);
      }
      await driver.line('{"jsonrpc":"2.0","id":"after","method":"initialize","params":{}}');
      expect(await driver.waitForId('"after"', 120_000)).toBe(true);
      // Before issue 36 `line` wrote without waiting: tens of MiB sat in the buffer.
      expect(most).toBeLessThanOrEqual(blank.length + 1 + stdin.writableHighWaterMark);
      expect(driver.stdinError).toBe(null);
      expect(driver.bridge.child.exitCode).toBe(null);
      expect(await driver.end()).toBe(0);
    } finally {
      driver.kill();
    }
  }, 180_000);

  test("a flood of 30,000 requests through a full pipe: every id answered once, the bridge stays up until EOF", async () => {
    const driver = new StdioDriver();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 30_000; i++) {
        const id = i % 3 === 0 ? `"s-${i}"` : `${i}`;
        ids.push(id);
        const line =
          i % 5 === 0
            ? `{"jsonrpc":"2.0","id":${id},"method":"facts.nope","params":{}}`
            : i % 7 === 0
              ? `{"jsonrpc":"2.0","id":${id},"method":"ledger.content_digest","params":{"metadata":${"[".repeat(600)}${"]".repeat(600)}}}`
              : `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{}}`;
        await driver.line(line);
      }
      await driver.line('{"jsonrpc":"2.0","id":"final","method":"initialize","params":{}}');
      expect(await driver.waitForId('"final"', 120_000)).toBe(true);
      for (const id of ids) if (!(await driver.waitForId(id, 30_000))) break;
      const counts = new Map<string, number>();
      for (const r of driver.replies()) counts.set(r.idText, (counts.get(r.idText) ?? 0) + 1);
      expect(ids.filter((id) => counts.get(id) !== 1).slice(0, 10)).toEqual([]);
      expect(counts.size).toBe(ids.length + 1);
      expect(driver.bridge.nonJson).toEqual([]);
      expect(driver.bridge.child.exitCode).toBe(null);
      expect(await driver.end()).toBe(0);
    } finally {
      driver.kill();
    }
  }, 240_000);
});
