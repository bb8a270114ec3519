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
import { afterAll, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

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
  }, 60_000);

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
  }, 60_000);
});
