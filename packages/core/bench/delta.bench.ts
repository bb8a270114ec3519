/**
 * diagnosticDelta on 100,000 diagnostics per side, 10% of them changed between the
 * sides (the other 90% moved to other lines). Prints the median time of diagnosticDelta
 * and of the floor measured in the same run: sorting and de-duplicating the same
 * normalized signature strings (what any signature-set comparison must at least do), and
 * the ratio between them (target ≤ 5×).
 *
 * Run: pnpm --filter @turngate/core bench:delta
 */

import { sortCodePoints } from "../src/facts/harn-values.js";
import { diagnosticDelta } from "../src/index.js";
import { isMain } from "./lib/is-main.js";

const N = 100_000;
const RUNS = 7;

function diagnostic(i: number, lineShift: number, variant: string) {
  return {
    path: `src/module${i % 500}/file${i % 97}.ts`,
    line: 10 + (i % 400) + lineShift,
    column: 1 + (i % 60),
    severity: "error",
    code: `TS${2300 + (i % 40)}`,
    message: `Property 'field${i}${variant}' does not exist on type 'Shape${i % 1000}'.`,
  };
}

function timeMs(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/**
 * The workload, for this bench and for `pnpm qualify` (profile delta-diagnostics-100k-v1):
 * `subject()` times one diagnosticDelta of `n` diagnostics per side (ms), `reference()` one
 * dedupe + code-point sort of the same normalized signature strings (ms).
 */
export function deltaWorkload(n = N): { subject: () => number; reference: () => number } {
  const previous = { diagnostics: Array.from({ length: n }, (_, i) => diagnostic(i, 0, "")) };
  const current = {
    diagnostics: Array.from({ length: n }, (_, i) =>
      diagnostic(i, 3, i % 10 === 0 ? "Changed" : ""),
    ),
  };
  const perEntry = (side: typeof previous) =>
    side.diagnostics.map((d) => `${d.code} ${d.message}`.toLowerCase());
  const prevStrings = perEntry(previous);
  const curStrings = perEntry(current);
  const check = diagnosticDelta(previous, current);
  if (check.removed.length !== n / 10 || check.added.length !== n / 10)
    throw new Error("unexpected delta");
  if (new Set(prevStrings).size !== check.previous.signatures.length)
    throw new Error("floor strings differ");
  return {
    subject: () => timeMs(() => diagnosticDelta(previous, current)),
    reference: () =>
      timeMs(() => {
        sortCodePoints([...new Set(prevStrings)]);
        sortCodePoints([...new Set(curStrings)]);
      }),
  };
}

function main(): void {
  const previous = { diagnostics: Array.from({ length: N }, (_, i) => diagnostic(i, 0, "")) };
  const current = {
    diagnostics: Array.from({ length: N }, (_, i) =>
      diagnostic(i, 3, i % 10 === 0 ? "Changed" : ""),
    ),
  };

  function median(values: number[]): number {
    const s = [...values].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] as number;
  }

  function time(fn: () => void): number {
    const start = performance.now();
    fn();
    return performance.now() - start;
  }

  // Warm up, and take the normalized signature strings (with duplicates) for the floor.
  const warm = diagnosticDelta(previous, current);
  const perEntry = (side: typeof previous) =>
    side.diagnostics.map((d) => `${d.code} ${d.message}`.toLowerCase());
  const prevStrings = perEntry(previous);
  const curStrings = perEntry(current);
  if (warm.removed.length !== N / 10 || warm.added.length !== N / 10)
    throw new Error("unexpected delta");
  if (new Set(prevStrings).size !== warm.previous.signatures.length)
    throw new Error("floor strings differ");

  const deltaMs: number[] = [];
  const floorMs: number[] = [];
  const nativeFloorMs: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    deltaMs.push(time(() => diagnosticDelta(previous, current)));
    floorMs.push(
      time(() => {
        sortCodePoints([...new Set(prevStrings)]);
        sortCodePoints([...new Set(curStrings)]);
      }),
    );
    nativeFloorMs.push(
      time(() => {
        [...new Set(prevStrings)].sort();
        [...new Set(curStrings)].sort();
      }),
    );
  }

  const d = median(deltaMs);
  const f = median(floorMs);
  const nf = median(nativeFloorMs);
  console.log(`diagnosticDelta: ${N} diagnostics per side, 10% changed → status ${warm.status}`);
  console.log(`  diagnosticDelta           median ${d.toFixed(1)} ms over ${RUNS} runs`);
  console.log(`  floor: dedupe + sort      median ${f.toFixed(1)} ms (code point order)`);
  console.log(`  ratio delta / floor       ${(d / f).toFixed(2)}× (target ≤ 5×)`);
  console.log(`  ratio vs plain .sort()    ${(d / nf).toFixed(2)}× (floor ${nf.toFixed(1)} ms)`);
}

if (isMain(import.meta.url)) main();
