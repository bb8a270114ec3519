/**
 * pnpm qualify (issue 33 deliverables 4 and 6): peak RSS of a child from wait4's rusage,
 * memory operations in a report apart from the time ones, `--release` (argument parsing,
 * profile selection, the misses it prints and its exit status), and the baseline folder
 * holding only passing reports. No verdict here depends on wall-clock speed.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test, vi } from "vitest";
import {
  PerfQualificationSchema,
  PerfSummarySchema,
} from "../../packages/core/src/schemas/perf-qualification.js";
import { testTimeout } from "../../test-time.js";
import {
  budgetMisses,
  exitStatus,
  isBaselineDir,
  parseQualifyArgs,
  QualifyUsageError,
  selectProfiles,
} from "../qualify/args.js";
import { parsePeakRssLine, peakRss, peakRssFloorBytes, peakRssOk } from "../qualify/peak-rss.js";
import { PROFILES, type Profile } from "../qualify/profiles.js";
import { bencherMetrics, compareWithBaseline } from "../qualify/report-files.js";
import { agreementBlock, memoryBlock, operationBlock } from "../qualify/run-profile.js";

vi.setConfig({ testTimeout: testTimeout(120_000), hookTimeout: testTimeout(120_000) });

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tmp = mkdtempSync(join(tmpdir(), "turngate-qualify-release-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("peak RSS of a child (python3 wrapper, wait4 rusage)", () => {
  test("a child that fills a 50 MB buffer peaks at ≥ 50 MB; a trivial one at the wrapper's floor", () => {
    const big = peakRss(process.execPath, ["-e", "Buffer.alloc(50e6).fill(1)"], tmp);
    expect(big.status).toBe(0);
    expect(big.peakRssBytes).toBeGreaterThanOrEqual(50e6);
    const floor = peakRssFloorBytes(tmp);
    expect(floor).toBeGreaterThan(0);
    expect(floor).toBeLessThan(50e6);
    expect(big.peakRssBytes).toBeGreaterThan(floor);
  });

  test("the command's exit status and output come back; its stdout is not the figure", () => {
    const run = peakRss(process.execPath, ["-e", "console.log('out'); process.exit(3)"], tmp);
    expect(run.status).toBe(3);
    expect(run.stdout).toBe("out\n");
    expect(peakRss("sh", ["-c", "kill -9 $$"], tmp).status).toBe(137);
    expect(() => peakRssOk("sh", ["-c", "exit 4"], tmp)).toThrow("sh -c exit 4 exited 4");
    expect(() => peakRss("turngate-no-such-command", [], tmp)).toThrow(
      "peak-RSS wrapper for turngate-no-such-command exited 1",
    );
    expect(() => peakRss("true", [], tmp, process.env, "turngate-no-such-python")).toThrow(
      "turngate-no-such-python",
    );
  });

  test("the wrapper's line: '<bytes> <status>'", () => {
    expect(parsePeakRssLine("123456 0")).toEqual({ peakRssBytes: 123456, status: 0 });
    expect(parsePeakRssLine("8 137\n")).toEqual({ peakRssBytes: 8, status: 137 });
    expect(() => parsePeakRssLine("")).toThrow('printed no "<bytes> <status>" line');
    expect(() => parsePeakRssLine("12 x")).toThrow('printed no "<bytes> <status>" line: "12 x"');
  });
});

describe("memory operations in a report", () => {
  test("memoryBlock: p50/max per side, per file, ratio, budget", () => {
    expect(
      memoryBlock(
        { samples: [300, 100, 200], referenceSamples: [50, 100, 80], files: 10, budgetRatio: 2 },
        7,
      ),
    ).toEqual({
      peak_rss_p50_bytes: 200,
      peak_rss_max_bytes: 300,
      samples: 3,
      reference_peak_rss_p50_bytes: 80,
      reference_peak_rss_max_bytes: 100,
      files: 10,
      peak_rss_per_file_bytes: 20,
      reference_peak_rss_per_file_bytes: 8,
      ratio_p50: 2.5,
      budget_ratio: 2,
      wrapper_floor_bytes: 7,
      passed: false,
    });
    const none = memoryBlock(
      { samples: [400], referenceSamples: [100], files: 4, budgetRatio: null },
      1,
    );
    expect([none.ratio_p50, none.budget_ratio, none.passed]).toEqual([4, null, true]);
  });

  test("the memory profiles are declared, too slow for CI's 60 s, and carry no release target", () => {
    for (const id of ["memory-100k-v1", "memory-300k-v1"]) {
      const p = PROFILES.find((q) => q.id === id) as Profile;
      expect(p.quickSeconds).toBeGreaterThan(60);
      expect(p.release).toBeUndefined();
      expect(p.description).toContain("64-byte files");
    }
    const ci = parseQualifyArgs(["--quick", "--max-seconds", "60"]);
    expect(selectProfiles(PROFILES, ci).map((p) => p.id)).not.toContain("memory-100k-v1");
  });
});

describe("pnpm qualify arguments", () => {
  test("defaults, --release, and what is refused", () => {
    expect(parseQualifyArgs([])).toEqual({
      profiles: undefined,
      quick: false,
      release: false,
      json: false,
      compare: undefined,
      tolerance: 0.5,
      maxSeconds: undefined,
      out: undefined,
      extraProfiles: undefined,
      help: false,
    });
    const r = parseQualifyArgs(["--release", "--profile", "a-v1", "--tolerance", "0.25"]);
    expect([r.release, r.quick, r.profiles, r.tolerance]).toEqual([true, false, ["a-v1"], 0.25]);
    const bad: [string[], string][] = [
      [["--release", "--quick"], "--release enforces the budgets on full runs"],
      [
        ["--tolerance=-1"],
        "--tolerance must be a number ≥ 0 (a fraction: 0.5 = 50% worse), got -1",
      ],
      [["--tolerance", "x"], "--tolerance must be a number ≥ 0"],
      [["--max-seconds", "0"], "--max-seconds must be a number > 0, got 0"],
      [["--nope"], "--nope"],
    ];
    for (const [argv, message] of bad) {
      expect(() => parseQualifyArgs(argv)).toThrow(QualifyUsageError);
      expect(() => parseQualifyArgs(argv)).toThrow(message);
    }
  });

  test("--release selects exactly the profiles with a target; --profile narrows; a non-release profile is refused", () => {
    const release = selectProfiles(PROFILES, parseQualifyArgs(["--release"])).map((p) => p.id);
    expect(release).toEqual([
      "observer-delta-20k-v1",
      "observer-delta-300k-v1",
      "turn-verify-20k-v1",
      "turn-baseline-20k-v1",
      "turn-noop-20k-v1",
    ]);
    expect(
      selectProfiles(
        PROFILES,
        parseQualifyArgs(["--release", "--profile", "turn-noop-20k-v1"]),
      ).map((p) => p.id),
    ).toEqual(["turn-noop-20k-v1"]);
    expect(() =>
      selectProfiles(PROFILES, parseQualifyArgs(["--release", "--profile", "ledger-100k-v1"])),
    ).toThrow("--release: ledger-100k-v1 carries no release target");
    expect(() => selectProfiles(PROFILES, parseQualifyArgs(["--profile", "nope-v1"]))).toThrow(
      "unknown profile nope-v1",
    );
  });

  test("the release profiles' budgets are the issue's targets", () => {
    const budget = (id: string) => {
      const p = PROFILES.find((q) => q.id === id) as Profile;
      return p.release;
    };
    expect(budget("turn-verify-20k-v1")).toContain("≤ 3×");
    expect(budget("observer-delta-20k-v1")).toContain("≤ 1.0×");
    expect(budget("observer-delta-300k-v1")).toContain("≤ 1.0×");
    expect(budget("turn-baseline-20k-v1")).toContain("≤ 1.5×");
    expect(budget("turn-noop-20k-v1")).toContain("≤ 2×");
  });
});

function report(operations: Record<string, unknown>, memory?: Record<string, unknown>) {
  const all = [...Object.values(operations), ...Object.values(memory ?? {})] as {
    passed: boolean;
  }[];
  return PerfQualificationSchema.parse({
    schema: "turngate.perf_qualification.v1",
    profile: "fake-v1",
    description: "d",
    reference: "r",
    mode: "full",
    build: { node_conditions: "", package_versions: {} },
    started_at: "2026-01-01T00:00:00.000Z",
    duration_ms: 1,
    machine: {
      os: "linux",
      os_release: "x",
      arch: "x64",
      logical_cpus: 2,
      processor: "p",
      memory_bytes: 1,
      load_average: [0, 0, 0],
      node: "v20",
      python: null,
      go: null,
      rust: null,
      git_commit: null,
      git_dirty: null,
    },
    parameters: {},
    warmup_samples: 0,
    measured_samples: 1,
    operations,
    ...(memory === undefined ? {} : { memory }),
    resources: {
      scope: "children",
      rss_before_bytes: null,
      rss_peak_bytes: null,
      rss_after_bytes: null,
      cpu_user_ms: 0,
      cpu_system_ms: 0,
      cpu_children_ms: null,
      read_bytes: null,
    },
    passed: all.every((o) => o.passed),
  });
}
const timeOp = (ratio: number, budget: number) => ({
  p50_ms: ratio * 10,
  p95_ms: ratio * 10,
  max_ms: ratio * 10,
  samples: 1,
  reference_p50_ms: 10,
  reference_p95_ms: 10,
  ratio_p50: ratio,
  ratio_p95: ratio,
  budget_ratio: budget,
  passed: ratio <= budget,
});
const memOp = (ratio: number, budget: number | null) =>
  memoryBlock(
    { samples: [ratio * 1e6], referenceSamples: [1e6], files: 100, budgetRatio: budget },
    1,
  );

describe("misses, exit status, baseline", () => {
  test("budgetMisses names every time and memory operation over budget, with ratio and budget", () => {
    const r = report(
      { fast: timeOp(0.5, 1), slow: timeOp(3.25, 3) },
      { verify: memOp(4, 2), baseline: memOp(9, null) },
    );
    expect(budgetMisses([r])).toEqual([
      "fake-v1/slow: 3.25× > budget 3× (p50 32.5 ms vs reference 10.0 ms)",
      "fake-v1/verify: peak RSS 4.00× > budget 2×",
    ]);
    expect(budgetMisses([report({ fast: timeOp(1, 1) })])).toEqual([]);
  });

  test("exit status: errors and comparisons always count, misses only outside --quick", () => {
    const s = (quick: boolean, errors: number, misses: number, cmp: boolean | null) =>
      exitStatus({ quick, errors, misses, comparisonPassed: cmp });
    expect(s(false, 0, 0, null)).toBe(0);
    expect(s(false, 0, 1, null)).toBe(1);
    expect(s(true, 0, 1, null)).toBe(0);
    expect(s(true, 1, 0, null)).toBe(1);
    expect(s(true, 0, 0, false)).toBe(1);
    expect(s(false, 0, 0, true)).toBe(0);
  });

  test("isBaselineDir: results/perf/baseline and below, nothing else", () => {
    expect(isBaselineDir(join(ROOT, "results/perf/baseline"), ROOT)).toBe(true);
    expect(isBaselineDir(join(ROOT, "results/perf/baseline/"), ROOT)).toBe(true);
    expect(isBaselineDir(join(ROOT, "results/perf/baseline/x"), ROOT)).toBe(true);
    expect(isBaselineDir(join(ROOT, "results/perf"), ROOT)).toBe(false);
    expect(isBaselineDir(join(ROOT, "results/perf/baseline-old"), ROOT)).toBe(false);
    expect(isBaselineDir(tmp, ROOT)).toBe(false);
  });

  test("--compare refuses a failing baseline report and compares memory ratios apart", () => {
    const now = report({ op: timeOp(1, 2) }, { verify: memOp(3, null) });
    const dir = join(tmp, "cmp-base");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "fake-v1.json"), JSON.stringify(report({ op: timeOp(5, 2) })));
    expect(compareWithBaseline([now], dir, 0.5)).toEqual({
      compared: 0,
      regressions: [],
      refused: [join(dir, "fake-v1.json")],
    });
    writeFileSync(
      join(dir, "fake-v1.json"),
      JSON.stringify(report({ op: timeOp(1, 2) }, { verify: memOp(1.5, null) })),
    );
    expect(compareWithBaseline([now], dir, 0.5)).toEqual({
      compared: 2,
      regressions: [
        {
          profile: "fake-v1",
          operation: "verify",
          measure: "peak_rss",
          baseline_ratio_p50: 1.5,
          ratio_p50: 3,
        },
      ],
      refused: [],
    });
  });

  test("bmf.json carries peak RSS as its own measures, not latency", () => {
    expect(bencherMetrics([report({}, { verify: memOp(2, null) })])).toEqual({
      "fake-v1/verify": {
        "peak-rss": { value: 2e6, upper_value: 2e6 },
        "peak-rss-ratio": { value: 2 },
      },
    });
  });

  test("results/perf/baseline/ holds only passing full reports", () => {
    const dir = join(ROOT, "results", "perf", "baseline");
    const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const r = PerfQualificationSchema.parse(JSON.parse(readFileSync(join(dir, f), "utf8")));
      expect([f, r.mode, r.passed]).toEqual([f, "full", true]);
    }
  });
});

const fakeProfiles = join(tmp, "fake-release-profiles.ts");
writeFileSync(
  fakeProfiles,
  `export const PROFILES = [
  { id: "fake-target-miss-v1", description: "a target missed", reference: "r", parameters: {}, release: "≤ 2×",
    warmup: { full: 0, quick: 0 }, samples: { full: 3, quick: 3 }, quickSeconds: 1, scope: "harness",
    load: async () => ({ operations: { spin: { budgetRatio: 2, subject: () => 5, reference: () => 2 } } }) },
  { id: "fake-target-met-v1", description: "a target met", reference: "r", parameters: {}, release: "≤ 2×",
    warmup: { full: 0, quick: 0 }, samples: { full: 3, quick: 3 }, quickSeconds: 1, scope: "harness",
    load: async () => ({ operations: { same: { budgetRatio: 2, subject: () => 1, reference: () => 1 } } }) },
  { id: "fake-agree-v1", description: "harness and paired agree", reference: "r", parameters: {},
    agreement: { operation: "h", paired: "p", tolerance: 0.1 },
    warmup: { full: 1, quick: 1 }, samples: { full: 3, quick: 3 }, quickSeconds: 1, scope: "harness",
    load: async () => ({ operations: {
      h: { budgetRatio: 9, subject: () => 2.1, reference: () => 1 },
      p: { budgetRatio: 9, subject: () => { throw new Error("pair only"); }, reference: () => { throw new Error("pair only"); }, pair: async () => ({ subject: 4, reference: 2 }) } } }) },
  { id: "fake-disagree-v1", description: "the harness reads 1.6x the paired figure", reference: "r", parameters: {},
    agreement: { operation: "h", paired: "p", tolerance: 0.1 },
    warmup: { full: 0, quick: 0 }, samples: { full: 3, quick: 3 }, quickSeconds: 1, scope: "harness",
    load: async () => ({ operations: {
      h: { budgetRatio: 9, subject: () => 3.2, reference: () => 1 },
      p: { budgetRatio: 9, subject: () => 0, reference: () => 0, pair: async () => ({ subject: 2, reference: 1 }) } } }) },
  { id: "fake-throws-v1", description: "a workload that throws", reference: "r", parameters: {},
    warmup: { full: 0, quick: 0 }, samples: { full: 1, quick: 1 }, quickSeconds: 1, scope: "harness",
    load: async () => ({ operations: { t: { budgetRatio: 1, subject: () => { throw new Error("not a verified turn:\\nneeds_review because x"); }, reference: () => 1 } } }) },
  { id: "fake-memory-v1", description: "memory only", reference: "r", parameters: {},
    warmup: { full: 0, quick: 0 }, samples: { full: 3, quick: 1 }, quickSeconds: 1, scope: "children",
    load: async () => ({ operations: {}, memory: { verify: { files: 1000, budgetRatio: null, subject: () => 3000000, reference: () => 1000000 } } }) },
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

describe("harness check: a ratio against the paired in-process measurement", () => {
  test("agreementBlock: ratio of ratios and the 10% tolerance, exact", () => {
    const op = (s: number, r: number) =>
      operationBlock({ samples: [s], referenceSamples: [r], budgetRatio: 1 });
    expect(agreementBlock("h", "p", op(3.2, 1), op(2, 1), 0.1)).toEqual({
      operation: "h",
      paired_operation: "p",
      ratio: 1.6,
      tolerance: 0.1,
      within: false,
    });
    expect(agreementBlock("h", "p", op(2.2, 1), op(2, 1), 0.1).within).toBe(true);
    expect(agreementBlock("h", "p", op(1.8, 1), op(2, 1), 0.1).within).toBe(true);
    expect(agreementBlock("h", "p", op(1.7, 1), op(2, 1), 0.1).within).toBe(false);
  });

  test("a profile's pair() gives both sides; a disagreeing harness fails the profile, naming both", () => {
    const out = join(tmp, "agree");
    const ok = qualify("--profile", "fake-agree-v1", "--out", out);
    expect(ok.status).toBe(0);
    const r = PerfQualificationSchema.parse(
      JSON.parse(readFileSync(join(out, "fake-agree-v1.json"), "utf8")),
    );
    expect(r.operations.p?.ratio_p50).toBe(2);
    expect(r.agreement).toEqual({
      operation: "h",
      paired_operation: "p",
      ratio: 1.05,
      tolerance: 0.1,
      within: true,
    });
    expect(ok.stdout).toContain(
      "harness check fake-agree-v1: h ratio / p ratio = 1.05 (agree within 10%)",
    );
    const bad = qualify("--profile", "fake-disagree-v1", "--out", out);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("(DISAGREE within 10%)");
    expect(
      budgetMisses([
        PerfQualificationSchema.parse(
          JSON.parse(readFileSync(join(out, "fake-disagree-v1.json"), "utf8")),
        ),
      ]),
    ).toEqual([
      "fake-disagree-v1: harness h disagrees with p (ratio of ratios 1.60, tolerance 10%)",
    ]);
  });

  test("observer-delta-20k-v1 declares the check against observer.bench.ts's paired method", () => {
    const p = PROFILES.find((q) => q.id === "observer-delta-20k-v1") as Profile;
    expect(p.agreement).toEqual({ operation: "delta", paired: "delta-paired", tolerance: 0.1 });
  });
});

describe("pnpm qualify --release and memory reports", () => {
  test("--release exits 1 and prints each miss with its ratio and budget; --release --quick is refused", () => {
    const out = join(tmp, "release");
    const run = qualify(
      "--release",
      "--profile",
      "fake-target-miss-v1",
      "--profile",
      "fake-target-met-v1",
      "--out",
      out,
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      "qualify --release: missed fake-target-miss-v1/spin: 2.50× > budget 2× (p50 5.0 ms vs reference 2.0 ms)",
    );
    expect(run.stderr).not.toContain("fake-target-met-v1/same");
    const summary = PerfSummarySchema.parse(
      JSON.parse(readFileSync(join(out, "summary.json"), "utf8")),
    );
    expect([summary.release, summary.mode, summary.passed]).toEqual([true, "full", false]);
    const met = qualify("--release", "--profile", "fake-target-met-v1", "--out", out);
    expect(met.status).toBe(0);
    const quick = qualify("--release", "--quick", "--out", out);
    expect(quick.status).toBe(2);
    expect(quick.stderr).toContain("--release enforces the budgets on full runs");
  });

  test("a profile that throws is an error whose reason carries the thrown message, not only stack frames", () => {
    const run = qualify("--profile", "fake-throws-v1", "--out", join(tmp, "throws"));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("error: not a verified turn: needs_review because x");
  });

  test("a memory-only profile writes its figures under memory, in bytes, and a table of its own", () => {
    const out = join(tmp, "memory");
    const run = qualify("--profile", "fake-memory-v1", "--out", out);
    expect(run.status).toBe(0);
    const r = PerfQualificationSchema.parse(
      JSON.parse(readFileSync(join(out, "fake-memory-v1.json"), "utf8")),
    );
    expect(r.operations).toEqual({});
    expect(r.measured_samples).toBe(3);
    const v = r.memory?.verify;
    expect([
      v?.peak_rss_p50_bytes,
      v?.reference_peak_rss_p50_bytes,
      v?.peak_rss_per_file_bytes,
      v?.ratio_p50,
      v?.budget_ratio,
    ]).toEqual([3e6, 1e6, 3000, 3, null]);
    expect(v?.wrapper_floor_bytes).toBeGreaterThan(0);
    expect(run.stdout).toContain("memory operation");
    expect(run.stdout).toMatch(
      /fake-memory-v1 +verify +1000 +3\.0 MB +3000 B +1\.0 MB +1000 B +3\.00× +none +reported/,
    );
    const summary = PerfSummarySchema.parse(
      JSON.parse(readFileSync(join(out, "summary.json"), "utf8")),
    );
    expect(summary.profiles[0]?.memory).toEqual({
      verify: { peak_rss_p50_bytes: 3e6, ratio_p50: 3, budget_ratio: null, passed: true },
    });
  });
});
