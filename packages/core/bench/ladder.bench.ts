/**
 * Facts II benchmark (issue 14, "Benchmark"):
 *
 * 1. `ladderPlan` over a record set of 10,000 rows whose query matches 1,000 of them,
 *    against the floor: sorting the same 1,000 matching rows by a precomputed sort key
 *    (`[rung, resource rank, p95, -specificity, index]`, built outside the timed region).
 *    Target ≤ 3×. Every run checks that the plan's selected order equals the floor's.
 * 2. Recording 10,000 observations into one row (`applyObservation` each time: window of
 *    64, percentiles recomputed) against appending the 10,000 durations to an array and
 *    recomputing nothing. Target ≤ 2× amortised per observation. Every run checks the
 *    final window equals the array's last 64 entries.
 *
 * Each run times the subject and then the floor back to back (after untimed warm-up runs);
 * the ratio is taken per run and the median over runs printed with the target. The breakdown splits ladderPlan into
 * validating the whole record set with zod (what the store does on read; the planner
 * itself only type-checks the fields it reads), matching, and ranking.
 *
 * Run: pnpm --filter @turngate/core exec tsx bench/ladder.bench.ts   (not a test)
 */
import {
  applyObservation,
  ladderPlan,
  parseProfileRecordSet,
  profileMatches,
  resourceRank,
} from "../src/index.js";

const ROWS = 10_000;
const MATCHING = 1_000;
const OBSERVATIONS = 10_000;
const RUNS = 9;
/** Untimed runs first, so both sides are measured JIT-compiled. */
const WARMUP = 5;

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

const CLASSES = ["cheap", "moderate", "heavy", "remote"];
function recordSet() {
  const random = rng(7);
  const rows = Array.from({ length: ROWS }, (_, i) => {
    const matching = i % (ROWS / MATCHING) === 0;
    const p95 = Math.floor(random() * 60_000);
    return {
      id: `row-${i}`,
      scope: matching
        ? { language: "tx", ...(i % 3 === 0 ? { dir: "src/**" } : {}) }
        : { language: `lang${i % 50}` },
      check: {
        rung: `R${Math.floor(random() * 6)}`,
        command: `tx check ${i}`,
        resourceClass: CLASSES[Math.floor(random() * 4)],
      },
      timings: { warmMs: { p50: p95 >> 1, p95, p99: p95 + 10 } },
    };
  });
  return JSON.parse(JSON.stringify({ schemaVersion: 1, rows }));
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] as number;
function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

// 1. ladder plan
const profiles = recordSet();
const query = { language: "tx", path: "src/a.tx" };
const matched = profileMatches(query, { profiles });
if (matched.length !== MATCHING)
  throw new Error(`query matches ${matched.length}, want ${MATCHING}`);
const keyed = matched.map((m) => {
  const check = m.row.check as { rung: string; resourceClass: string };
  const p95 = (m.row.timings as { warmMs: { p95: number } }).warmMs.p95;
  return {
    id: m.row.id as string,
    key: [
      Number(check.rung.slice(1)),
      resourceRank(check.resourceClass),
      p95,
      -m.specificity,
      m.index,
    ],
  };
});
const cmp = (a: { key: number[] }, b: { key: number[] }) => {
  for (let i = 0; i < 5; i++) {
    const d = (a.key[i] as number) - (b.key[i] as number);
    if (d !== 0) return d;
  }
  return 0;
};
const ladderRatios: number[] = [];
const ladderMs: number[] = [];
const floorMs: number[] = [];
for (let run = -WARMUP; run < RUNS; run++) {
  let plan: ReturnType<typeof ladderPlan> | undefined;
  const t = time(() => {
    plan = ladderPlan(query, { profiles });
  });
  let sorted: typeof keyed = [];
  const f = time(() => {
    sorted = [...keyed].sort(cmp);
  });
  const got = plan?.selected.map((e) => e.row_id).join(",");
  if (got !== sorted.map((s) => s.id).join(","))
    throw new Error("ladderPlan order differs from the floor");
  if (run < 0) continue; // warm-up
  ladderRatios.push(t / f);
  ladderMs.push(t);
  floorMs.push(f);
}
const validateMs = median(
  Array.from({ length: RUNS }, () => time(() => parseProfileRecordSet(profiles))),
);
const matchMs = median(
  Array.from({ length: RUNS }, () => time(() => profileMatches(query, { profiles }))),
);
console.log(
  `ladderPlan: ${ROWS} rows, ${MATCHING} matching: median ${median(ladderMs).toFixed(2)} ms vs floor (sort ${MATCHING} by precomputed key) ${median(floorMs).toFixed(3)} ms → ratio ${median(ladderRatios).toFixed(1)}× (target ≤ 3×)`,
);
console.log(
  `  breakdown: validate record set ${validateMs.toFixed(2)} ms, validate + match ${matchMs.toFixed(2)} ms, rank + build entries ≈ ${(median(ladderMs) - matchMs).toFixed(2)} ms`,
);

// 2. recording
const durations = Array.from({ length: OBSERVATIONS }, (_, i) => (i * 7919) % 5000);
const recordRatios: number[] = [];
const recordMs: number[] = [];
const appendMs: number[] = [];
for (let run = -WARMUP; run < RUNS; run++) {
  let row: Record<string, unknown> = { id: "r" };
  const t = time(() => {
    for (const d of durations) row = applyObservation(row, { durationMs: d, warm: true }, 0);
  });
  let array: number[] = [];
  const f = time(() => {
    array = [];
    for (const d of durations) array.push(d);
  });
  const window = (row.timings as { recentWarmMs: number[] }).recentWarmMs;
  if (window.join() !== array.slice(-64).join())
    throw new Error("window differs from the array's tail");
  if (run < 0) continue;
  recordRatios.push(t / f);
  recordMs.push(t);
  appendMs.push(f);
}
console.log(
  `record ${OBSERVATIONS} observations into one row: median ${median(recordMs).toFixed(2)} ms (${((median(recordMs) * 1000) / OBSERVATIONS).toFixed(2)} µs/observation) vs appending to an array ${median(appendMs).toFixed(3)} ms → ratio ${median(recordRatios).toFixed(0)}× (target ≤ 2×)`,
);
