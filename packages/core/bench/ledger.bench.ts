/**
 * Ledger benchmark (issue 2, item 5): observe N tool results into one MutationLedger, then
 * read the effect digest; compare with the floor — SHA-256 of the final canonical ledger
 * text, once (`sha256Hex`, the same noble hasher, measured in the same run). Target: ≤ 3×.
 *
 * Inputs: each tool result is a successful `write` of a distinct path (observed in
 * shuffled order) with a short `after` text, as parsed JSON (a JSON round trip), so every
 * observation adds one row and computes one content digest (SHA-256 of `after`), as in a
 * real turn. The timed region is exactly `observeTool` for every result plus one `digest`
 * read. The floor's text is rendered independently of the ledger (rows sorted by
 * `Array.prototype.sort` with `compareRecords`, rendered by `canonicalLedgerRow`), and
 * every run checks that the ledger's digest equals the floor's.
 *
 * Each run times the ledger and then the floor back to back and the ratio is taken per
 * run (median over runs), so a machine shared with other work skews both alike. CPU-time
 * ratios are printed next to the wall-clock ones. The breakdown at N splits the total into
 * the observe loop and the digest read, times the content digests alone, and estimates the
 * irreducible SHA-256 compression (the floor's cost per 64-byte block times the blocks of
 * every content digest plus the floor itself). The scaling table (N/4, N/2, N) shows that
 * doubling N roughly doubles the time (A3S re-sorted and re-hashed the whole ledger on
 * every row: quadratic).
 *
 * Run: pnpm --filter @turngate/core bench   (prints ms and ratios; not a test)
 * TURNGATE_BENCH_N overrides N; TURNGATE_BENCH_DIST=1 measures the built dist/ instead of src/.
 */
import type * as Ledger from "../src/ledger/index.js";
import { isMain } from "./lib/is-main.js";

const lib: typeof Ledger =
  process.env.TURNGATE_BENCH_DIST === "1"
    ? await import("../dist/ledger/index.js" as string)
    : await import("../src/ledger/index.js");
const { canonicalLedgerRow, compareRecords, MutationLedger, sha256Hex } = lib;

const N = Number(process.env.TURNGATE_BENCH_N ?? 100_000);
const RUNS = 7;

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

interface ToolResult {
  tool: string;
  metadata: { file_path: string; after: string };
}

function toolResults(n: number): ToolResult[] {
  const random = rng(42);
  const results: ToolResult[] = Array.from({ length: n }, (_, i) => ({
    tool: "write",
    metadata: {
      file_path: `packages/pkg${i % 97}/src/module${Math.floor(i / 97)}/file${i}.ts`,
      after: `export const value${i} = ${i};\n`,
    },
  }));
  for (let i = results.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [results[i], results[j]] = [results[j] as ToolResult, results[i] as ToolResult];
  }
  // Tool results reach a host as parsed JSON; a JSON round trip gives the same flat strings.
  return JSON.parse(JSON.stringify(results));
}

/** The canonical text, rendered without the ledger (reference sort + row rendering). */
function referenceText(inputs: readonly ToolResult[]): string {
  const records = inputs.map((r) => ({
    tool: r.tool,
    path: r.metadata.file_path,
    content_digest: sha256Hex(r.metadata.after),
  }));
  records.sort(compareRecords); // stable: equal (path, tool) keep observation order
  return records.map(canonicalLedgerRow).join("\n");
}

/** SHA-256 blocks of a message of `bytes` bytes (FIPS 180-4 padding: 1 + 8 bytes). */
const blocks = (bytes: number): number => Math.ceil((bytes + 9) / 64);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Wall-clock and CPU milliseconds of `fn`. */
function time(fn: () => void): { wall: number; cpu: number } {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  fn();
  const wall = performance.now() - wall0;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

interface Measure {
  rows: number;
  totalMs: number;
  observeMs: number;
  digestMs: number;
  floorMs: number;
  contentMs: number;
  ratio: number;
  cpuRatio: number;
  contentRatio: number;
  textBytes: number;
  contentBlocks: number;
}

function measure(n: number): Measure {
  const inputs = toolResults(n); // built once per size, outside the timed region
  const text = referenceText(inputs);
  const floorDigest = sha256Hex(text);
  const runs: Omit<Measure, "textBytes" | "contentBlocks">[] = [];
  for (let run = -1; run < RUNS; run++) {
    let ledger = new MutationLedger();
    let digest = "";
    let observeMs = 0;
    const total = time(() => {
      const start = performance.now();
      for (const r of inputs) ledger.observeTool(r.tool, 0, r.metadata);
      observeMs = performance.now() - start;
      digest = ledger.digest;
    });
    if (digest !== floorDigest)
      throw new Error("benchmark: ledger digest differs from the floor's");
    const rows = ledger.size;
    ledger = new MutationLedger(); // drop the rows before timing the floor
    const floor = time(() => sha256Hex(text));
    const content = time(() => {
      for (const r of inputs) sha256Hex(r.metadata.after);
    });
    if (run < 0) continue; // warm-up
    runs.push({
      rows,
      totalMs: total.wall,
      observeMs,
      digestMs: total.wall - observeMs,
      floorMs: floor.wall,
      contentMs: content.wall,
      ratio: total.wall / floor.wall,
      cpuRatio: total.cpu / floor.cpu,
      contentRatio: content.wall / floor.wall,
    });
  }
  const bytes = (s: string) => new TextEncoder().encode(s).length;
  const pick = (key: keyof (typeof runs)[number]) => median(runs.map((r) => r[key]));
  return {
    rows: runs[0]?.rows ?? 0,
    totalMs: pick("totalMs"),
    observeMs: pick("observeMs"),
    digestMs: pick("digestMs"),
    floorMs: pick("floorMs"),
    contentMs: pick("contentMs"),
    ratio: pick("ratio"),
    cpuRatio: pick("cpuRatio"),
    contentRatio: pick("contentRatio"),
    textBytes: bytes(text),
    contentBlocks: inputs.reduce((sum, r) => sum + blocks(bytes(r.metadata.after)), 0),
  };
}

/**
 * The workload, for this bench and for `pnpm qualify` (profile ledger-100k-v1):
 * `subject()` times observing `n` write results into a fresh MutationLedger plus one digest
 * read (ms; the digest is checked against the floor's), `reference()` one SHA-256 of the
 * final canonical ledger text (ms).
 */
export function ledgerWorkload(n = N): { subject: () => number; reference: () => number } {
  const inputs = toolResults(n);
  const text = referenceText(inputs);
  const floorDigest = sha256Hex(text);
  return {
    subject: () => {
      const ledger = new MutationLedger();
      let digest = "";
      const t = time(() => {
        for (const r of inputs) ledger.observeTool(r.tool, 0, r.metadata);
        digest = ledger.digest;
      });
      if (digest !== floorDigest) throw new Error("ledger digest differs from the floor's");
      return t.wall;
    },
    reference: () => time(() => sha256Hex(text)).wall,
  };
}

function main(): void {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const x = (value: number) => `${value.toFixed(2)}×`;
  console.log(
    `ledger benchmark (${RUNS} runs per size, median; ratio per run = observe+digest / floor, floor = SHA-256 of the final canonical text, once)`,
  );
  let previous: number | undefined;
  for (const n of [N / 4, N / 2, N].map(Math.round)) {
    const m = measure(n);
    const growth =
      previous === undefined ? "" : `; ×${(m.totalMs / previous).toFixed(2)} time for ×2 results`;
    console.log(
      `  ${n.toString().padStart(7)} results → ${m.rows} rows: observe+digest ${ms(m.totalMs)}, floor ${ms(m.floorMs)}, ratio ${x(m.ratio)} (CPU ${x(m.cpuRatio)})${growth}`,
    );
    previous = m.totalMs;
    if (n !== N) continue;
    const floorBlocks = blocks(m.textBytes);
    const irreducible = (m.contentBlocks + floorBlocks) / floorBlocks;
    console.log(
      `result: ${N} observeTool calls + digest read = ${x(m.ratio)} the floor (CPU ${x(m.cpuRatio)}; target ≤ 3×)`,
    );
    console.log(
      `  observe loop ${ms(m.observeMs)} = ${x(m.observeMs / m.floorMs)}, digest read (sort + hash) ${ms(m.digestMs)} = ${x(m.digestMs / m.floorMs)}`,
    );
    console.log(
      `  content digests alone (one sha256Hex per result) ${ms(m.contentMs)} = ${x(m.contentRatio)} the floor`,
    );
    console.log(
      `  irreducible SHA-256 compression ≈ ${x(irreducible)} the floor (${m.contentBlocks} content blocks + the floor's ${floorBlocks}, at the floor's cost per block)`,
    );
  }
}

if (isMain(import.meta.url)) main();
