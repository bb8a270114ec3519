/**
 * What `pnpm qualify` writes besides the reports: Bencher Metric Format (bmf.json) and the
 * regression check against a committed baseline (issue #18 items 3, 4).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PerfQualification } from "../../packages/core/src/schemas/perf-qualification.js";
import { PerfQualificationSchema } from "../../packages/core/src/schemas/perf-qualification.js";

/**
 * Bencher Metric Format (https://bencher.dev/docs/reference/bencher-metric-format/):
 * `{"<profile>/<operation>": {"latency": {value, upper_value} in ns (p50, p95), "ratio":
 * {value: ratio_p50, upper_value: ratio_p95}}}` — latency is Bencher's built-in measure,
 * ratio a custom one. Memory operations (`memory` of a report) go in as their own custom
 * measures, never as latency: `{"peak-rss": {value: p50 bytes, upper_value: max bytes},
 * "peak-rss-ratio": {value: ratio_p50}}` under `<profile>/<operation>`.
 */
export function bencherMetrics(reports: readonly PerfQualification[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of reports) {
    for (const [name, op] of Object.entries(r.operations)) {
      out[`${r.profile}/${name}`] = {
        latency: { value: op.p50_ms * 1e6, upper_value: op.p95_ms * 1e6 },
        ratio: { value: op.ratio_p50, upper_value: op.ratio_p95 },
      };
    }
    for (const [name, op] of Object.entries(r.memory ?? {})) {
      const key = `${r.profile}/${name}`;
      out[key] = {
        ...(out[key] as Record<string, unknown> | undefined),
        "peak-rss": { value: op.peak_rss_p50_bytes, upper_value: op.peak_rss_max_bytes },
        "peak-rss-ratio": { value: op.ratio_p50 },
      };
    }
  }
  return out;
}

/** One operation whose ratio got worse than the baseline's by more than the tolerance. */
export interface Regression {
  profile: string;
  operation: string;
  /** `time`: an operation's ms ratio; `peak_rss`: a memory operation's peak-RSS ratio. */
  measure: "time" | "peak_rss";
  baseline_ratio_p50: number;
  ratio_p50: number;
}

/**
 * Compares every report's `ratio_p50` per operation — time and memory apart, each with its
 * own kind in the baseline — with `<baselineDir>/<profile>.json`: a regression is
 * `ratio_p50 > baseline × (1 + tolerance)`. A profile or operation missing from the
 * baseline is not compared. A baseline report that did not pass its budgets is no baseline:
 * it is not compared against and its file is listed in `refused` (the caller fails the
 * comparison). Throws when a baseline file is not a valid report.
 */
export function compareWithBaseline(
  reports: readonly PerfQualification[],
  baselineDir: string,
  tolerance: number,
): { compared: number; regressions: Regression[]; refused: string[] } {
  const regressions: Regression[] = [];
  const refused: string[] = [];
  let compared = 0;
  for (const r of reports) {
    const file = join(baselineDir, `${r.profile}.json`);
    if (!existsSync(file)) continue;
    const base = PerfQualificationSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    if (!base.passed) {
      refused.push(file);
      continue;
    }
    const pairs: [Regression["measure"], string, number, number | undefined][] = [
      ...Object.entries(r.operations).map(
        ([name, op]) =>
          ["time", name, op.ratio_p50, base.operations[name]?.ratio_p50] as [
            Regression["measure"],
            string,
            number,
            number | undefined,
          ],
      ),
      ...Object.entries(r.memory ?? {}).map(
        ([name, op]) =>
          ["peak_rss", name, op.ratio_p50, base.memory?.[name]?.ratio_p50] as [
            Regression["measure"],
            string,
            number,
            number | undefined,
          ],
      ),
    ];
    for (const [measure, name, now, was] of pairs) {
      if (was === undefined) continue;
      compared++;
      if (now > was * (1 + tolerance))
        regressions.push({
          profile: r.profile,
          operation: name,
          measure,
          baseline_ratio_p50: was,
          ratio_p50: now,
        });
    }
  }
  return { compared, regressions, refused };
}
