import * as z from "zod";

/**
 * Release performance qualification report, `turngate.perf_qualification.v1` (issue #18;
 * the shape follows A3S Code's qualification reports, a3s-completion-gate.md §8, with
 * budgets as ratios against a reference measured in the same run). One report per
 * profile, written by `pnpm qualify` to `results/perf/<profile>.json`. Times in ms,
 * memory in bytes.
 */
const ms = z.number().finite().nonnegative();
const bytes = z.number().int().nonnegative();
const ratio = z.number().finite().nonnegative();

/** One measured operation: the subject's percentiles against its reference's. */
export const PerfOperationSchema = z
  .strictObject({
    p50_ms: ms,
    p95_ms: ms,
    max_ms: ms,
    samples: z.number().int().min(1),
    reference_p50_ms: ms,
    reference_p95_ms: ms,
    ratio_p50: ratio,
    ratio_p95: ratio,
    /** The budget applies to `ratio_p50`: passed = ratio_p50 ≤ budget_ratio. */
    budget_ratio: ratio,
    passed: z.boolean(),
  })
  .describe(
    "One operation of a performance profile: nearest-rank p50/p95/max of its samples, its reference's, their ratio and the budget",
  );

/**
 * One memory operation (`memory` of a report, apart from the time `operations`): the peak
 * resident set size of a child process (the subject, e.g. `turngate verify`) against its
 * reference's (e.g. `git status --porcelain` on the same repository), each sample measured
 * from the rusage `wait4` returns (scripts/qualify/peak-rss.ts). Bytes, not ms.
 */
export const PerfMemoryOperationSchema = z
  .strictObject({
    /** Nearest-rank p50 / max of the subject's peak RSS samples, bytes. */
    peak_rss_p50_bytes: bytes,
    peak_rss_max_bytes: bytes,
    samples: z.number().int().min(1),
    reference_peak_rss_p50_bytes: bytes,
    reference_peak_rss_max_bytes: bytes,
    /** Tracked files of the repository the operation ran on (the per-file divisor). */
    files: z.number().int().min(1),
    /** peak_rss_p50_bytes / files and reference_peak_rss_p50_bytes / files. */
    peak_rss_per_file_bytes: z.number().finite().nonnegative(),
    reference_peak_rss_per_file_bytes: z.number().finite().nonnegative(),
    /** peak_rss_p50_bytes / reference_peak_rss_p50_bytes. */
    ratio_p50: ratio,
    /** Budget on ratio_p50; null: reported, no budget. */
    budget_ratio: ratio.nullable(),
    /** The measuring wrapper's own floor (its figure for `true`): no figure is below it. */
    wrapper_floor_bytes: bytes,
    passed: z.boolean(),
  })
  .describe(
    "One memory operation of a performance profile: the subject's peak RSS (bytes, p50 and max, per file) against its reference's, their ratio and the budget",
  );

/** What the process that ran the workload used (from /proc/self/status and /proc/self/io on Linux). */
export const PerfResourcesSchema = z.strictObject({
  /** `harness`: the workload ran in this process; `children`: in child processes (python, go, turngate) whose CPU is in cpu_children_ms. */
  scope: z.enum(["harness", "children"]),
  rss_before_bytes: bytes.nullable(),
  rss_peak_bytes: bytes.nullable(),
  rss_after_bytes: bytes.nullable(),
  cpu_user_ms: ms,
  cpu_system_ms: ms,
  cpu_children_ms: ms.nullable(),
  read_bytes: bytes.nullable(),
});

export const PerfMachineSchema = z.strictObject({
  os: z.string(),
  os_release: z.string(),
  arch: z.string(),
  logical_cpus: z.number().int().min(1),
  processor: z.string(),
  memory_bytes: bytes,
  load_average: z.array(z.number().finite().nonnegative()).length(3),
  node: z.string(),
  python: z.string().nullable(),
  go: z.string().nullable(),
  rust: z.string().nullable(),
  git_commit: z.string().nullable(),
  git_dirty: z.boolean().nullable(),
});

export const PerfQualificationSchema = z
  .strictObject({
    schema: z.literal("turngate.perf_qualification.v1"),
    profile: z.string().regex(/^[a-z0-9][a-z0-9-]*-v[0-9]+$/),
    description: z.string(),
    /** What every ratio is against. */
    reference: z.string(),
    /** `full` applies the budgets; `quick` (CI smoke, fewer samples) reports them. */
    mode: z.enum(["full", "quick"]),
    build: z.strictObject({
      node_conditions: z.string(),
      package_versions: z.record(z.string(), z.string()),
    }),
    started_at: z.string(),
    duration_ms: ms,
    machine: PerfMachineSchema,
    parameters: z.record(z.string(), z.unknown()),
    warmup_samples: z.number().int().nonnegative(),
    measured_samples: z.number().int().min(1),
    /** Time operations (ms); empty for a memory-only profile. */
    operations: z.record(z.string(), PerfOperationSchema),
    /** Memory operations (bytes), present only in profiles that measure peak RSS. */
    memory: z.record(z.string(), PerfMemoryOperationSchema).optional(),
    /**
     * A harness check (profiles that declare one): `operation`'s ratio_p50 as the harness
     * measures it against `paired_operation`'s, the same work measured in the same process
     * by the bench's own paired method; `ratio` = harness / paired, `within` = |ratio − 1| ≤
     * `tolerance`. A report whose harness disagrees does not pass.
     */
    agreement: z
      .strictObject({
        operation: z.string(),
        paired_operation: z.string(),
        ratio: ratio,
        tolerance: ratio,
        within: z.boolean(),
      })
      .optional(),
    resources: PerfResourcesSchema,
    passed: z.boolean(),
  })
  .describe("turngate.perf_qualification.v1: one performance profile's report (issue #18)");

/** A profile that did not run, and why (a feature that does not exist yet, a missing tool). */
export const PerfSkippedSchema = z.strictObject({
  profile: z.string(),
  reason: z.string(),
});

/** `results/perf/summary.json`. */
export const PerfSummarySchema = z
  .strictObject({
    schema: z.literal("turngate.perf_summary.v1"),
    mode: z.enum(["full", "quick"]),
    started_at: z.string(),
    duration_ms: ms,
    machine: PerfMachineSchema,
    profiles: z.array(
      z.strictObject({
        profile: z.string(),
        status: z.enum(["passed", "failed", "skipped", "error"]),
        report: z.string().nullable(),
        reason: z.string().nullable(),
        operations: z.record(
          z.string(),
          z.strictObject({ ratio_p50: ratio, budget_ratio: ratio, passed: z.boolean() }),
        ),
        /** The report's memory operations: peak RSS ratio to the reference's (absent: none). */
        memory: z
          .record(
            z.string(),
            z.strictObject({
              peak_rss_p50_bytes: bytes,
              ratio_p50: ratio,
              budget_ratio: ratio.nullable(),
              passed: z.boolean(),
            }),
          )
          .optional(),
      }),
    ),
    /** `--release`: only the profiles carrying issue 33's end-to-end targets, every miss fails. */
    release: z.boolean().optional(),
    comparison: z
      .strictObject({
        baseline: z.string(),
        tolerance: z.number().finite().nonnegative(),
        regressions: z.array(z.string()),
        /** Baseline reports not compared against because they did not pass their budgets. */
        refused: z.array(z.string()).optional(),
        passed: z.boolean(),
      })
      .nullable(),
    passed: z.boolean(),
  })
  .describe("turngate.perf_summary.v1: every profile of one qualify run");

export type PerfQualification = z.output<typeof PerfQualificationSchema>;
export type PerfOperation = z.output<typeof PerfOperationSchema>;
export type PerfMemoryOperation = z.output<typeof PerfMemoryOperationSchema>;
export type PerfResources = z.output<typeof PerfResourcesSchema>;
export type PerfMachine = z.output<typeof PerfMachineSchema>;
export type PerfSummary = z.output<typeof PerfSummarySchema>;
