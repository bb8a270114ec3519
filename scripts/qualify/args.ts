/**
 * The pure parts of `pnpm qualify` (scripts/qualify.ts): its command line, which profiles a
 * run selects, the misses a `--release` run prints and its exit status, and the guard that
 * keeps failing reports out of the committed baseline folder.
 */
import { isAbsolute, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { PerfQualification } from "../../packages/core/src/schemas/perf-qualification.js";
import type { Profile } from "./profiles.js";

/** `pnpm qualify`'s options, parsed and checked. */
export interface QualifyOptions {
  profiles: string[] | undefined;
  quick: boolean;
  release: boolean;
  json: boolean;
  compare: string | undefined;
  /** Fraction (0.5 = 50% worse), ≥ 0. */
  tolerance: number;
  /** Seconds of quick runs to select, or undefined: no limit. */
  maxSeconds: number | undefined;
  out: string | undefined;
  extraProfiles: string | undefined;
  help: boolean;
}

/** A bad command line: the message says what and why; qualify exits 2 with it. */
export class QualifyUsageError extends Error {}

/**
 * Parses `pnpm qualify`'s arguments (`argv` without node and the script). Throws
 * {@link QualifyUsageError} on an unknown option, a `--tolerance` that is not a number ≥ 0,
 * a `--max-seconds` that is not a number > 0, or `--release` with `--quick` (a release run
 * enforces the budgets, so it takes the full sample counts).
 */
export function parseQualifyArgs(argv: readonly string[]): QualifyOptions {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new QualifyUsageError((error as Error).message);
  }
  const tolerance = Number(values.tolerance);
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new QualifyUsageError(
      `--tolerance must be a number ≥ 0 (a fraction: 0.5 = 50% worse), got ${values.tolerance}`,
    );
  let maxSeconds: number | undefined;
  if (values["max-seconds"] !== undefined) {
    maxSeconds = Number(values["max-seconds"]);
    if (!Number.isFinite(maxSeconds) || maxSeconds <= 0)
      throw new QualifyUsageError(
        `--max-seconds must be a number > 0, got ${values["max-seconds"]}`,
      );
  }
  if (values.release === true && values.quick === true)
    throw new QualifyUsageError(
      "--release enforces the budgets on full runs; it cannot be combined with --quick",
    );
  return {
    profiles: values.profile,
    quick: values.quick === true,
    release: values.release === true,
    json: values.json === true,
    compare: values.compare,
    tolerance,
    maxSeconds,
    out: values.out,
    extraProfiles: values["extra-profiles"],
    help: values.help === true,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    options: {
      profile: { type: "string", multiple: true },
      quick: { type: "boolean", default: false },
      release: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
      compare: { type: "string" },
      tolerance: { type: "string", default: "0.5" },
      "max-seconds": { type: "string" },
      out: { type: "string" },
      "extra-profiles": { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
}

/**
 * The profiles a run selects, in declaration order: `--release` keeps those with a `release`
 * target; `--profile` keeps the named ones (with `--release`, the named ones must carry a
 * target); `maxSeconds` then keeps, in order, those whose quick runs fit in it in all
 * (skipped profiles always stay: they cost nothing and are reported). Throws
 * {@link QualifyUsageError} naming an unknown profile, or a `--release` profile without a
 * target.
 */
export function selectProfiles(profiles: readonly Profile[], opts: QualifyOptions): Profile[] {
  let selected = [...profiles];
  if (opts.profiles !== undefined) {
    const unknown = opts.profiles.filter((id) => !profiles.some((p) => p.id === id));
    if (unknown.length > 0)
      throw new QualifyUsageError(
        `unknown profile ${unknown.join(", ")}; profiles: ${profiles.map((p) => p.id).join(", ")}`,
      );
    selected = selected.filter((p) => opts.profiles?.includes(p.id));
  }
  if (opts.release) {
    const without = selected.filter((p) => p.release === undefined);
    if (opts.profiles !== undefined && without.length > 0)
      throw new QualifyUsageError(
        `--release: ${without.map((p) => p.id).join(", ")} carries no release target; release profiles: ${profiles
          .filter((p) => p.release !== undefined)
          .map((p) => p.id)
          .join(", ")}`,
      );
    selected = selected.filter((p) => p.release !== undefined);
  }
  if (opts.maxSeconds !== undefined) {
    const budget = opts.maxSeconds;
    let used = 0;
    selected = selected.filter((p) => {
      if (p.skipped !== undefined) return true;
      if (used + p.quickSeconds > budget) return false;
      used += p.quickSeconds;
      return true;
    });
  }
  return selected;
}

/**
 * Every operation (time and memory) of `reports` over its budget, one line each:
 * `<profile>/<operation>: <ratio>× > budget <budget>×` (ratios to 2 decimals; memory lines
 * say `peak RSS`; a harness check that disagrees is one line too). Memory operations
 * without a budget never miss.
 */
export function budgetMisses(reports: readonly PerfQualification[]): string[] {
  const lines: string[] = [];
  for (const r of reports) {
    for (const [name, op] of Object.entries(r.operations))
      if (!op.passed)
        lines.push(
          `${r.profile}/${name}: ${op.ratio_p50.toFixed(2)}× > budget ${op.budget_ratio}× (p50 ${op.p50_ms.toFixed(1)} ms vs reference ${op.reference_p50_ms.toFixed(1)} ms)`,
        );
    if (r.agreement !== undefined && !r.agreement.within)
      lines.push(
        `${r.profile}: harness ${r.agreement.operation} disagrees with ${r.agreement.paired_operation} (ratio of ratios ${r.agreement.ratio.toFixed(2)}, tolerance ${Math.round(r.agreement.tolerance * 100)}%)`,
      );
    for (const [name, op] of Object.entries(r.memory ?? {}))
      if (!op.passed)
        lines.push(
          `${r.profile}/${name}: peak RSS ${op.ratio_p50.toFixed(2)}× > budget ${op.budget_ratio}×`,
        );
  }
  return lines;
}

/**
 * The exit status of a run: 0 when every selected profile ran and — unless `quick` — none
 * missed a budget, and the comparison (if any) passed; else 1. `errors`: profiles that
 * errored; `misses`: {@link budgetMisses}' lines; `comparisonPassed`: null without
 * `--compare`.
 */
export function exitStatus(args: {
  quick: boolean;
  errors: number;
  misses: number;
  comparisonPassed: boolean | null;
}): 0 | 1 {
  if (args.errors > 0) return 1;
  if (!args.quick && args.misses > 0) return 1;
  if (args.comparisonPassed === false) return 1;
  return 0;
}

/**
 * Whether `outDir` is the committed baseline folder `<root>/results/perf/baseline` (or
 * inside it): a run writing there must store only passing reports.
 */
export function isBaselineDir(outDir: string, root: string): boolean {
  const rel = relative(resolve(root, "results", "perf", "baseline"), resolve(outDir));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
