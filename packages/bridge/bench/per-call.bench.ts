/**
 * Bridge per-call cost (issue #17 item 5): sequential `ledger.digest` calls (3 rows, the
 * Python binding's round-trip request) from a Node client over pipes, against two
 * references measured in the same run:
 *
 * - a trivial JSON-RPC responder (`readline`, `JSON.parse`, a fixed `effect_digest`
 *   answer with `JSON.stringify`): what any JSON-RPC server over stdio costs (target: the
 *   bridge ≤ 1.5× its p50);
 * - the echo floor (`readline`, the same line written back): the pipe and event loops alone.
 *
 * The three servers are called in alternating chunks of 500 calls, so machine load hits all
 * alike; p50/p95 per call in microseconds and the ratios are printed, then an in-process
 * profile of one call's stages (decode, envelope parse with the id scan, depth check, zod
 * params, the handler with core's pure SHA-256 and with the server's node:crypto one,
 * serialisation), so what the round trip spends beyond the responder is named. Every
 * bridge answer is checked against core's `effectDigest`.
 *
 * Pinned to one CPU with `taskset` (see below; TG_BENCH_NO_PIN=1 for unpinned figures).
 *
 * Run: pnpm --filter @turngate/bridge bench:per-call   (after a build: it serves and profiles
 * the built dist/ of bridge and core; not a test). TURNGATE_BENCH_CALLS overrides the calls per server (default 10,000).
 */
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { effectDigest } from "@turngate/core";
import type * as Dispatch from "../src/rpc/dispatch.js";
import type * as Envelope from "../src/rpc/envelope.js";
import type * as NodeSha256 from "../src/server/node-sha256.js";
import type * as Stateless from "../src/stateless.js";

const here = dirname(fileURLToPath(import.meta.url));

// Pinned to one CPU (this process and the servers it starts inherit the mask): on an idle
// virtual machine a pipe round trip between two CPUs waits for the hypervisor to wake the
// halted one, and which server the scheduler moves there changes from run to run (measured
// on 2 vCPUs: bridge/responder p50 1.6x in one run, 3.8x and 5.4x in the next two, the
// code unchanged). On one CPU each server pays its own work only: the per-call cost this
// benchmark is about. TG_BENCH_NO_PIN=1 measures unpinned; without `taskset` it runs unpinned.
if (process.env.TG_BENCH_PINNED === undefined && process.env.TG_BENCH_NO_PIN !== "1") {
  const pinned = spawnSync(
    "taskset",
    ["-c", "0", process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    { stdio: "inherit", env: { ...process.env, TG_BENCH_PINNED: "cpu 0" } },
  );
  if (pinned.error === undefined) process.exit(pinned.status ?? 1);
}
console.log(
  process.env.TG_BENCH_PINNED === undefined
    ? "not pinned: servers run on any CPU (ratios include cross-CPU wake-ups)"
    : `pinned to ${process.env.TG_BENCH_PINNED} with taskset (TG_BENCH_NO_PIN=1 for the unpinned figure)`,
);
const dist = (path: string) => pathToFileURL(join(here, "..", "dist", path)).href;
const stdioJs = dist("server/stdio.js");
// The profile below times the same built modules the bridge child serves with.
const { checkParamsDepth }: typeof Dispatch = await import(dist("rpc/dispatch.js"));
const { parseLine, resultLine }: typeof Envelope = await import(dist("rpc/envelope.js"));
const { nodeSha256Hex }: typeof NodeSha256 = await import(dist("server/node-sha256.js"));
const { statelessTable }: typeof Stateless = await import(dist("stateless.js"));
const CALLS = Number(process.env.TURNGATE_BENCH_CALLS ?? 10_000);
const CHUNK = 500;

const records = [
  {
    tool: "write",
    path: "src/app.py",
    content_digest: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
  },
  {
    tool: "edit",
    path: "src/util.py",
    content_digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  },
  {
    tool: "write",
    path: "tests/test_app.py",
    content_digest: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
  },
];
const expected = effectDigest(records);
/** The request line as the Python binding writes it (params first, id last). */
const requestLine = (id: number) =>
  `{"jsonrpc":"2.0","method":"ledger.digest","params":${JSON.stringify({ records })},"id":${id}}\n`;

const SERVERS = {
  bridge: `import(${JSON.stringify(stdioJs)}).then((m) => m.runStdioServer({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr })).then((code) => process.exit(code))`,
  responder: `const rl = require("node:readline").createInterface({ input: process.stdin }); rl.on("line", (line) => { const m = JSON.parse(line); process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { effect_digest: "0".repeat(64) } }) + "\\n"); });`,
  echo: `const rl = require("node:readline").createInterface({ input: process.stdin }); rl.on("line", (line) => process.stdout.write(line + "\\n"));`,
};
type Name = keyof typeof SERVERS;

/** A server child with a line reader: `call(line)` resolves with the next answer line. */
function start(name: Name) {
  const child = spawn(process.execPath, ["-e", SERVERS[name]], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let buffer = "";
  let waiting: ((line: string) => void) | undefined;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    buffer += text;
    const end = buffer.indexOf("\n");
    if (end < 0 || waiting === undefined) return;
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    const done = waiting;
    waiting = undefined;
    done(line);
  });
  return {
    call(line: string): Promise<string> {
      return new Promise((resolve) => {
        waiting = resolve;
        child.stdin.write(line);
      });
    },
    stop() {
      child.stdin.end();
    },
  };
}

const percentile = (samples: number[], fraction: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * fraction) - 1)] as number;
};
const us = (value: number) => `${value.toFixed(1)} us`;
const x = (value: number) => `${value.toFixed(2)}×`;

// In-process profile of one call's stages (median of 5 rounds of 20,000), taken before
// the servers start so their load does not skew it; printed after the round trips.
const line = requestLine(12345).slice(0, -1);
const bytes = Buffer.from(line);
const decoder = new TextDecoder("utf-8", { fatal: true });
const incoming = parseLine(line) as { params: { records: typeof records } };
const spec = statelessTable["ledger.digest"];
if (spec === undefined) throw new Error("no ledger.digest");
const ctx = { requestId: 1, notify: () => {}, methods: [], requestShutdown: () => {} };
const stage = (fn: () => unknown): number => {
  const rounds: number[] = [];
  for (let r = 0; r < 6; r++) {
    const t0 = performance.now();
    for (let i = 0; i < 20_000; i++) fn();
    if (r > 0) rounds.push(((performance.now() - t0) * 1000) / 20_000);
  }
  return percentile(rounds, 0.5);
};
const stages: Array<[string, number]> = [
  ["UTF-8 decode", stage(() => decoder.decode(bytes))],
  ["envelope parse (JSON.parse + id scan)", stage(() => parseLine(line))],
  ["depth check", stage(() => checkParamsDepth(incoming.params))],
  ["zod params", stage(() => spec.params.safeParse(incoming.params))],
  ["handler, core's pure SHA-256", stage(() => spec.handler(incoming.params, ctx))],
  [
    "handler, node:crypto SHA-256 (served)",
    stage(() => spec.handler(incoming.params, { ...ctx, sha256Hex: nodeSha256Hex })),
  ],
  ["result line", stage(() => resultLine(12345, { effect_digest: expected }, "12345"))],
];

const servers = { bridge: start("bridge"), responder: start("responder"), echo: start("echo") };
const samples: Record<Name, number[]> = { bridge: [], responder: [], echo: [] };
let id = 1;
// Warm-up, and a check that each server answers as it should.
for (const name of Object.keys(servers) as Name[]) {
  for (let i = 0; i < 200; i++) {
    const line = requestLine(id++);
    const answer = await servers[name].call(line);
    if (name === "echo" && answer !== line.slice(0, -1)) throw new Error("echo: wrong answer");
    if (name === "bridge") {
      const parsed = JSON.parse(answer) as { result?: { effect_digest?: string } };
      if (parsed.result?.effect_digest !== expected) {
        throw new Error(`bridge: expected ${expected}, got ${answer}`);
      }
    }
  }
}
for (let done = 0; done < CALLS; done += CHUNK) {
  for (const name of Object.keys(servers) as Name[]) {
    const server = servers[name];
    for (let i = 0; i < CHUNK; i++) {
      const line = requestLine(id++);
      const t0 = performance.now();
      await server.call(line);
      samples[name].push((performance.now() - t0) * 1000);
    }
  }
}
for (const server of Object.values(servers)) server.stop();

const p = (name: Name, f: number) => percentile(samples[name], f);
console.log(
  `bridge per-call benchmark: ${CALLS} sequential ledger.digest calls per server (3 rows, ${requestLine(1).length} bytes), chunks of ${CHUNK} alternating`,
);
for (const name of Object.keys(servers) as Name[]) {
  console.log(`  ${name.padEnd(9)} p50 ${us(p(name, 0.5))}  p95 ${us(p(name, 0.95))}`);
}
console.log(
  `result: bridge / trivial responder p50 ${x(p("bridge", 0.5) / p("responder", 0.5))} (target ≤ 1.5×), p95 ${x(p("bridge", 0.95) / p("responder", 0.95))}; bridge / echo floor p50 ${x(p("bridge", 0.5) / p("echo", 0.5))}; responder / echo floor p50 ${x(p("responder", 0.5) / p("echo", 0.5))}`,
);

console.log("in-process stages of one call (median per call):");
for (const [name, value] of stages) console.log(`  ${name.padEnd(40)} ${us(value)}`);
