/**
 * The performance profiles of `pnpm qualify` (issue #18). Each declares its workload
 * parameters, warm-up and measured sample counts (full and `--quick`), its reference (what
 * every ratio is against) and its budget; the workload itself is the existing benchmark's
 * (imported from packages/<pkg>/bench, or the Python / Go bench run as a child), so the
 * qualification and the bench measure the same thing. A profile for a feature that does
 * not exist yet is declared with `skipped` and the reason, not faked.
 */

/** One timed operation of a profile: one sample of each side, in ms. */
export interface Operation {
  subject: () => number | Promise<number>;
  reference: () => number | Promise<number>;
  /**
   * When present, one sample of both sides at once (a paired method that times both on one
   * state); the harness then calls neither `subject` nor `reference`.
   */
  pair?: () => Promise<{ subject: number; reference: number }>;
  /** Budget on ratio_p50 = p50(subject) / p50(reference). */
  budgetRatio: number;
}

/** A profile whose samples come from a child process (Python, Go): it returns them all at once. */
export interface SampledOperation {
  samples: number[];
  referenceSamples: number[];
  budgetRatio: number;
}

/**
 * One memory operation of a profile: one sample of each side is a child process's peak RSS
 * in bytes (scripts/qualify/peak-rss.ts), over a repository of `files` tracked files.
 */
export interface MemoryOperation {
  subject: () => number;
  reference: () => number;
  files: number;
  /** Budget on ratio_p50 = p50(subject) / p50(reference); null: reported only. */
  budgetRatio: number | null;
}

export interface Workload {
  /** Time operations (ms). */
  operations: Record<string, Operation>;
  /** Memory operations (bytes), reported apart from the time ones. */
  memory?: Record<string, MemoryOperation>;
  /** Removes what the workload made (temp repositories), after the samples. */
  cleanup?: () => void;
}

export interface Profile {
  id: string;
  description: string;
  /** What the ratios are against. */
  reference: string;
  parameters: Record<string, unknown>;
  warmup: { full: number; quick: number };
  samples: { full: number; quick: number };
  /** Seconds the `--quick` run takes here, about (decides what .ci/run runs). */
  quickSeconds: number;
  /** `harness`: the workload runs in the profile's own process; `children`: in child processes. */
  scope: "harness" | "children";
  /** Builds the workload (outside the timed region). */
  load?: (quick: boolean) => Promise<Workload>;
  /** For child-process workloads: runs everything and returns the samples. */
  sampled?: (quick: boolean, root: string) => Promise<Record<string, SampledOperation>>;
  /** Why the profile does not run (a feature that does not exist yet). */
  skipped?: string;
  /**
   * A harness check: `operation`'s ratio must agree within `tolerance` (a fraction) with
   * `paired`'s, the same work measured by the bench's own in-process paired method.
   */
  agreement?: { operation: string; paired: string; tolerance: number };
  /**
   * The issue 33 end-to-end target the profile's budgets carry (`pnpm qualify --release`
   * runs exactly the profiles that have one, and fails on any miss).
   */
  release?: string;
}

export const PROFILES: Profile[] = [
  {
    id: "ledger-100k-v1",
    description: "MutationLedger: observe 100,000 write results, then read the effect digest",
    reference: "one SHA-256 of the final canonical ledger text (sha256Hex, same hasher, same run)",
    parameters: { rows: 100_000 },
    warmup: { full: 1, quick: 1 },
    samples: { full: 7, quick: 3 },
    quickSeconds: 12,
    scope: "harness",
    load: async (quick) => {
      const { ledgerWorkload } = await import("../../packages/core/bench/ledger.bench.js");
      const w = ledgerWorkload(quick ? 20_000 : 100_000);
      return { operations: { "observe-and-digest": { ...w, budgetRatio: 3 } } };
    },
  },
  {
    id: "delta-diagnostics-100k-v1",
    description: "diagnosticDelta over 100,000 diagnostics per side, 10% changed, 90% moved",
    reference: "dedupe + code-point sort of the same normalized signature strings",
    parameters: { diagnostics_per_side: 100_000, changed_fraction: 0.1 },
    warmup: { full: 1, quick: 1 },
    samples: { full: 7, quick: 3 },
    quickSeconds: 20,
    scope: "harness",
    load: async (quick) => {
      const { deltaWorkload } = await import("../../packages/core/bench/delta.bench.js");
      return {
        operations: { delta: { ...deltaWorkload(quick ? 20_000 : 100_000), budgetRatio: 5 } },
      };
    },
  },
  {
    id: "ladder-plan-10k-v1",
    description:
      "ladderPlan over a compiled store of 10,000 rows (1,000 matching); recording 10,000 observations into one row",
    reference:
      "plan: sorting the 1,000 matching rows by a precomputed key; record: appending the 10,000 durations to an array",
    parameters: { rows: 10_000, matching: 1_000, observations: 10_000 },
    warmup: { full: 40, quick: 40 },
    samples: { full: 15, quick: 9 },
    quickSeconds: 6,
    scope: "harness",
    load: async () => {
      const { ladderWorkload, recordWorkload } = await import(
        "../../packages/core/bench/ladder.bench.js"
      );
      return {
        operations: {
          plan: { ...ladderWorkload(), budgetRatio: 3 },
          "record-10k": { ...recordWorkload(), budgetRatio: 2 },
        },
      };
    },
  },
  {
    id: "bridge-python-roundtrip-v1",
    description:
      "ledger.digest through turngate.Client (Python) and the stdio bridge, one call at a time",
    reference:
      "the same request line written to a Node echo process over a pipe, read back and JSON-decoded",
    parameters: { calls: 10_000, warmup_calls: 500 },
    warmup: { full: 500, quick: 200 },
    samples: { full: 10_000, quick: 2_000 },
    quickSeconds: 15,
    scope: "children",
    sampled: async (quick, root) => {
      const { pythonRoundtrip } = await import("./children.js");
      return pythonRoundtrip(root, quick ? 2_000 : 10_000, quick ? 200 : 500);
    },
  },
  {
    id: "bridge-go-roundtrip-v1",
    description:
      "ledger.digest through the Go client and the stdio bridge (go test -bench BenchmarkLedgerDigestVsEchoFloor)",
    reference:
      "the same payload through a trivial Node echo child with the same framing (testdata/echo-bridge.mjs)",
    parameters: { benchmark: "BenchmarkLedgerDigestVsEchoFloor", calls_per_sample: 2_000 },
    warmup: { full: 0, quick: 0 },
    samples: { full: 7, quick: 3 },
    quickSeconds: 40,
    scope: "children",
    sampled: async (quick, root) => {
      const { goRoundtrip } = await import("./children.js");
      return goRoundtrip(root, quick ? 3 : 7);
    },
  },
  {
    id: "observer-delta-20k-v1",
    description:
      "WorkspaceObserver.delta() with a warm stat cache on a 20,000-file git repository, 50 paths changed per sample; delta-paired: the same by observer.bench.ts's paired in-process method, which the harness's ratio must agree with within 10%",
    reference: "git status --porcelain on the same repository state in the same run",
    parameters: { files: 20_000, quick_files: 5_000, file_bytes: 4096, changed: 50 },
    warmup: { full: 1, quick: 1 },
    samples: { full: 9, quick: 3 },
    quickSeconds: 90,
    scope: "harness",
    release: "warm delta in-process, 20,000 files, vs git status --porcelain: ≤ 1.0×",
    agreement: { operation: "delta", paired: "delta-paired", tolerance: 0.1 },
    load: async (quick) => {
      const { observerDeltaWorkload } = await import("../../packages/node/bench/observer.bench.js");
      const w = await observerDeltaWorkload(quick ? 5_000 : 20_000);
      // delta-paired: observer.bench.ts's in-process method on the same repository and
      // observer (one change, delta and git status back to back, alternating which first).
      const pair = async () => {
        const r = await w.paired();
        return { subject: r.delta, reference: r.git };
      };
      const unused = () => {
        throw new Error("delta-paired is measured by pair()");
      };
      return {
        operations: {
          delta: { subject: w.subject, reference: w.reference, budgetRatio: 1.0 },
          "delta-paired": { subject: unused, reference: unused, pair, budgetRatio: 1.0 },
        },
        cleanup: w.cleanup,
      };
    },
  },
  {
    id: "observer-delta-300k-v1",
    description:
      "WorkspaceObserver.delta() with a warm stat cache on a 300,000-file git repository (files of 1 KiB, to keep generation to minutes), 50 paths changed per sample",
    reference: "git status --porcelain on the same repository state in the same run",
    parameters: { files: 300_000, quick_files: 300_000, file_bytes: 1024, changed: 50 },
    warmup: { full: 1, quick: 1 },
    samples: { full: 7, quick: 2 },
    quickSeconds: 600,
    scope: "harness",
    release: "warm delta in-process, 300,000 files, vs git status --porcelain: ≤ 1.0×",
    load: async () => {
      const { observerDeltaWorkload } = await import("../../packages/node/bench/observer.bench.js");
      const w = await observerDeltaWorkload(300_000, 1024);
      return { operations: { delta: { ...w, budgetRatio: 1.0 } }, cleanup: w.cleanup };
    },
  },
  {
    id: "observer-cold-20k-v1",
    description:
      "WorkspaceObserver baseline (cold: every file hashed) on a 20,000-file git repository",
    reference: "reading every file and hashing it with node:crypto SHA-256, in the same run",
    parameters: { files: 20_000, quick_files: 5_000, file_bytes: 4096 },
    warmup: { full: 1, quick: 1 },
    samples: { full: 5, quick: 2 },
    quickSeconds: 90,
    scope: "harness",
    load: async (quick) => {
      const { observerColdWorkload } = await import("../../packages/node/bench/observer.bench.js");
      const w = await observerColdWorkload(quick ? 5_000 : 20_000);
      return { operations: { baseline: { ...w, budgetRatio: 3 } }, cleanup: w.cleanup };
    },
  },
  {
    id: "observer-ignored-100k-v1",
    description:
      "WorkspaceObserver.delta() with a warm stat cache on 20,000 tracked files plus 100,000 ignored files in node_modules/, 50 source paths changed per sample",
    reference:
      "git status --porcelain --ignored=traditional -uall (lists every ignored file) on the same state in the same run",
    parameters: {
      tracked_files: 20_000,
      ignored_files: 100_000,
      quick_tracked_files: 5_000,
      quick_ignored_files: 25_000,
      changed: 50,
    },
    warmup: { full: 1, quick: 1 },
    samples: { full: 5, quick: 3 },
    quickSeconds: 20,
    scope: "harness",
    load: async (quick) => {
      const { observerIgnoredWorkload } = await import("../../packages/node/bench/scope.bench.js");
      const w = quick
        ? await observerIgnoredWorkload(5_000, 25_000)
        : await observerIgnoredWorkload(20_000, 100_000);
      return { operations: { delta: { ...w, budgetRatio: 1.5 } }, cleanup: w.cleanup };
    },
  },
  {
    id: "turn-noop-v1",
    description:
      "a whole turngate run --check true -- true (built CLI, a real process) on this repository's own checkout, no change",
    reference: "git status --porcelain + node -e 0 on the same checkout, in the same run",
    parameters: { command: "turngate run --check true -- true", checkout: "repository root" },
    warmup: { full: 1, quick: 1 },
    samples: { full: 5, quick: 2 },
    quickSeconds: 10,
    scope: "children",
    load: async () => {
      const { noopTurnWorkload } = await import("../../packages/cli/bench/noop-turn.bench.js");
      const { fileURLToPath } = await import("node:url");
      const root = fileURLToPath(new URL("../..", import.meta.url));
      return { operations: { "run-noop": { ...noopTurnWorkload(root), budgetRatio: 15 } } };
    },
  },
  {
    id: "turn-verify-20k-v1",
    description:
      "the end of a turn: turngate verify --check true (built CLI, a real process) on a 20,000-file git repository with 50 files changed since turngate baseline, in place and in the clean room",
    reference: "git status --porcelain + node -e 0 on the same state, in the same run",
    parameters: { files: 20_000, quick_files: 5_000, changed: 50 },
    warmup: { full: 1, quick: 1 },
    samples: { full: 7, quick: 2 },
    quickSeconds: 45,
    scope: "children",
    release:
      "verify end to end, 20,000 files / 50 changed, check true, vs git status --porcelain + node -e 0: ≤ 3×",
    load: async (quick) => {
      const { verifyTurnWorkload } = await import("../../packages/cli/bench/verify-turn.bench.js");
      const w = verifyTurnWorkload(quick ? 5_000 : 20_000);
      return {
        operations: {
          "verify-in-place": {
            subject: () => w.subject("in-place"),
            reference: w.reference,
            budgetRatio: 3,
          },
          "verify-clean-room": {
            subject: () => w.subject("clean-room"),
            reference: w.reference,
            budgetRatio: 3,
          },
        },
        cleanup: w.cleanup,
      };
    },
  },
  {
    id: "turn-baseline-20k-v1",
    description:
      "turngate baseline (built CLI, a real process, a fresh --state-dir each sample: every file hashed) on a committed 20,000-file git repository of 4 KiB files (80 MB)",
    reference:
      "git ls-files -z | xargs -0 -P 2 openssl dgst -sha256 (2 batches) + node -e 0 on the same repository, in the same run",
    parameters: { files: 20_000, quick_files: 5_000, file_bytes: 4096, openssl_batches: 2 },
    warmup: { full: 1, quick: 1 },
    samples: { full: 5, quick: 2 },
    quickSeconds: 30,
    scope: "children",
    release:
      "baseline end to end, 20,000 files / 80 MB, vs openssl dgst -sha256 in 2 batches + node -e 0: ≤ 1.5×",
    load: async (quick) => {
      const { baselineTurnWorkload } = await import("./turn-workloads.js");
      const w = baselineTurnWorkload(quick ? 5_000 : 20_000);
      return { operations: { baseline: w }, cleanup: w.cleanup };
    },
  },
  {
    id: "turn-noop-20k-v1",
    description:
      "a no-op turngate run --check true -- true (built CLI, a real process) on an empty git repository (git init, nothing committed) and on a committed 20,000-file one (4 KiB files)",
    reference: "git status --porcelain + node -e 0 in the same repository, in the same run",
    parameters: { files: 20_000, quick_files: 5_000, command: "turngate run --check true -- true" },
    warmup: { full: 1, quick: 1 },
    samples: { full: 7, quick: 2 },
    quickSeconds: 30,
    scope: "children",
    release:
      "no-op run, on an empty repository and on the 20,000-file one, vs node -e 0 + git status (same repository): ≤ 2×",
    load: async (quick) => {
      const { noopRunWorkloads } = await import("./turn-workloads.js");
      return noopRunWorkloads(quick ? 5_000 : 20_000, 2);
    },
  },
  {
    id: "memory-100k-v1",
    description:
      "peak RSS of turngate baseline (cold, fresh --state-dir) and turngate verify --check true (50 files changed) on a committed 100,000-file git repository of 64-byte files (small files: peak memory scales with the file count, not the bytes)",
    reference:
      "the peak RSS of git status --porcelain on the same repository and state, in the same run (each figure: the largest single process of the command, from wait4's rusage via a python3 wrapper)",
    parameters: { files: 100_000, file_bytes: 64, changed: 50 },
    warmup: { full: 0, quick: 0 },
    samples: { full: 3, quick: 1 },
    quickSeconds: 600,
    scope: "children",
    load: async () => {
      const { memoryWorkload } = await import("./turn-workloads.js");
      const w = memoryWorkload(100_000, 64);
      return { operations: {}, memory: w.memory, cleanup: w.cleanup };
    },
  },
  {
    id: "memory-300k-v1",
    description:
      "peak RSS of turngate baseline (cold, fresh --state-dir) and turngate verify --check true (50 files changed) on a committed 300,000-file git repository of 64-byte files (small files: peak memory scales with the file count, not the bytes)",
    reference:
      "the peak RSS of git status --porcelain on the same repository and state, in the same run (each figure: the largest single process of the command, from wait4's rusage via a python3 wrapper)",
    parameters: { files: 300_000, file_bytes: 64, changed: 50 },
    warmup: { full: 0, quick: 0 },
    samples: { full: 3, quick: 1 },
    quickSeconds: 1200,
    scope: "children",
    load: async () => {
      const { memoryWorkload } = await import("./turn-workloads.js");
      const w = memoryWorkload(300_000, 64);
      return { operations: {}, memory: w.memory, cleanup: w.cleanup };
    },
  },
  {
    id: "native-vs-ts-v1",
    description:
      "the native addon's path against the TypeScript path: ledger of 100,000 writes + digest (native hasher), and a cold observer baseline of 20,000 files",
    reference:
      "the same work on the TypeScript path in the same run (ledger: @noble/hashes; observer: {native: false})",
    parameters: {
      ledger_rows: 100_000,
      files: 20_000,
      quick_ledger_rows: 20_000,
      quick_files: 5_000,
    },
    warmup: { full: 1, quick: 1 },
    samples: { full: 5, quick: 3 },
    quickSeconds: 15,
    scope: "harness",
    load: async (quick) => {
      const { ledgerNativeWorkload } = await import(
        "../../packages/node/bench/ledger-host.bench.js"
      );
      const { observerNativeWorkload } = await import(
        "../../packages/node/bench/observer.bench.js"
      );
      const ledger = ledgerNativeWorkload(quick ? 20_000 : 100_000);
      const observer = await observerNativeWorkload(quick ? 5_000 : 20_000);
      return {
        operations: {
          ledger: { ...ledger, budgetRatio: 1 },
          "observer-cold": { ...observer, budgetRatio: 1 },
        },
        cleanup: observer.cleanup,
      };
    },
  },
  {
    id: "affected-targets-10k-v1",
    description:
      "affectedTargets (through the code index, transitive, with via) for 50 changed files of a 10,000-file TypeScript repository (code-index.bench.ts)",
    reference: "a plain BFS over the same importer lists, in the same run",
    parameters: { files: 10_000, quick_files: 2_500, packages: 20, changed: 50 },
    warmup: { full: 3, quick: 2 },
    samples: { full: 9, quick: 5 },
    quickSeconds: 15,
    scope: "harness",
    load: async (quick) => {
      const { affectedTargetsWorkload } = await import(
        "../../packages/node/bench/code-index.bench.js"
      );
      const w = await affectedTargetsWorkload(quick ? 2_500 : 10_000);
      return { operations: { affected: { ...w, budgetRatio: 10 } }, cleanup: w.cleanup };
    },
  },
];

/** The profile `id`, or undefined. */
export function profileById(id: string): Profile | undefined {
  return PROFILES.find((p) => p.id === id);
}
