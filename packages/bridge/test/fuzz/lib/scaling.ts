/**
 * Superlinearity check (issue #11 §1): a workload of size n and of size 8n; the check
 * fails when the time grows by more than 30× (linear code gives ≈ 8×, n log n ≈ 9×,
 * quadratic ≈ 64×). n is calibrated per workload so the small run takes at least 10 ms of CPU
 * (timer noise cannot flake it), and each size is timed in CPU time as the minimum of
 * several runs (the least disturbed by other processes on a shared machine).
 * Each workload also checks its answer (a count that must equal what the input holds), so
 * a parser that silently stops early cannot look fast.
 */
import { dispatchStateless } from "@turngate/bridge/pure";
import {
  contentDigest,
  type DiagnosticFormat,
  diagnosticDelta,
  effectDigest,
  gateInput,
  parseDiagnostics,
} from "@turngate/core";
import { handleStatelessLine } from "../../../src/pure.js";

/** A workload: builds an input of size n, runs it, returns a count to check. */
export interface Workload {
  name: string;
  /** Input of size n (built outside the timed region). */
  build(n: number): unknown;
  /** The timed call; returns the answer's size. */
  run(input: unknown): number;
  /** The answer `run` must give for size n. */
  expected(n: number): number;
}

const parse = (format: DiagnosticFormat) => (input: unknown) => {
  const r = parseDiagnostics(format, input as string);
  return r.diagnostics.length + r.unparsed.length;
};

const lines = (n: number, line: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => line(i)).join("\n");

/** Every parser's line and document shapes, and the pure functions' inputs. */
export const WORKLOADS: Workload[] = [
  {
    name: "go_vet: blank lines",
    build: (n) => "\n".repeat(n),
    run: parse("go_vet"),
    expected: () => 0,
  },
  {
    name: "go_vet: garbage lines",
    build: (n) => lines(n, (i) => `noise ${i}`),
    run: parse("go_vet"),
    expected: (n) => n,
  },
  {
    name: "go_vet: one JSON object per finding",
    build: (n) =>
      lines(n, (i) => `{"p${i}": {"printf": [{"posn": "a.go:${i + 1}:2", "message": "m"}]}}`),
    run: parse("go_vet"),
    expected: (n) => n,
  },
  {
    name: "tsc: diagnostic lines",
    build: (n) => lines(n, (i) => `src/a${i}.ts(${i + 1},3): error TS2322: bad ${i}`),
    run: parse("tsc"),
    expected: (n) => n,
  },
  { name: "tsc: blank lines", build: (n) => "\n".repeat(n), run: parse("tsc"), expected: () => 0 },
  {
    name: "tsc: one long line",
    build: (n) => `a(${"(1,".repeat(n)}`,
    run: parse("tsc"),
    expected: () => 1,
  },
  {
    name: "cargo: compiler messages",
    build: (n) =>
      lines(n, (i) =>
        JSON.stringify({
          reason: "compiler-message",
          message: {
            message: `m${i}`,
            level: "error",
            spans: [{ file_name: "a.rs", line_start: i + 1, column_start: 1, is_primary: true }],
          },
        }),
      ),
    run: parse("cargo"),
    expected: (n) => n,
  },
  {
    name: "rdjsonl: diagnostics",
    build: (n) =>
      lines(n, (i) =>
        JSON.stringify({
          message: `m${i}`,
          location: { path: "a", range: { start: { line: i + 1 } } },
        }),
      ),
    run: parse("rdjsonl"),
    expected: (n) => n,
  },
  {
    name: "eslint: messages",
    build: (n) =>
      JSON.stringify([
        {
          filePath: "a.js",
          messages: Array.from({ length: n }, (_, i) => ({
            severity: 2,
            message: `m${i}`,
            line: i + 1,
            column: 1,
            ruleId: "r",
          })),
        },
      ]),
    run: parse("eslint"),
    expected: (n) => n,
  },
  {
    name: "ruff: violations",
    build: (n) =>
      JSON.stringify(
        Array.from({ length: n }, (_, i) => ({
          code: "E1",
          message: `m${i}`,
          filename: "a.py",
          location: { row: i + 1, column: 1 },
        })),
      ),
    run: parse("ruff"),
    expected: (n) => n,
  },
  {
    name: "pyright: diagnostics",
    build: (n) =>
      JSON.stringify({
        generalDiagnostics: Array.from({ length: n }, (_, i) => ({
          file: "a.py",
          severity: "error",
          message: `m${i}`,
          range: { start: { line: i, character: 0 } },
        })),
      }),
    run: parse("pyright"),
    expected: (n) => n,
  },
  {
    name: "sarif: results",
    build: (n) =>
      JSON.stringify({
        version: "2.1.0",
        runs: [
          {
            tool: { driver: { name: "t" } },
            results: Array.from({ length: n }, (_, i) => ({
              ruleId: "r",
              level: "error",
              message: { text: `m${i}` },
            })),
          },
        ],
      }),
    run: parse("sarif"),
    expected: (n) => n,
  },
  {
    name: "rdjson: diagnostics",
    build: (n) =>
      JSON.stringify({ diagnostics: Array.from({ length: n }, (_, i) => ({ message: `m${i}` })) }),
    run: parse("rdjson"),
    expected: (n) => n,
  },
  {
    name: "diagnosticDelta: n diagnostics per side",
    build: (n) => ({
      previous: {
        diagnostics: Array.from({ length: n }, (_, i) => ({
          path: `a${i}.ts`,
          message: `m${i}`,
          code: "TS1",
        })),
      },
      current: {
        diagnostics: Array.from({ length: n }, (_, i) => ({
          path: `a${i + 1}.ts`,
          message: `m${i + 1}`,
          code: "TS1",
        })),
      },
    }),
    run: (input) => {
      const { previous, current } = input as { previous: unknown; current: unknown };
      const d = diagnosticDelta(previous, current);
      return d.persisted.length + d.added.length + d.removed.length;
    },
    expected: (n) => n + 1,
  },
  {
    name: "gateInput: n diagnostics per side",
    build: (n) => ({
      previous: { ok: false, errors: Array.from({ length: n }, (_, i) => `e${i}`) },
      current: { ok: false, errors: Array.from({ length: n }, (_, i) => `e${i}`) },
    }),
    run: (input) => {
      const { previous, current } = input as { previous: unknown; current: unknown };
      return gateInput(previous, current).delta.persisted.length;
    },
    expected: (n) => n,
  },
  {
    name: "effectDigest: n records",
    build: (n) =>
      Array.from({ length: n }, (_, i) => ({
        tool: "write",
        path: `p/${(i * 7919) % n}.ts`,
        content_digest: "d",
      })),
    run: (input) => (effectDigest(input as never).length === 64 ? (input as unknown[]).length : -1),
    expected: (n) => n,
  },
  {
    name: "contentDigest: metadata with n keys",
    build: (n) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${(i * 7919) % n}`, i])),
    run: (input) =>
      contentDigest(input as never).length === 64 ? Object.keys(input as object).length : -1,
    expected: (n) => n,
  },
  {
    name: "bridge: one request line with n records (envelope, id token, params depth, dispatch)",
    build: (n) =>
      `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ledger.digest","params":{"records":${JSON.stringify(Array.from({ length: n }, (_, i) => ({ tool: "write", path: `p${i}`, content_digest: "d" })))}}}`,
    run: (input) => {
      const out = handleStatelessLine(input as string) as string;
      return out.startsWith('{"jsonrpc":"2.0","id":12345678901234567890,"result"')
        ? (input as string).length
        : -1;
    },
    expected: () => -2,
  },
  {
    name: "bridge: facts.parse_diagnostics go_vet over n blank lines",
    build: (n) => ({ format: "go_vet", text: "\n".repeat(n) }),
    run: (input) =>
      (dispatchStateless("facts.parse_diagnostics", input) as { unparsed: unknown[] }).unparsed
        .length,
    expected: () => 0,
  },
];

/**
 * CPU time of one run in ms (user + system of this process, `process.cpuUsage`): on a
 * machine shared with other work, wall time measures the neighbours too.
 */
function timeOnce(w: Workload, input: unknown): { ms: number; answer: number } {
  const t0 = process.cpuUsage();
  const answer = w.run(input);
  const d = process.cpuUsage(t0);
  return { ms: (d.user + d.system) / 1000, answer };
}

/** Minimum CPU time of `runs` runs of `w` over `input` of size n (ms), checking every answer. */
function timeInput(w: Workload, input: unknown, n: number, runs: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const { ms, answer } = timeOnce(w, input);
    const expected = w.expected(n);
    // -2: the workload checks its own answer (returns -1 when wrong).
    if (expected === -2 ? answer < 0 : answer !== expected) {
      throw new Error(`${w.name} at n=${n} answered ${answer}, expected ${expected}`);
    }
    best = Math.min(best, ms);
  }
  return best;
}

/** Minimum CPU time of `runs` runs of `w` at size n (ms), checking every answer. */
export function measure(w: Workload, n: number, runs = 3): number {
  return timeInput(w, w.build(n), n, runs);
}

/**
 * The smallest n (doubling from `start`) whose warmed-up run takes at least `targetMs`
 * (minimum of 3 runs), capped at `cap`, with that time and the input built at that n:
 * `{n, ms, input}`. Sizes far below the target are timed once (a single run can only
 * overstate the time, which at worst stops the doubling one step early).
 */
export function calibrate(
  w: Workload,
  targetMs = 10,
  start = 256,
  cap = 1 << 21,
): { n: number; ms: number; input: unknown } {
  measure(w, start, 3); // warm up the JIT before anything is timed
  let n = start;
  let input = w.build(n);
  let ms = timeInput(w, input, n, 3);
  while (n < cap && ms < targetMs) {
    n *= 2;
    input = w.build(n);
    ms = timeInput(w, input, n, 1);
    if (ms >= targetMs / 2) ms = Math.min(ms, timeInput(w, input, n, 2));
  }
  return { n, ms, input };
}

/**
 * A ratio above this is measured again before it is judged: linear code gives ≈ 8× and
 * n log n ≈ 9×, so only a burst of load from other processes (or a real defect) gets here.
 */
export const RECHECK_ABOVE = 15;

/**
 * Time at n (calibrated) and at 8n, and their ratio. The 8n input is timed once; a ratio
 * above `RECHECK_ABOVE` is measured again as small, large, small (two runs each, the
 * minimum of all runs per size), so a burst of load skews neither side alone.
 */
export function scaling(w: Workload): { n: number; small: number; large: number; ratio: number } {
  const { n, ms, input } = calibrate(w);
  const largeInput = w.build(8 * n);
  let small = ms;
  let large = timeInput(w, largeInput, 8 * n, 1);
  if (large / Math.max(small, 0.001) > RECHECK_ABOVE) {
    small = Math.min(small, timeInput(w, input, n, 2));
    large = Math.min(large, timeInput(w, largeInput, 8 * n, 2));
    small = Math.min(small, timeInput(w, input, n, 2));
  }
  return { n, small, large, ratio: large / Math.max(small, 0.001) };
}
