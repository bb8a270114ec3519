/**
 * The worker pool of the stdio server (issue #11 §3): large lines are served off the main
 * thread. Equivalence: with every line sent to a worker (threshold 0) the server answers a
 * mixed script exactly as with the pool off. Concurrency: a heavy facts.diagnostic_delta
 * sent first no longer holds back an initialize sent after it (the reply order flips).
 * The delay itself is measured by bench/concurrency.bench.ts, not asserted here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { effectDigest } from "@turngate/core";
import { afterAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { runStdioServer } from "../src/server/stdio.js";
import { WorkerPool } from "../src/server/worker-pool.js";
import { BridgeProcess } from "./helpers/bridge-process.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

const root = mkdtempSync(join(tmpdir(), "turngate-workers-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const script = [
  '{"jsonrpc":"2.0","id":1,"method":"ledger.digest","params":{"records":[{"tool":"write","path":"a","content_digest":"d"}]}}',
  '{"jsonrpc":"2.0","id":12345678901234567890,"method":"facts.parse_diagnostics","params":{"format":"tsc","text":"a.ts(0,3): error TS1: x"}}',
  '{"jsonrpc":"2.0","id":"i","method":"initialize","params":{}}',
  `{"jsonrpc":"2.0","id":"s","method":"session.create","params":{"root":${JSON.stringify(root)},"options":{"use_git":false}}}`,
  '{"jsonrpc":"2.0","id":"p","method":"session.presets","params":{"session_id":"session-1"}}',
  '{"jsonrpc":"2.0","method":"ledger.digest","params":{"records":[]}}',
  "{oops",
  "   ",
  '{"jsonrpc":"2.0","id":1.0,"method":"no.such"}',
  `{"jsonrpc":"2.0","id":7,"method":"facts.diagnostic_delta","params":{"previous":${"[".repeat(600)}${"]".repeat(600)},"current":null}}`,
];

async function answers(threshold: string): Promise<string[]> {
  const bridge = new BridgeProcess({ TURNGATE_BRIDGE_WORKER_THRESHOLD: threshold });
  try {
    let replies = 0;
    for (const line of script) {
      bridge.write(`${line}\n`);
      // One line at a time, so session.presets runs after session.create in both modes.
      // Every line but the notification and the blank one gets a reply.
      if (line.trim() !== "" && !line.startsWith('{"jsonrpc":"2.0","method"')) replies++;
      const want = replies;
      await bridge.waitFor(() => bridge.lines.length >= want);
    }
    expect(await bridge.end()).toBe(0);
    return [...bridge.lines];
  } finally {
    bridge.kill();
  }
}

describe("bridge worker pool", () => {
  test("every line through a worker gets exactly the reply the main thread gives", async () => {
    const off = await answers("off");
    const all = await answers("0");
    expect(off).toHaveLength(8);
    expect(all).toEqual(off);
    expect(off[1]).toBe(
      '{"jsonrpc":"2.0","id":12345678901234567890,"result":{"schema":"turngate.parsed_diagnostics.v1","format":"tsc","diagnostics":[{"path":"a.ts","line":null,"column":3,"severity":"error","code":"TS1","message":"x","source":"tsc"}],"unparsed":[]}}',
    );
  });

  test("a heavy facts.diagnostic_delta sent first no longer holds back a later initialize", async () => {
    const diagnostics = (shift: number) =>
      Array.from({ length: 40_000 }, (_, i) => ({
        path: `src/f${i + shift}.ts`,
        message: `m${i + shift}`,
        code: "TS2322",
      }));
    const heavy = JSON.stringify({
      jsonrpc: "2.0",
      id: "heavy",
      method: "facts.diagnostic_delta",
      params: {
        previous: { diagnostics: diagnostics(0) },
        current: { diagnostics: diagnostics(1) },
      },
    });
    const order = async (threshold: string) => {
      const bridge = new BridgeProcess({ TURNGATE_BRIDGE_WORKER_THRESHOLD: threshold });
      try {
        await bridge.call("initialize", {});
        bridge.write(
          `${heavy}\n{"jsonrpc":"2.0","id":"cheap","method":"initialize","params":{}}\n`,
        );
        await bridge.waitFor((m) => m.id === "heavy");
        await bridge.waitFor((m) => m.id === "cheap");
        const heavyReply = bridge.messages.find((m) => m.id === "heavy") as {
          result: { added: unknown[] };
        };
        expect(heavyReply.result.added).toEqual(["ts2322 m40000"]);
        return bridge.messages.map((m) => m.id).filter((id) => id === "heavy" || id === "cheap");
      } finally {
        bridge.kill();
      }
    };
    expect(await order("off")).toEqual(["heavy", "cheap"]);
    expect(await order("262144")).toEqual(["cheap", "heavy"]);
  });

  test("a long line arriving in pieces is streamed to a worker: answered there, handed back for initialize, refused past the cap", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const streamed = vi.spyOn(WorkerPool.prototype, "stream");
    const whole = vi.spyOn(WorkerPool.prototype, "run");
    let out = "";
    stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const done = runStdioServer({
      stdin,
      stdout,
      stderr,
      workerThresholdBytes: 4096,
      maxMessageBytes: 64 * 1024,
      validateResults: true,
    });
    // Whitespace inside the object keeps each line valid JSON while making it long.
    const pad = (n: number) => " ".repeat(n);
    const lines = [
      `{"jsonrpc":"2.0","id":1,"method":"ledger.digest","params":{"records":[{"tool":"write","path":"a","content_digest":"d"}]}${pad(20_000)}}`,
      `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}${pad(20_000)}}`,
      `{"jsonrpc":"2.0","id":3,"method":"ledger.digest","params":{"records":[]}${pad(70_000)}}`,
      '{"jsonrpc":"2.0","id":4,"method":"ledger.digest","params":{"records":[{"tool":"write","path":"a","content_digest":"d"}]}}',
      '{"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}',
    ];
    for (const line of lines) {
      // 1,000-byte chunks, one per turn of the event loop: each arrives as its own chunk.
      for (let i = 0; i < line.length; i += 1000) {
        stdin.write(line.slice(i, i + 1000));
        await new Promise((resolve) => setImmediate(resolve));
      }
      stdin.write("\n");
    }
    // EOF only once every reply is out: the server's shutdown waits 5 s for work in flight,
    // and a worker started from source (through tsx) can take longer to boot under load.
    const deadline = Date.now() + testTimeout(45_000);
    while (out.split("\n").length <= 5 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    stdin.end();
    expect(await done).toBe(0);
    const replies = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: number | null; result?: unknown; error?: unknown });
    const byId = (id: number | null) => replies.filter((r) => r.id === id);
    expect(replies).toHaveLength(5);
    // The streamed ledger.digest (worker) answers exactly as the short one (this thread).
    expect(byId(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: byId(4)[0]?.result }]);
    expect(byId(4)[0]?.result).toEqual({
      effect_digest: effectDigest([{ tool: "write", path: "a", content_digest: "d" }]),
    });
    // initialize is not stateless: the worker hands the joined bytes back, served here.
    expect(byId(2)).toEqual([{ jsonrpc: "2.0", id: 2, result: byId(5)[0]?.result }]);
    expect(byId(null)).toEqual([
      {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: "message exceeds 65536 bytes",
          data: { code: "too_large", message: "message exceeds 65536 bytes" },
        },
      },
    ]);
    // The three long lines were streamed (the third aborted at the cap), none sent whole.
    expect([streamed.mock.calls.length, whole.mock.calls.length]).toEqual([3, 0]);
    streamed.mockRestore();
    whole.mockRestore();
  });
});
