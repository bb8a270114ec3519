/**
 * pnpm qualify (issue #18): the report schema, nearest-rank percentiles, machine and
 * resource fields, a profile over its budget failing the run by name, and --compare.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test, vi } from "vitest";
import {
  PerfQualificationSchema,
  PerfSummarySchema,
} from "../../packages/core/src/schemas/perf-qualification.js";
import { testTimeout } from "../../test-time.js";
import { perfProfileProblems } from "../capabilities/perf-profiles.js";
import { machineInfo, memoryStatus, percentile } from "../qualify/measure.js";
import { PROFILES, type Profile } from "../qualify/profiles.js";
import { bencherMetrics, compareWithBaseline } from "../qualify/report-files.js";
import { operationBlock } from "../qualify/run-profile.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(120_000), hookTimeout: testTimeout(120_000) });

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tmp = mkdtempSync(join(tmpdir(), "turngate-qualify-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("nearest-rank percentiles (A3S: index = ceil(n·p/100) − 1, clamped)", () => {
  test("n = 1, 2, 20, 100", () => {
    expect([50, 95, 100].map((p) => percentile([7], p))).toEqual([7, 7, 7]);
    expect([50, 95, 100].map((p) => percentile([9, 3], p))).toEqual([3, 9, 9]);
    // n = 20: p50 = the 10th sample, p95 = the 19th (A3S's example).
    expect([50, 95, 100].map((p) => percentile(range(20).reverse(), p))).toEqual([10, 19, 20]);
    expect([50, 95, 99, 100].map((p) => percentile(range(100), p))).toEqual([50, 95, 99, 100]);
    expect(() => percentile([], 50)).toThrow("percentile of no samples");
  });
});

function report(overrides: Record<string, unknown> = {}) {
  const op = operationBlock({ samples: [2, 2, 4], referenceSamples: [1, 1, 1], budgetRatio: 3 });
  return {
    schema: "turngate.perf_qualification.v1",
    profile: "fake-v1",
    description: "d",
    reference: "r",
    mode: "full",
    build: { node_conditions: "", package_versions: {} },
    started_at: "2026-01-01T00:00:00.000Z",
    duration_ms: 1,
    machine: machineInfo(ROOT),
    parameters: {},
    warmup_samples: 0,
    measured_samples: 3,
    operations: { op },
    resources: {
      scope: "harness",
      rss_before_bytes: 1,
      rss_peak_bytes: 2,
      rss_after_bytes: 1,
      cpu_user_ms: 0,
      cpu_system_ms: 0,
      cpu_children_ms: null,
      read_bytes: null,
    },
    passed: true,
    ...overrides,
  };
}

describe("report schema turngate.perf_qualification.v1", () => {
  test("an operation block: p50/p95/max, reference, ratios, budget", () => {
    expect(report().operations.op).toEqual({
      p50_ms: 2,
      p95_ms: 4,
      max_ms: 4,
      samples: 3,
      reference_p50_ms: 1,
      reference_p95_ms: 1,
      ratio_p50: 2,
      ratio_p95: 4,
      budget_ratio: 3,
      passed: true,
    });
    expect(PerfQualificationSchema.safeParse(report()).success).toBe(true);
  });

  test("malformed reports are rejected, naming the field", () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ schema: "turngate.perf_qualification.v2" }, "schema"],
      [{ profile: "no-version" }, "profile"],
      [{ passed: "yes" }, "passed"],
      [{ operations: { op: { p50_ms: -1 } } }, "operations.op.p50_ms"],
      [{ extra: 1 }, ""],
      [{ machine: { ...machineInfo(ROOT), logical_cpus: 0 } }, "machine.logical_cpus"],
    ];
    for (const [override, path] of bad) {
      const result = PerfQualificationSchema.safeParse(report(override));
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((i) => i.path.join("."))).toContain(path);
    }
  });

  test("the generated JSON Schema is committed next to the others", () => {
    const schema = JSON.parse(
      readFileSync(join(ROOT, "packages/core/schema/perf-qualification.json"), "utf8"),
    );
    expect(schema.properties.schema.const).toBe("turngate.perf_qualification.v1");
    expect(schema.required).toContain("resources");
  });
});

describe("machine and resources (Linux)", () => {
  test("machine info is present; RSS from /proc/self/status is non-zero", () => {
    const m = machineInfo(ROOT);
    expect(m.os).toBe("linux");
    expect(m.logical_cpus).toBeGreaterThan(0);
    expect(m.processor).not.toBe("");
    expect(m.memory_bytes).toBeGreaterThan(0);
    expect(m.node).toBe(process.version);
    expect(m.git_commit).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof m.git_dirty).toBe("boolean");
    const mem = memoryStatus();
    expect(mem.rss).toBeGreaterThan(1024 * 1024);
    expect(mem.peak).toBeGreaterThanOrEqual(mem.rss as number);
  });
});

const fakeProfiles = join(tmp, "fake-profiles.ts");
writeFileSync(
  fakeProfiles,
  `export const PROFILES = [
  { id: "fake-slow-v1", description: "a subject 4x its reference", reference: "a quarter of it", parameters: {},
    warmup: { full: 0, quick: 0 }, samples: { full: 3, quick: 3 }, quickSeconds: 1, scope: "harness",
    load: async () => ({ operations: { spin: { budgetRatio: 2, subject: () => 8, reference: () => 2 } } }) },
  { id: "fake-fast-v1", description: "a subject equal to its reference", reference: "itself", parameters: {},
    warmup: { full: 0, quick: 0 }, samples: { full: 3, quick: 3 }, quickSeconds: 1, scope: "harness",
    load: async () => ({ operations: { same: { budgetRatio: 2, subject: () => 1, reference: () => 1 } } }) },
];
`,
);
const qualify = (...args: string[]) =>
  spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      join(ROOT, "scripts/qualify.ts"),
      "--extra-profiles",
      fakeProfiles,
      ...args,
    ],
    { cwd: ROOT, encoding: "utf8", timeout: testTimeout(120_000) },
  );
const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("pnpm qualify", () => {
  test("a profile whose ratio exceeds its budget makes qualify exit 1 and names it", () => {
    const out = join(tmp, "over");
    const run = qualify("--profile", "fake-slow-v1", "--profile", "fake-fast-v1", "--out", out);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      "qualify: fake-slow-v1 failed: ratio over budget: spin 4.00× > 2×",
    );
    expect(run.stdout).toContain("fake-slow-v1  spin");
    const summary = PerfSummarySchema.parse(readJson(join(out, "summary.json")));
    expect(summary.profiles.map((p) => [p.profile, p.status])).toEqual([
      ["fake-slow-v1", "failed"],
      ["fake-fast-v1", "passed"],
    ]);
    expect(summary.passed).toBe(false);
    const slow = PerfQualificationSchema.parse(readJson(join(out, "fake-slow-v1.json")));
    expect(slow.operations.spin?.ratio_p50).toBe(4);
    expect(slow.passed).toBe(false);
    expect(slow.resources.rss_before_bytes).toBeGreaterThan(0);
    expect(slow.resources.rss_peak_bytes).toBeGreaterThan(0);
    expect(slow.resources.rss_after_bytes).toBeGreaterThan(0);
    const bmf = readJson(join(out, "bmf.json"));
    expect(bmf["fake-slow-v1/spin"]).toEqual({
      latency: { value: 8e6, upper_value: 8e6 },
      ratio: { value: 4, upper_value: 4 },
    });
    expect(bencherMetrics([slow])).toEqual({ "fake-slow-v1/spin": bmf["fake-slow-v1/spin"] });
  });

  test("--quick reports a missed budget without failing; a passing profile exits 0; an unknown one is named", () => {
    const quick = qualify("--profile", "fake-slow-v1", "--quick", "--out", join(tmp, "quick"));
    expect(quick.status).toBe(0);
    expect(quick.stdout).toContain("over budget (quick: reported, not enforced)");
    expect(readJson(join(tmp, "quick", "fake-slow-v1.json")).mode).toBe("quick");
    expect(qualify("--profile", "fake-fast-v1", "--out", join(tmp, "fast")).status).toBe(0);
    const unknown = qualify("--profile", "nope-v1");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("qualify: unknown profile nope-v1");
  });

  test("--compare fails on a synthetic worse baseline and passes on an equal one", () => {
    const out = join(tmp, "cmp");
    expect(qualify("--profile", "fake-fast-v1", "--out", out).status).toBe(0);
    const current = PerfQualificationSchema.parse(readJson(join(out, "fake-fast-v1.json")));
    const equal = join(tmp, "baseline-equal");
    mkdirSync(equal);
    writeFileSync(join(equal, "fake-fast-v1.json"), JSON.stringify(current));
    expect(compareWithBaseline([current], equal, 0.25)).toEqual({
      compared: 1,
      regressions: [],
      refused: [],
    });
    expect(qualify("--profile", "fake-fast-v1", "--out", out, "--compare", equal).status).toBe(0);
    // A baseline whose ratio was half today's: today's is 100% worse (> 25% tolerance).
    const better = join(tmp, "baseline-better");
    mkdirSync(better);
    const op = current.operations.same as NonNullable<(typeof current.operations)["same"]>;
    writeFileSync(
      join(better, "fake-fast-v1.json"),
      JSON.stringify({ ...current, operations: { same: { ...op, ratio_p50: 0.5 } } }),
    );
    const run = qualify(
      "--profile",
      "fake-fast-v1",
      "--out",
      out,
      "--compare",
      better,
      "--tolerance",
      "0.25",
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      "regression: fake-fast-v1/same: ratio 1.00× vs baseline 0.50× (more than 25% worse)",
    );
    const summary = PerfSummarySchema.parse(readJson(join(out, "summary.json")));
    expect(summary.comparison?.passed).toBe(false);
  });
});

describe("capability check: performance claims link to their profile", () => {
  test("an unknown or skipped profile is a problem; a full report that missed its budget is, a quick one is not", () => {
    const results = join(tmp, "cap-results");
    mkdirSync(join(results, "perf"), { recursive: true });
    expect(perfProfileProblems("Area", "bench `qualify:nope-v1`", results)).toEqual([
      "Area: qualify:nope-v1 is not a profile of scripts/qualify/profiles.ts",
    ]);
    const skipped = {
      ...(PROFILES[0] as Profile),
      id: "later-v1",
      skipped: "no workload yet",
    };
    expect(
      perfProfileProblems("Area", "`qualify:later-v1`", results, [...PROFILES, skipped]),
    ).toEqual([
      "Area: qualify:later-v1 is declared skipped (no workload yet); it proves nothing yet",
    ]);
    // No report yet: nothing to hold it to.
    expect(perfProfileProblems("Area", "`qualify:ladder-plan-10k-v1`", results)).toEqual([]);
    const file = join(results, "perf", "ladder-plan-10k-v1.json");
    writeFileSync(file, JSON.stringify({ mode: "quick", passed: false }));
    expect(perfProfileProblems("Area", "`qualify:ladder-plan-10k-v1`", results)).toEqual([]);
    writeFileSync(file, JSON.stringify({ mode: "full", passed: false }));
    expect(perfProfileProblems("Area", "`qualify:ladder-plan-10k-v1`", results)).toEqual([
      `Area: the latest full report of qualify:ladder-plan-10k-v1 (${file}) did not pass its budget`,
    ]);
    writeFileSync(file, JSON.stringify({ mode: "full", passed: true }));
    expect(perfProfileProblems("Area", "`qualify:ladder-plan-10k-v1`", results)).toEqual([]);
    expect(perfProfileProblems("Area", "`qualify:ladder-plan-10k-v1`", null)).toEqual([]);
  });
});
