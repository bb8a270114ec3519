/**
 * Release performance qualification (issue #18): runs every profile of
 * scripts/qualify/profiles.ts, each in its own Node process, and writes one
 * `turngate.perf_qualification.v1` report per profile to results/perf/<profile>.json, plus
 * results/perf/summary.json and results/perf/bmf.json (Bencher Metric Format); prints a
 * table; exits 1 when a profile misses its budget (full runs), errors, or — with
 * `--compare DIR` — a ratio got worse than the baseline's by more than `--tolerance`, or a
 * baseline report there did not pass (results/perf/baseline/ holds only passing reports; a
 * run with `--out` there stores only passing full reports and exits 1 for the rest).
 *
 *   pnpm qualify [--profile ID]... [--quick | --release] [--json]
 *                [--compare results/perf/baseline/] [--tolerance 0.5] [--max-seconds N] [--out DIR]
 *
 * `--quick`: fewer samples (CI smoke); budgets are reported, not enforced (the numbers are
 * noisy there). `--release`: full runs of the profiles that carry issue 33's end-to-end
 * targets (a profile's `release`), every miss printed with its ratio and budget, exit 1 on
 * any. Memory profiles (`memory-*`) report peak RSS in bytes in a report's `memory`, apart
 * from the time `operations`. `--max-seconds N`: only the profiles whose quick runs fit in N seconds in
 * all, in order. `--extra-profiles MODULE` adds the profiles a module exports (tests).
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  type PerfQualification,
  PerfQualificationSchema,
  type PerfSummary,
  PerfSummarySchema,
} from "../packages/core/src/schemas/perf-qualification.js";
import {
  budgetMisses,
  exitStatus,
  isBaselineDir,
  parseQualifyArgs,
  type QualifyOptions,
  QualifyUsageError,
  selectProfiles,
} from "./qualify/args.js";
import { machineInfo } from "./qualify/measure.js";
import { PROFILES, type Profile } from "./qualify/profiles.js";
import { bencherMetrics, compareWithBaseline } from "./qualify/report-files.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const log = (line: string) => process.stderr.write(`${line}\n`);
let opts: QualifyOptions;
try {
  opts = parseQualifyArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof QualifyUsageError)) throw error;
  log(`qualify: ${error.message}`);
  process.exit(2);
}
if (opts.help) {
  process.stdout.write(
    "pnpm qualify [--profile ID]... [--quick | --release] [--json] [--compare DIR] [--tolerance 0.5] [--max-seconds N] [--out DIR]\n",
  );
  process.exit(0);
}
const quick = opts.quick;
const tolerance = opts.tolerance;
const outDir = resolve(opts.out ?? join(ROOT, "results", "perf"));
// results/perf/baseline/ holds only passing reports: a run writing there keeps out the rest.
const baselineOut = isBaselineDir(outDir, ROOT);

const profiles: Profile[] = [...PROFILES];
if (opts.extraProfiles !== undefined) {
  const mod = await import(pathToFileURL(resolve(opts.extraProfiles)).href);
  profiles.push(...(mod.PROFILES as Profile[]));
}
let selected: Profile[];
try {
  selected = selectProfiles(profiles, opts);
} catch (error) {
  if (!(error instanceof QualifyUsageError)) throw error;
  log(`qualify: ${error.message}`);
  process.exit(2);
}

/** Runs one profile in a child process; its report is the last line of its stdout. */
function runChild(profile: Profile): Promise<PerfQualification> {
  const args = [
    "--expose-gc",
    "--import",
    "tsx",
    join(ROOT, "scripts", "qualify", "run-profile.ts"),
    profile.id,
  ];
  if (quick) args.push("--quick");
  if (opts.extraProfiles !== undefined) args.push("--extra-profiles", resolve(opts.extraProfiles));
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code !== 0) {
        reject(
          new Error(`exited ${code ?? signal}: ${stderr.trim().split("\n").slice(-5).join(" | ")}`),
        );
        return;
      }
      try {
        const last = stdout.trim().split("\n").at(-1) ?? "";
        resolveRun(PerfQualificationSchema.parse(JSON.parse(last)));
      } catch (error) {
        reject(new Error(`printed no valid report: ${(error as Error).message}`));
      }
    });
  });
}

const started = new Date();
const t0 = performance.now();
mkdirSync(outDir, { recursive: true });
const reports: PerfQualification[] = [];
const entries: PerfSummary["profiles"] = [];
const notStored: string[] = [];
for (const profile of selected) {
  if (profile.skipped !== undefined) {
    entries.push({
      profile: profile.id,
      status: "skipped",
      report: null,
      reason: profile.skipped,
      operations: {},
    });
    log(`[qualify] ${profile.id}: skipped — ${profile.skipped}`);
    continue;
  }
  log(`[qualify] ${profile.id}: running${quick ? " (quick)" : ""} — ${profile.description}`);
  try {
    const report = await runChild(profile);
    const file = join(outDir, `${profile.id}.json`);
    if (baselineOut && !(report.passed && report.mode === "full")) notStored.push(profile.id);
    else writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    reports.push(report);
    const operations: PerfSummary["profiles"][number]["operations"] = {};
    for (const [name, op] of Object.entries(report.operations)) {
      operations[name] = {
        ratio_p50: op.ratio_p50,
        budget_ratio: op.budget_ratio,
        passed: op.passed,
      };
    }
    const memory: NonNullable<PerfSummary["profiles"][number]["memory"]> = {};
    for (const [name, op] of Object.entries(report.memory ?? {}))
      memory[name] = {
        peak_rss_p50_bytes: op.peak_rss_p50_bytes,
        ratio_p50: op.ratio_p50,
        budget_ratio: op.budget_ratio,
        passed: op.passed,
      };
    entries.push({
      profile: profile.id,
      status: report.passed ? "passed" : "failed",
      report: notStored.includes(profile.id) ? null : relative(ROOT, file),
      reason: report.passed
        ? null
        : `ratio over budget: ${[
            ...Object.entries(report.operations)
              .filter(([, o]) => !o.passed)
              .map(([n, o]) => `${n} ${o.ratio_p50.toFixed(2)}× > ${o.budget_ratio}×`),
            ...Object.entries(report.memory ?? {})
              .filter(([, o]) => !o.passed)
              .map(([n, o]) => `${n} peak RSS ${o.ratio_p50.toFixed(2)}× > ${o.budget_ratio}×`),
          ].join(", ")}`,
      operations,
      ...(report.memory === undefined ? {} : { memory }),
    });
  } catch (error) {
    entries.push({
      profile: profile.id,
      status: "error",
      report: null,
      reason: (error as Error).message,
      operations: {},
    });
    log(`[qualify] ${profile.id}: error — ${(error as Error).message}`);
  }
}

let comparison: PerfSummary["comparison"] = null;
if (opts.compare !== undefined) {
  const { regressions, refused } = compareWithBaseline(reports, resolve(opts.compare), tolerance);
  comparison = {
    baseline: resolve(opts.compare),
    tolerance,
    regressions: regressions.map(
      (r) =>
        `${r.profile}/${r.operation}: ${r.measure === "peak_rss" ? "peak RSS " : ""}ratio ${r.ratio_p50.toFixed(2)}× vs baseline ${r.baseline_ratio_p50.toFixed(2)}× (more than ${Math.round(tolerance * 100)}% worse)`,
    ),
    refused: refused.map((f) => relative(ROOT, f)),
    passed: regressions.length === 0 && refused.length === 0,
  };
}
const budgetsFailed = entries.filter((e) => e.status === "failed");
const errored = entries.filter((e) => e.status === "error");
const misses = budgetMisses(reports);
const passed =
  exitStatus({
    quick,
    errors: errored.length,
    misses: misses.length,
    comparisonPassed: comparison?.passed ?? null,
  }) === 0 && notStored.length === 0;
const summary: PerfSummary = PerfSummarySchema.parse({
  schema: "turngate.perf_summary.v1",
  mode: quick ? "quick" : "full",
  ...(opts.release ? { release: true } : {}),
  started_at: started.toISOString(),
  duration_ms: performance.now() - t0,
  machine: machineInfo(ROOT),
  profiles: entries,
  comparison,
  passed,
});
writeFileSync(join(outDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
writeFileSync(join(outDir, "bmf.json"), `${JSON.stringify(bencherMetrics(reports), null, 2)}\n`);

if (opts.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
else {
  const rows: string[][] = [
    [
      "profile",
      "operation",
      "p50 ms",
      "p95 ms",
      "max ms",
      "ref p50 ms",
      "ratio p50",
      "budget",
      "result",
    ],
  ];
  for (const e of entries) {
    const report = reports.find((r) => r.profile === e.profile);
    if (report === undefined) {
      rows.push([e.profile, "-", "", "", "", "", "", "", `${e.status}: ${e.reason ?? ""}`]);
      continue;
    }
    for (const [name, op] of Object.entries(report.operations)) {
      rows.push([
        e.profile,
        name,
        op.p50_ms.toFixed(3),
        op.p95_ms.toFixed(3),
        op.max_ms.toFixed(3),
        op.reference_p50_ms.toFixed(3),
        `${op.ratio_p50.toFixed(2)}×`,
        `≤ ${op.budget_ratio}×`,
        op.passed
          ? "pass"
          : quick
            ? "over budget (quick: reported, not enforced)"
            : "FAIL: over budget",
      ]);
    }
  }
  // Memory operations in their own table: bytes, not ms.
  const memRows: string[][] = [
    [
      "profile",
      "memory operation",
      "files",
      "peak RSS p50",
      "per file",
      "ref peak p50",
      "ref per file",
      "ratio p50",
      "budget",
      "result",
    ],
  ];
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  for (const report of reports)
    for (const [name, op] of Object.entries(report.memory ?? {}))
      memRows.push([
        report.profile,
        name,
        String(op.files),
        mb(op.peak_rss_p50_bytes),
        `${op.peak_rss_per_file_bytes.toFixed(0)} B`,
        mb(op.reference_peak_rss_p50_bytes),
        `${op.reference_peak_rss_per_file_bytes.toFixed(0)} B`,
        `${op.ratio_p50.toFixed(2)}×`,
        op.budget_ratio === null ? "none" : `≤ ${op.budget_ratio}×`,
        op.budget_ratio === null ? "reported" : op.passed ? "pass" : "over budget",
      ]);
  const print = (table: string[][]) => {
    const widths =
      table[0]?.map((_, i) => Math.max(...table.map((r) => (r[i] ?? "").length))) ?? [];
    for (const r of table)
      process.stdout.write(
        `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ")}\n`,
      );
  };
  if (rows.length > 1 || memRows.length === 1) print(rows);
  if (memRows.length > 1) print(memRows);
  for (const r of reports)
    if (r.agreement !== undefined)
      process.stdout.write(
        `harness check ${r.profile}: ${r.agreement.operation} ratio / ${r.agreement.paired_operation} ratio = ${r.agreement.ratio.toFixed(2)} (${r.agreement.within ? "agree" : "DISAGREE"} within ${Math.round(r.agreement.tolerance * 100)}%)\n`,
      );
  for (const line of comparison?.regressions ?? []) process.stdout.write(`regression: ${line}\n`);
  for (const file of comparison?.refused ?? [])
    process.stdout.write(`baseline refused: ${file} did not pass its budgets\n`);
  process.stdout.write(
    `qualify ${quick ? "--quick " : opts.release ? "--release " : ""}: ${entries.filter((e) => e.status === "passed").length} passed, ${budgetsFailed.length} over budget, ${errored.length} errors, ${entries.filter((e) => e.status === "skipped").length} skipped${comparison === null ? "" : `, ${comparison.regressions.length} regressions against ${opts.compare}`} — reports in ${outDir}\n`,
  );
}
if (!passed) {
  for (const e of [...budgetsFailed, ...errored])
    if (!(quick && e.status === "failed")) log(`qualify: ${e.profile} ${e.status}: ${e.reason}`);
}
if (opts.release) for (const line of misses) log(`qualify --release: missed ${line}`);
for (const id of notStored)
  log(
    `qualify: ${id} not stored in ${relative(ROOT, outDir)}: it did not pass its budgets in a full run, and the baseline folder holds only passing full reports`,
  );
process.exit(passed ? 0 : 1);
