/**
 * Ledger benchmark (issue 2, item 5): observe N tool results into one MutationLedger, then
 * read the effect digest; compare with the floor — hashing the final canonical ledger
 * text once (SHA-256 of its UTF-8 bytes, measured in the same run). Target: ≤ 3×.
 *
 * Each tool result is a successful `write` of a distinct path (observed in shuffled order)
 * with a short `after` text, so every observation adds one row and computes one content
 * digest (SHA-256 of `after`), as in a real turn. The run also times those content digests
 * alone, so the report splits the total into content hashing and ledger bookkeeping.
 * The scaling table (N/4, N/2, N) shows the cost is not quadratic: doubling N roughly
 * doubles the time (A3S re-sorted and re-hashed the whole ledger on every row).
 * TURNGATE_BENCH_N overrides N.
 *
 * Run: pnpm --filter @turngate/core bench   (prints ms and ratios; not a test)
 */
import { canonicalLedgerText, MutationLedger, sha256Hex } from "../src/index.js";

const N = Number(process.env.TURNGATE_BENCH_N ?? 100_000);
const REPEATS = 5;

/** Deterministic xorshift32 so every run observes the same shuffled inputs. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

function toolResults(
  n: number,
): { tool: string; metadata: { file_path: string; after: string } }[] {
  const random = rng(42);
  const results = Array.from({ length: n }, (_, i) => ({
    tool: "write",
    metadata: {
      file_path: `packages/pkg${i % 97}/src/module${Math.floor(i / 97)}/file${i}.ts`,
      after: `export const value${i} = ${i};\n`,
    },
  }));
  for (let i = results.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [results[i], results[j]] = [
      results[j] as (typeof results)[number],
      results[i] as (typeof results)[number],
    ];
  }
  // Tool results reach a host as parsed JSON; a JSON round trip gives the same flat strings.
  return JSON.parse(JSON.stringify(results));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

interface Run {
  /** observeTool for every result, then one digest read (ms). */
  observeMs: number;
  /** SHA-256 of each result's `after` text alone — the content digests (ms). */
  contentHashMs: number;
  /** SHA-256 of the final canonical text, once (ms). */
  floorMs: number;
  rows: number;
}

function runOnce(inputs: ReturnType<typeof toolResults>): Run {
  const start = performance.now();
  const ledger = new MutationLedger();
  for (const r of inputs) ledger.observeTool(r.tool, 0, r.metadata);
  const digest = ledger.digest;
  const observeMs = performance.now() - start;

  const hashStart = performance.now();
  for (const r of inputs) sha256Hex(r.metadata.after);
  const contentHashMs = performance.now() - hashStart;

  const text = canonicalLedgerText(ledger.records);
  const floorStart = performance.now();
  const floorDigest = sha256Hex(text);
  const floorMs = performance.now() - floorStart;
  if (floorDigest !== digest)
    throw new Error("benchmark: ledger digest differs from the floor's digest");
  return { observeMs, contentHashMs, floorMs, rows: ledger.size };
}

function measure(n: number): Run {
  const inputs = toolResults(n); // built once per size, outside the timed region
  runOnce(inputs.slice(0, 10_000)); // warm-up
  const runs = Array.from({ length: REPEATS }, () => runOnce(inputs));
  return {
    observeMs: median(runs.map((r) => r.observeMs)),
    contentHashMs: median(runs.map((r) => r.contentHashMs)),
    floorMs: median(runs.map((r) => r.floorMs)),
    rows: runs[0]?.rows ?? 0,
  };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const x = (value: number) => `${value.toFixed(2)}×`;
console.log(
  `ledger benchmark (median of ${REPEATS} runs per size; floor = SHA-256 of the final canonical text, once)`,
);
let previous: number | undefined;
for (const n of [N / 4, N / 2, N].map(Math.round)) {
  const m = measure(n);
  const growth =
    previous === undefined ? "" : `; ×${(m.observeMs / previous).toFixed(2)} time for ×2 results`;
  console.log(
    `  ${n.toString().padStart(7)} results → ${m.rows} rows: observe+digest ${ms(m.observeMs)}, floor ${ms(m.floorMs)}, ratio ${x(m.observeMs / m.floorMs)}${growth}`,
  );
  previous = m.observeMs;
  if (n === N) {
    const bookkeeping = Math.max(0, m.observeMs - m.contentHashMs);
    console.log(
      `result: ${N} observeTool calls + digest read = ${x(m.observeMs / m.floorMs)} the floor (target ≤ 3×)`,
    );
    console.log(
      `  of which content digests (one SHA-256 per result) ${ms(m.contentHashMs)} = ${x(m.contentHashMs / m.floorMs)} the floor,`,
    );
    console.log(
      `  and ledger bookkeeping (rows, sort, escape, final hash) ${ms(bookkeeping)} = ${x(bookkeeping / m.floorMs)} the floor`,
    );
  }
}
