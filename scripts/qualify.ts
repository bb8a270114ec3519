/**
 * Release performance qualification (issue #18): runs every profile of
 * scripts/qualify/profiles.ts, each in its own Node process, and writes one
 * `turngate.perf_qualification.v1` report per profile to results/perf/<profile>.json, plus
 * results/perf/summary.json and results/perf/bmf.json (Bencher Metric Format); prints a
 * table; exits 1 when a profile misses its budget (full runs), errors, or — with
 * `--compare DIR` — a ratio got worse than the baseline's by more than `--tolerance`.
 *
 *   pnpm qualify [--profile ID]... [--quick] [--json] [--compare results/perf/baseline/]
 *                [--tolerance 0.5] [--max-seconds N] [--out DIR]
 *
 * `--quick`: fewer samples (CI smoke); budgets are reported, not enforced (the numbers are
 * noisy there). `--max-seconds N`: only the profiles whose quick runs fit in N seconds in
 * all, in order. `--extra-profiles MODULE` adds the profiles a module exports (tests).
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  type PerfQualification,
  PerfQualificationSchema,
  type PerfSummary,
  PerfSummarySchema,
} from "../packages/core/src/schemas/perf-qualification.js";
import { machineInfo } from "./qualify/measure.js";
import { PROFILES, type Profile } from "./qualify/profiles.js";
import { bencherMetrics, compareWithBaseline } from "./qualify/report-files.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({
  options: {
    profile: { type: "string", multiple: true },
    quick: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
    compare: { type: "string" },
    tolerance: { type: "string", default: "0.5" },
    "max-seconds": { type: "string" },
    out: { type: "string" },
    "extra-profiles": { type: "string" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) {
  process.stdout.write(
    "pnpm qualify [--profile ID]... [--quick] [--json] [--compare DIR] [--tolerance 0.5] [--max-seconds N] [--out DIR]\n",
  );
  process.exit(0);
}
const log = (line: string) => process.stderr.write(`${line}\n`);
const quick = values.quick === true;
const tolerance = Number(values.tolerance);
if (!Number.isFinite(tolerance) || tolerance < 0) {
  log(
    `qualify: --tolerance must be a number ≥ 0 (a fraction: 0.5 = 50% worse), got ${values.tolerance}`,
  );
  process.exit(2);
}
const outDir = resolve(values.out ?? join(ROOT, "results", "perf"));

const profiles: Profile[] = [...PROFILES];
if (values["extra-profiles"] !== undefined) {
  const mod = await import(pathToFileURL(resolve(values["extra-profiles"])).href);
  profiles.push(...(mod.PROFILES as Profile[]));
}
let selected = profiles;
if (values.profile !== undefined) {
  const unknown = values.profile.filter((id) => !profiles.some((p) => p.id === id));
  if (unknown.length > 0) {
    log(
      `qualify: unknown profile ${unknown.join(", ")}; profiles: ${profiles.map((p) => p.id).join(", ")}`,
    );
    process.exit(2);
  }
  selected = profiles.filter((p) => values.profile?.includes(p.id));
}
if (values["max-seconds"] !== undefined) {
  const budget = Number(values["max-seconds"]);
  let used = 0;
  selected = selected.filter((p) => {
    if (p.skipped !== undefined) return true;
    if (used + p.quickSeconds > budget) return false;
    used += p.quickSeconds;
    return true;
  });
}

/** Runs one profile in a child process; its report is the last line of its stdout. */
function runChild(profile: Profile): Promise<PerfQualification> {
  const args = ["--import", "tsx", join(ROOT, "scripts", "qualify", "run-profile.ts"), profile.id];
  if (quick) args.push("--quick");
  if (values["extra-profiles"] !== undefined)
    args.push("--extra-profiles", resolve(values["extra-profiles"]));
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
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    reports.push(report);
    const operations: PerfSummary["profiles"][number]["operations"] = {};
    for (const [name, op] of Object.entries(report.operations)) {
      operations[name] = {
        ratio_p50: op.ratio_p50,
        budget_ratio: op.budget_ratio,
        passed: op.passed,
      };
    }
    entries.push({
      profile: profile.id,
      status: report.passed ? "passed" : "failed",
      report: relative(ROOT, file),
      reason: report.passed
        ? null
        : `ratio over budget: ${Object.entries(report.operations)
            .filter(([, o]) => !o.passed)
            .map(([n, o]) => `${n} ${o.ratio_p50.toFixed(2)}× > ${o.budget_ratio}×`)
            .join(", ")}`,
      operations,
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
if (values.compare !== undefined) {
  const { regressions } = compareWithBaseline(reports, resolve(values.compare), tolerance);
  comparison = {
    baseline: resolve(values.compare),
    tolerance,
    regressions: regressions.map(
      (r) =>
        `${r.profile}/${r.operation}: ratio ${r.ratio_p50.toFixed(2)}× vs baseline ${r.baseline_ratio_p50.toFixed(2)}× (more than ${Math.round(tolerance * 100)}% worse)`,
    ),
    passed: regressions.length === 0,
  };
}
const budgetsFailed = entries.filter((e) => e.status === "failed");
const errored = entries.filter((e) => e.status === "error");
const passed =
  errored.length === 0 && (quick || budgetsFailed.length === 0) && (comparison?.passed ?? true);
const summary: PerfSummary = PerfSummarySchema.parse({
  schema: "turngate.perf_summary.v1",
  mode: quick ? "quick" : "full",
  started_at: started.toISOString(),
  duration_ms: performance.now() - t0,
  machine: machineInfo(ROOT),
  profiles: entries,
  comparison,
  passed,
});
writeFileSync(join(outDir, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
writeFileSync(join(outDir, "bmf.json"), `${JSON.stringify(bencherMetrics(reports), null, 2)}\n`);

if (values.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
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
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  for (const r of rows)
    process.stdout.write(
      `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ")}\n`,
    );
  for (const line of comparison?.regressions ?? []) process.stdout.write(`regression: ${line}\n`);
  process.stdout.write(
    `qualify ${quick ? "--quick " : ""}: ${entries.filter((e) => e.status === "passed").length} passed, ${budgetsFailed.length} over budget, ${errored.length} errors, ${entries.filter((e) => e.status === "skipped").length} skipped${comparison === null ? "" : `, ${comparison.regressions.length} regressions against ${values.compare}`} — reports in ${outDir}\n`,
  );
}
if (!passed) {
  for (const e of [...budgetsFailed, ...errored])
    if (!(quick && e.status === "failed")) log(`qualify: ${e.profile} ${e.status}: ${e.reason}`);
}
process.exit(passed ? 0 : 1);
