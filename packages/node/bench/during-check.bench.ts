/**
 * Benchmark (issue 10, "What the checks changed"): the cost of `checkChanges` (plus
 * `AdoptedCheckOutputs.adopt`, printed apart) on the two snapshots taken around the checks, against
 * `diffSnapshots` of the same pair (the comparison turngate already made before issue 10),
 * in the same run. Synthetic snapshots: 20,000 source entries and 100,000 outside entries
 * (ignored, `node_modules`-like), 50 source and 1,000 output changes.
 *
 *   pnpm exec tsx packages/node/bench/during-check.bench.ts
 *
 * Environment: TG_BENCH_SAMPLES (default 15). Prints the p50s and their ratio; exits 1
 * only if the classification is wrong (not on a slow ratio).
 */
import { diffSnapshots } from "../src/workspace/diff/diff.js";
import { AdoptedCheckOutputs, checkChanges } from "../src/workspace/diff/during-check.js";
import type { EntryState, OutsideEntry, WorkspaceSnapshot } from "../src/workspace/snapshot.js";

const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 15);
const SOURCE = 20_000;
const OUTSIDE = 100_000;
const SOURCE_CHANGED = 50;
const OUTPUTS_CHANGED = 1_000;
/** checkChanges may cost at most this much more than the comparison it replaces. */
const TARGET_RATIO = 1.5;

const digest = (i: number) => i.toString(16).padStart(64, "0");
const entry = (i: number, over: Partial<EntryState> = {}): EntryState => ({
  kind: "file",
  content_digest: digest(i),
  size: 4096,
  mtime_ms: 1_700_000_000_000 + i,
  ctime_ms: 1_700_000_000_000 + i,
  ino: 1_000_000 + i,
  mode: 0o100644,
  ...over,
});

function snapshots(): { before: WorkspaceSnapshot; after: WorkspaceSnapshot } {
  const entries = new Map<string, EntryState>();
  const outside = new Map<string, OutsideEntry>();
  for (let i = 0; i < SOURCE; i++) entries.set(`src/d${i % 200}/f${i}.ts`, entry(i));
  for (let i = 0; i < OUTSIDE; i++) {
    outside.set(`node_modules/p${i % 1000}/f${i}.js`, {
      ...entry(SOURCE + i, { content_digest: "" }),
      scope: "ignored",
      hashed: false,
    });
  }
  const afterEntries = new Map(entries);
  const afterOutside = new Map(outside);
  let n = 0;
  for (const [path, state] of entries) {
    if (n++ >= SOURCE_CHANGED) break;
    afterEntries.set(path, { ...state, ctime_ms: state.ctime_ms + 1 });
  }
  for (let i = 0; i < OUTPUTS_CHANGED; i++) {
    afterOutside.set(`coverage/f${i}.json`, {
      ...entry(SOURCE + OUTSIDE + i),
      scope: "output",
      hashed: true,
    });
  }
  const base = { root: "/bench", taken_at_ms: 0, git: true, unreadable: [] };
  return {
    before: { ...base, entries, outside },
    after: { ...base, entries: afterEntries, outside: afterOutside },
  };
}

function p50(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const { before, after } = snapshots();
const reference: number[] = [];
const measured: number[] = [];
const adoption: number[] = [];
let wrong = false;
for (let s = 0; s < SAMPLES; s++) {
  let t = performance.now();
  const delta = diffSnapshots(before, after);
  reference.push(performance.now() - t);
  t = performance.now();
  const changes = checkChanges(before, after);
  measured.push(performance.now() - t);
  t = performance.now();
  const adopted = new AdoptedCheckOutputs();
  adopted.adopt([], after, changes.outputs);
  adoption.push(performance.now() - t);
  if (
    changes.changed.length !== SOURCE_CHANGED ||
    changes.changed.some((c) => c.change !== "metadata") ||
    changes.outputs.length !== OUTPUTS_CHANGED ||
    adopted.size !== OUTPUTS_CHANGED ||
    delta.changes.length !== OUTPUTS_CHANGED // diffSnapshots ignores timestamps
  ) {
    wrong = true;
  }
}
const ref = p50(reference);
const got = p50(measured);
console.log(
  `during-check: ${SOURCE} source + ${OUTSIDE} outside entries, ${SOURCE_CHANGED} source + ${OUTPUTS_CHANGED} output changes, ${SAMPLES} samples`,
);
console.log(`diffSnapshots (reference) p50 ${ref.toFixed(2)} ms`);
const adopt = p50(adoption);
console.log(
  `per-sample ratios ${measured.map((m, i) => (m / (reference[i] as number)).toFixed(2)).join(" ")}`,
);
console.log(
  `checkChanges p50 ${got.toFixed(2)} ms (ratio ${(got / ref).toFixed(2)}x, target <= ${TARGET_RATIO}x)`,
);
console.log(
  `AdoptedCheckOutputs.adopt p50 ${adopt.toFixed(2)} ms (checkChanges + adoption: ratio ${((got + adopt) / ref).toFixed(2)}x)`,
);
if (wrong) {
  console.error("during-check bench: wrong classification");
  process.exit(1);
}
