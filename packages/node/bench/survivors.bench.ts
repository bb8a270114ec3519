/**
 * Benchmark (issue 10): the cost of one survivors scan (`findSurvivors` with a process
 * group, the environment marker and the subreaper rule: one `/proc/PID/stat` read per
 * process, plus `/proc/PID/environ` for those that do not match the group) against
 * `ps -A -o pid=,ppid=,pgid=,state=` (one process listing) on the same machine in the same
 * run. A clean agent exit costs exactly one scan.
 *
 *   pnpm --filter @turngate/node exec tsx bench/survivors.bench.ts
 *
 * Environment: TG_BENCH_SAMPLES (default 21). Prints the process count, p50s and the ratio;
 * exits 1 only if a scan finds a survivor (there is no agent here), not on a slow ratio.
 */
import { spawnSync } from "node:child_process";
import { createTurnMarker } from "../src/processes/marker.js";
import { listProcesses } from "../src/processes/process-table.js";
import { childPids, findSurvivors } from "../src/processes/survivors.js";

const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 21);

function p50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const marker = createTurnMarker();
const ownChildren = childPids(); // tsx's esbuild service
const scans: number[] = [];
const listings: number[] = [];
for (let i = 0; i < SAMPLES; i += 1) {
  let start = performance.now();
  const scan = findSurvivors({
    processGroup: 2 ** 30,
    marker,
    subreaper: true,
    excludePids: ownChildren,
  });
  scans.push(performance.now() - start);
  if (scan.survivors.length > 0) {
    console.error(`unexpected survivors: ${JSON.stringify(scan.survivors)}`);
    process.exit(1);
  }
  start = performance.now();
  spawnSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,state="], { encoding: "utf8" });
  listings.push(performance.now() - start);
}
const processes = listProcesses().length;
console.log(`processes on the machine: ${processes}`);
console.log(`findSurvivors p50: ${p50(scans).toFixed(2)} ms`);
console.log(`ps -A p50: ${p50(listings).toFixed(2)} ms`);
console.log(`ratio findSurvivors / ps: ${(p50(scans) / p50(listings)).toFixed(2)}x`);
