/**
 * Scaling curve of every parser and pure function (issue #11 §1): the workloads of the
 * fuzz suite's superlinearity check (packages/bridge/test/fuzz/lib/scaling.ts), each timed
 * (CPU ms, minimum of 3 runs, answer checked every run) at n, 2n, 4n, 8n and 16n from its
 * calibrated n. The reference is linear growth from the same run's time at n: the ratio
 * column is time(kn) / (k · time(n)) — ≈ 1 for linear code, ≈ k for quadratic code. The
 * test fails at time(8n)/time(n) > 30 (ratio column > 3.75 at 8n).
 *
 * Run: pnpm exec tsx --conditions=@turngate/source packages/bridge/bench/scaling.bench.ts
 * (not a test; prints a table). TURNGATE_BENCH_FILTER=go_vet runs the matching workloads.
 */
import { calibrate, measure, WORKLOADS } from "../test/fuzz/lib/scaling.js";

const filter = process.env.TURNGATE_BENCH_FILTER ?? "";
for (const w of WORKLOADS.filter((x) => x.name.includes(filter))) {
  const { n } = calibrate(w);
  const base = measure(w, n);
  const cells = [1, 2, 4, 8, 16].map((k) => {
    const ms = k === 1 ? base : measure(w, k * n);
    return `${k}n ${ms.toFixed(1)} ms (×${(ms / (k * base)).toFixed(2)})`;
  });
  console.log(`${w.name} [n=${n}]: ${cells.join("  ")}`);
}
