/**
 * Runs one profile in this process and prints its `turngate.perf_qualification.v1` report
 * as the last line of stdout (`pnpm qualify` starts one such process per profile, so each
 * report's RSS and CPU are the profile's own).
 *
 *   tsx scripts/qualify/run-profile.ts <profile-id> [--quick] [--extra-profiles MODULE]
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  type PerfMemoryOperation,
  type PerfOperation,
  type PerfQualification,
  PerfQualificationSchema,
} from "../../packages/core/src/schemas/perf-qualification.js";
import { childrenCpuMs, machineInfo, memoryStatus, percentile, readBytes } from "./measure.js";
import { peakRssFloorBytes } from "./peak-rss.js";
import { PROFILES, type Profile, type SampledOperation } from "./profiles.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Percentiles, ratios and the verdict of one operation. */
export function operationBlock(op: SampledOperation): PerfOperation {
  const p50 = percentile(op.samples, 50);
  const p95 = percentile(op.samples, 95);
  const r50 = percentile(op.referenceSamples, 50);
  const r95 = percentile(op.referenceSamples, 95);
  const ratio = (a: number, b: number) => (b > 0 ? a / b : a > 0 ? Number.MAX_VALUE : 1);
  const ratio50 = ratio(p50, r50);
  return {
    p50_ms: p50,
    p95_ms: p95,
    max_ms: percentile(op.samples, 100),
    samples: op.samples.length,
    reference_p50_ms: r50,
    reference_p95_ms: r95,
    ratio_p50: ratio50,
    ratio_p95: ratio(p95, r95),
    budget_ratio: op.budgetRatio,
    passed: ratio50 <= op.budgetRatio,
  };
}

/**
 * Collects the heap before a timed call when the process runs with `--expose-gc` (pnpm
 * qualify starts every profile process so), so the call does not pay for garbage left by
 * the previous one or by the setup; a no-op without it.
 */
function settle(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * The harness check of a profile that declares one: `harness.ratio_p50 / paired.ratio_p50`
 * and whether it is within `tolerance` (a fraction) of 1. Ratios are plain numbers; a paired
 * ratio of 0 gives Number.MAX_VALUE (never within).
 */
export function agreementBlock(
  operation: string,
  pairedOperation: string,
  harness: PerfOperation,
  paired: PerfOperation,
  tolerance: number,
): NonNullable<PerfQualification["agreement"]> {
  const ratio = paired.ratio_p50 > 0 ? harness.ratio_p50 / paired.ratio_p50 : Number.MAX_VALUE;
  return {
    operation,
    paired_operation: pairedOperation,
    ratio,
    tolerance,
    within: Math.abs(ratio - 1) <= tolerance + 1e-12,
  };
}

/** The peak-RSS samples (bytes) of one memory operation, both sides, over `files` files. */
export interface MemorySamples {
  samples: number[];
  referenceSamples: number[];
  files: number;
  budgetRatio: number | null;
}

/**
 * Nearest-rank p50 / max of both sides' peak RSS (bytes), per file (p50 / `files`), the
 * p50 ratio and the verdict (no budget: passed) of one memory operation;
 * `wrapperFloorBytes` is recorded as is. Throws on an empty sample list.
 */
export function memoryBlock(op: MemorySamples, wrapperFloorBytes: number): PerfMemoryOperation {
  const p50 = percentile(op.samples, 50);
  const r50 = percentile(op.referenceSamples, 50);
  const ratio50 = r50 > 0 ? p50 / r50 : p50 > 0 ? Number.MAX_VALUE : 1;
  return {
    peak_rss_p50_bytes: p50,
    peak_rss_max_bytes: percentile(op.samples, 100),
    samples: op.samples.length,
    reference_peak_rss_p50_bytes: r50,
    reference_peak_rss_max_bytes: percentile(op.referenceSamples, 100),
    files: op.files,
    peak_rss_per_file_bytes: p50 / op.files,
    reference_peak_rss_per_file_bytes: r50 / op.files,
    ratio_p50: ratio50,
    budget_ratio: op.budgetRatio,
    wrapper_floor_bytes: wrapperFloorBytes,
    passed: op.budgetRatio === null || ratio50 <= op.budgetRatio,
  };
}

function versions(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pkg of ["core", "node", "bridge", "cli"]) {
    try {
      const json = JSON.parse(readFileSync(join(ROOT, "packages", pkg, "package.json"), "utf8"));
      out[json.name] = json.version;
    } catch {}
  }
  return out;
}

/** Runs `profile` here (`quick`: fewer samples) and returns its validated report. */
export async function runProfile(profile: Profile, quick: boolean): Promise<PerfQualification> {
  const started = new Date();
  const t0 = performance.now();
  const before = memoryStatus();
  const cpu0 = process.cpuUsage();
  const children0 = childrenCpuMs();
  const warmup = quick ? profile.warmup.quick : profile.warmup.full;
  const measured = quick ? profile.samples.quick : profile.samples.full;
  let sampled: Record<string, SampledOperation>;
  const memorySampled: Record<string, MemorySamples> = {};
  if (profile.sampled !== undefined) sampled = await profile.sampled(quick, ROOT);
  else if (profile.load !== undefined) {
    const workload = await profile.load(quick);
    sampled = {};
    try {
      const ops = Object.entries(workload.operations);
      const one = async (op: (typeof ops)[number][1], i: number): Promise<[number, number]> => {
        if (op.pair !== undefined) {
          const r = await op.pair();
          return [r.subject, r.reference];
        }
        // Subject and reference alternate, and which goes first alternates by sample, so
        // neither side always runs in the wake of the other (its garbage, its page-cache
        // and CPU after-effects); the heap is collected before each timed call, so no side
        // pays for garbage the other side or the setup left (settle()).
        if (i % 2 === 1) {
          settle();
          const reference = await op.reference();
          settle();
          return [await op.subject(), reference];
        }
        settle();
        const subject = await op.subject();
        settle();
        return [subject, await op.reference()];
      };
      for (const [, op] of ops) for (let i = 0; i < warmup; i++) await one(op, i);
      const collected = ops.map(() => ({
        samples: [] as number[],
        referenceSamples: [] as number[],
      }));
      // The operations take turns sample by sample, so a change in machine load during the
      // run hits every operation alike (a profile's agreement check compares two of them).
      for (let i = 0; i < measured; i++)
        for (const [k, [, op]] of ops.entries()) {
          const [subject, reference] = await one(op, i);
          collected[k]?.samples.push(subject);
          collected[k]?.referenceSamples.push(reference);
        }
      for (const [k, [name, op]] of ops.entries())
        sampled[name] = {
          samples: collected[k]?.samples ?? [],
          referenceSamples: collected[k]?.referenceSamples ?? [],
          budgetRatio: op.budgetRatio,
        };
      for (const [name, op] of Object.entries(workload.memory ?? {})) {
        for (let i = 0; i < warmup; i++) {
          op.subject();
          op.reference();
        }
        const samples: number[] = [];
        const referenceSamples: number[] = [];
        for (let i = 0; i < measured; i++) {
          samples.push(op.subject());
          referenceSamples.push(op.reference());
        }
        memorySampled[name] = {
          samples,
          referenceSamples,
          files: op.files,
          budgetRatio: op.budgetRatio,
        };
      }
    } finally {
      workload.cleanup?.();
    }
  } else throw new Error(`profile ${profile.id} has no workload`);
  const operations: Record<string, PerfOperation> = {};
  for (const [name, op] of Object.entries(sampled)) operations[name] = operationBlock(op);
  let memory: Record<string, PerfMemoryOperation> | undefined;
  if (Object.keys(memorySampled).length > 0) {
    const floor = peakRssFloorBytes(ROOT);
    memory = {};
    for (const [name, op] of Object.entries(memorySampled)) memory[name] = memoryBlock(op, floor);
  }
  let agreement: PerfQualification["agreement"];
  if (profile.agreement !== undefined) {
    const { operation, paired, tolerance } = profile.agreement;
    const h = operations[operation];
    const p = operations[paired];
    if (h === undefined || p === undefined)
      throw new Error(`profile ${profile.id}: agreement names a missing operation`);
    agreement = agreementBlock(operation, paired, h, p, tolerance);
  }
  const counts = [
    ...Object.values(operations).map((o) => o.samples),
    ...Object.values(memory ?? {}).map((o) => o.samples),
  ];
  const after = memoryStatus();
  const cpu = process.cpuUsage(cpu0);
  const children1 = childrenCpuMs();
  const report: PerfQualification = {
    schema: "turngate.perf_qualification.v1",
    profile: profile.id,
    description: profile.description,
    reference: profile.reference,
    mode: quick ? "quick" : "full",
    build: { node_conditions: process.execArgv.join(" "), package_versions: versions() },
    started_at: started.toISOString(),
    duration_ms: performance.now() - t0,
    machine: machineInfo(ROOT),
    parameters: profile.parameters,
    warmup_samples: warmup,
    measured_samples: Math.min(...counts),
    operations,
    ...(memory === undefined ? {} : { memory }),
    ...(agreement === undefined ? {} : { agreement }),
    resources: {
      scope: profile.scope,
      rss_before_bytes: before.rss,
      rss_peak_bytes: after.peak,
      rss_after_bytes: after.rss,
      cpu_user_ms: cpu.user / 1000,
      cpu_system_ms: cpu.system / 1000,
      cpu_children_ms: children0 === null || children1 === null ? null : children1 - children0,
      read_bytes: readBytes(),
    },
    passed:
      Object.values(operations).every((o) => o.passed) &&
      Object.values(memory ?? {}).every((o) => o.passed) &&
      (agreement?.within ?? true),
  };
  return PerfQualificationSchema.parse(report);
}

async function main(): Promise<void> {
  const [id, ...rest] = process.argv.slice(2);
  const quick = rest.includes("--quick");
  const extraAt = rest.indexOf("--extra-profiles");
  const profiles = [...PROFILES];
  if (extraAt >= 0) {
    const mod = await import(pathToFileURL(resolve(rest[extraAt + 1] as string)).href);
    profiles.push(...(mod.PROFILES as Profile[]));
  }
  const profile = profiles.find((p) => p.id === id);
  if (profile === undefined) throw new Error(`unknown profile ${id}`);
  const report = await runProfile(profile, quick);
  process.stdout.write(`\n${JSON.stringify(report)}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    // The message on the last line too: pnpm qualify shows the last lines of stderr, and
    // a stack's last lines are frames (a failed verify's output is in the message).
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message.replace(/\s+/g, " ").slice(0, 2000)}\n`);
    process.exit(1);
  });
}
