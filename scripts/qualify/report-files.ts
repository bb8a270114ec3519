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
 * ratio a custom one.
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
  }
  return out;
}

/** One operation whose ratio got worse than the baseline's by more than the tolerance. */
export interface Regression {
  profile: string;
  operation: string;
  baseline_ratio_p50: number;
  ratio_p50: number;
}

/**
 * Compares every report's `ratio_p50` per operation with `<baselineDir>/<profile>.json`:
 * a regression is `ratio_p50 > baseline × (1 + tolerance)`. A profile or operation missing
 * from the baseline is not compared. Throws when a baseline file is not a valid report.
 */
export function compareWithBaseline(
  reports: readonly PerfQualification[],
  baselineDir: string,
  tolerance: number,
): { compared: number; regressions: Regression[] } {
  const regressions: Regression[] = [];
  let compared = 0;
  for (const r of reports) {
    const file = join(baselineDir, `${r.profile}.json`);
    if (!existsSync(file)) continue;
    const base = PerfQualificationSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    for (const [name, op] of Object.entries(r.operations)) {
      const was = base.operations[name];
      if (was === undefined) continue;
      compared++;
      if (op.ratio_p50 > was.ratio_p50 * (1 + tolerance)) {
        regressions.push({
          profile: r.profile,
          operation: name,
          baseline_ratio_p50: was.ratio_p50,
          ratio_p50: op.ratio_p50,
        });
      }
    }
  }
  return { compared, regressions };
}
