/**
 * Concurrency benchmark (issue #11 §3): how long a cheap `initialize` waits while a heavy
 * `facts.diagnostic_delta` (100,000 diagnostics per side, a ~30 MiB line) is being served.
 * Reference, measured in the same run against the same server: the `initialize` round trip
 * with nothing else running (median of 20). Delay = round trip sent right after the heavy
 * line was handed to the pipe − that reference. Two servers: worker pool on (default
 * threshold 256 KiB) and off (TURNGATE_BRIDGE_WORKER_THRESHOLD=off, every line on the main
 * thread). With the pool on, the heavy line reaches the threshold while it is still arriving
 * and is streamed to a worker chunk by chunk (the main thread never joins it). Each heavy reply is checked (its `added` and `removed` signatures). Target: delay ≤ 50 ms with the pool.
 *
 * Run: pnpm exec tsx packages/bridge/bench/concurrency.bench.ts   (prints ms; not a test)
 * TURNGATE_BENCH_N overrides the diagnostics per side.
 */
import { BridgeProcess } from "../test/helpers/bridge-process.js";

const N = Number(process.env.TURNGATE_BENCH_N ?? 100_000);
const RUNS = 3;

const side = (shift: number) => ({
  diagnostics: Array.from({ length: N }, (_, i) => ({
    path: `src/module${Math.floor((i + shift) / 97)}/file${i + shift}.ts`,
    line: (i % 500) + 1,
    code: "TS2322",
    severity: "error",
    message: `Type '{ id: number; }' is not assignable to type 'Entity${i + shift}'.`,
  })),
});
const heavyLine = (id: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "facts.diagnostic_delta",
    params: { previous: side(0), current: side(1) },
  });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function roundTrip(bridge: BridgeProcess): Promise<number> {
  const t0 = performance.now();
  await bridge.call("initialize", {});
  return performance.now() - t0;
}

async function measure(threshold: string) {
  const bridge = new BridgeProcess({
    TURNGATE_BRIDGE_WORKER_THRESHOLD: threshold,
    TURNGATE_BRIDGE_VALIDATE_RESULTS: "0",
  });
  try {
    await roundTrip(bridge);
    const alone: number[] = [];
    for (let i = 0; i < 20; i++) alone.push(await roundTrip(bridge));
    const reference = median(alone);
    const delays: number[] = [];
    const heavyMs: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const id = `heavy-${r}`;
      const line = `${heavyLine(id)}\n`;
      const sent = performance.now();
      await new Promise<void>((done) => bridge.child.stdin.write(line, () => done()));
      const cheap = await roundTrip(bridge);
      delays.push(cheap - reference);
      const reply = await bridge.waitFor(
        (m) => m.id === id || (m.id === null && m.error !== undefined),
      );
      if (reply.id === null) throw new Error(`${id}: ${JSON.stringify(reply.error)}`);
      heavyMs.push(performance.now() - sent);
      const result = reply.result as { added: string[]; removed: string[] } | undefined;
      if (result?.added.length !== 1 || result.removed.length !== 1) {
        throw new Error(`${id}: unexpected answer ${JSON.stringify(reply).slice(0, 300)}`);
      }
    }
    return { reference, delays, heavyMs };
  } finally {
    bridge.kill();
  }
}

console.log(
  `heavy line: ${(Buffer.byteLength(heavyLine("x")) / 2 ** 20).toFixed(1)} MiB, ${N} diagnostics per side`,
);
for (const [label, threshold] of [
  ["worker pool on (≥ 256 KiB)", "262144"],
  ["worker pool off", "off"],
] as const) {
  const { reference, delays, heavyMs } = await measure(threshold);
  console.log(
    `${label}: initialize alone ${reference.toFixed(1)} ms (median of 20); delay while the heavy call runs ${delays.map((d) => d.toFixed(1)).join(", ")} ms (median ${median(delays).toFixed(1)}; target ≤ 50); heavy call ${heavyMs.map((d) => d.toFixed(0)).join(", ")} ms`,
  );
}
