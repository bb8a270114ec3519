/**
 * The referee of the matrix: judges every runtime's answers against the vectors and against
 * each other (docs/design.md §2 "one conformance referee"). A (runtime, case) pair passes when the
 * runtime answered, the answer meets the vector (exact result, or error code and path) and
 * it equals the first runtime's answer. A runtime that could not run fails every case.
 */
import { jsonEqual } from "./json-equal.js";
import type { CaseResult, RuntimeResults } from "./results.js";
import type { VectorCase, VectorGroup } from "./vectors.js";

/** One runtime's run: its results, or why there are none. */
export interface RuntimeRun {
  name: string;
  results?: RuntimeResults;
  error?: string;
}

/** Pass/fail counts (one per case). */
export interface Counts {
  passed: number;
  failed: number;
}

/** One failed (runtime, case) pair and why. */
export interface Failure {
  runtime: string;
  group: string;
  id: string;
  reason: string;
}

/** The whole verdict; `passed`/`failed` count one per case per runtime. */
export interface MatrixReport extends Counts {
  runtimes: Array<{ name: string; error?: string } & Counts>;
  groups: Record<string, Record<string, Counts>>;
  failures: Failure[];
}

const short = (value: unknown): string => {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

function outcome(r: CaseResult): unknown {
  return "actual" in r
    ? { actual: r.actual }
    : { error_code: r.error_code, error_path: r.error_path ?? null };
}

/** Why `r` does not meet `c`, or null when it does. */
export function expectationProblem(c: VectorCase, r: CaseResult | undefined): string | null {
  if (!r) return "no result for this case";
  if (c.error_code !== undefined) {
    if ("actual" in r) return `expected error ${c.error_code}, got result ${short(r.actual)}`;
    if (r.error_code !== c.error_code) return `expected error ${c.error_code}, got ${r.error_code}`;
    if (c.error_path !== undefined && r.error_path !== c.error_path) {
      return `expected error path ${short(c.error_path)}, got ${short(r.error_path ?? null)}`;
    }
    return null;
  }
  if (!("actual" in r))
    return `expected ${short(c.expect)}, got error ${r.error_code} at ${short(r.error_path ?? null)}`;
  return jsonEqual(r.actual, c.expect)
    ? null
    : `expected ${short(c.expect)}, got ${short(r.actual)}`;
}

/** Judges all runs against all vector groups. */
export function judge(vectors: VectorGroup[], runs: RuntimeRun[]): MatrixReport {
  const index = runs.map((run) => {
    const byKey = new Map<string, CaseResult>();
    for (const c of run.results?.cases ?? []) byKey.set(`${c.group}\u0000${c.id}`, c);
    return byKey;
  });
  const report: MatrixReport = { passed: 0, failed: 0, runtimes: [], groups: {}, failures: [] };
  const perRuntime = runs.map((run) => ({
    name: run.name,
    passed: 0,
    failed: 0,
    ...(run.error ? { error: run.error } : {}),
  }));
  for (const { group, cases } of vectors) {
    const cells: Record<string, Counts> = {};
    for (const run of runs) cells[run.name] = { passed: 0, failed: 0 };
    for (const c of cases) {
      const key = `${group}\u0000${c.id}`;
      const reference = index.map((m) => m.get(key)).find((r) => r !== undefined);
      runs.forEach((run, i) => {
        const r = index[i]?.get(key);
        let reason = run.error ? `runtime could not run: ${run.error}` : expectationProblem(c, r);
        if (reason === null && r && reference && !jsonEqual(outcome(r), outcome(reference))) {
          reason = `differs from the first runtime: ${short(outcome(r))} vs ${short(outcome(reference))}`;
        }
        const cell = cells[run.name] as Counts;
        const total = perRuntime[i] as Counts;
        if (reason === null) {
          cell.passed++;
          total.passed++;
          report.passed++;
        } else {
          cell.failed++;
          total.failed++;
          report.failed++;
          report.failures.push({ runtime: run.name, group, id: c.id, reason });
        }
      });
    }
    report.groups[group] = cells;
  }
  report.runtimes = perRuntime;
  return report;
}

/** The matrix as text: one row per group, one column per runtime, "passed/total" cells. */
export function renderMatrix(report: MatrixReport): string {
  const names = report.runtimes.map((r) => r.name);
  const cell = (c: Counts | undefined) =>
    c ? `${c.passed}/${c.passed + c.failed}${c.failed > 0 ? " ✗" : ""}` : "-";
  const rows: string[][] = [["group", ...names]];
  for (const [group, cells] of Object.entries(report.groups)) {
    rows.push([group, ...names.map((n) => cell(cells[n]))]);
  }
  rows.push(["total", ...report.runtimes.map((r) => cell(r))]);
  const widths =
    rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length))) ?? [];
  const lines = rows.map((row) =>
    row
      .map((text, i) => text.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd(),
  );
  for (const r of report.runtimes) if (r.error) lines.push(`${r.name}: could not run: ${r.error}`);
  const shown = report.failures.filter((f) => !f.reason.startsWith("runtime could not run"));
  for (const f of shown.slice(0, 50))
    lines.push(`FAIL ${f.runtime} ${f.group}/${f.id}: ${f.reason}`);
  if (shown.length > 50) lines.push(`… and ${shown.length - 50} more failures`);
  lines.push(`test matrix: ${report.passed} passed, ${report.failed} failed`);
  return lines.join("\n");
}
