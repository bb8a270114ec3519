import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../test-time.js";
import { judge, renderMatrix } from "./lib/referee.js";
import type { VectorGroup } from "./lib/vectors.js";
import { checkVectorFile } from "./lib/vectors.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

const here = dirname(fileURLToPath(import.meta.url));
const group: VectorGroup = {
  group: "g",
  cases: [
    { id: "a", method: "ledger.digest", params: { records: [] }, expect: { effect_digest: "" } },
    { id: "b", method: "ledger.nope", params: {}, error_code: "method_not_found" },
  ],
};
const good = {
  runtime: "x",
  cases: [
    { group: "g", id: "a", ok: true, actual: { effect_digest: "" } },
    { group: "g", id: "b", ok: true, error_code: "method_not_found", error_path: null },
  ],
};

describe("test matrix referee", () => {
  test("identical correct answers pass: one count per case per runtime", () => {
    const report = judge(
      [group],
      [
        { name: "one", results: good },
        { name: "two", results: good },
      ],
    );
    expect(report).toMatchObject({ passed: 4, failed: 0, failures: [] });
    expect(report.groups).toEqual({
      g: { one: { passed: 2, failed: 0 }, two: { passed: 2, failed: 0 } },
    });
    expect(renderMatrix(report)).toBe(
      [
        "group  one  two",
        "g      2/2  2/2",
        "total  2/2  2/2",
        "test matrix: 4 passed, 0 failed",
      ].join("\n"),
    );
  });

  test("a wrong result, a wrong error code and a missing case fail with reasons", () => {
    const bad = {
      runtime: "bad",
      cases: [{ group: "g", id: "a", ok: true, actual: { effect_digest: "x" } }],
    };
    const report = judge([group], [{ name: "bad", results: bad }]);
    expect(report.failures).toEqual([
      {
        runtime: "bad",
        group: "g",
        id: "a",
        reason: 'expected {"effect_digest":""}, got {"effect_digest":"x"}',
      },
      { runtime: "bad", group: "g", id: "b", reason: "no result for this case" },
    ]);
  });

  test("answers that meet the vector but differ between runtimes fail", () => {
    const pathA = { runtime: "p", cases: [good.cases[0], { ...good.cases[1], error_path: "" }] };
    const report = judge(
      [group],
      [
        { name: "ref", results: good },
        { name: "other", results: pathA as typeof good },
      ],
    );
    expect(report.failed).toBe(1);
    expect(report.failures[0]).toMatchObject({ runtime: "other", id: "b" });
    expect(report.failures[0]?.reason).toContain("differs from the first runtime");
  });

  test("a runtime that could not run fails every case", () => {
    const report = judge([group], [{ name: "go", error: "runner exited with 127" }]);
    expect(report).toMatchObject({ passed: 0, failed: 2 });
    expect(renderMatrix(report)).toContain("go: could not run: runner exited with 127");
  });

  test("vector files are checked: duplicate ids and missing expectations are refused", () => {
    expect(() => checkVectorFile("v", [{ id: "a", method: "m", params: {} }])).toThrow(
      'vectors/v.json[0]: exactly one of "expect" and "error_code" is required',
    );
    const twice = { id: "a", method: "m", params: {}, expect: 1 };
    expect(() => checkVectorFile("v", [twice, twice])).toThrow(
      'vectors/v.json[1]: duplicate id "a"',
    );
  });
});

describe("test-matrix/run", () => {
  const dir = mkdtempSync(join(tmpdir(), "turngate-run-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (runtimes: unknown[]) => {
    const registry = join(dir, "runtimes.json");
    writeFileSync(
      registry,
      JSON.stringify([
        {
          name: "typescript",
          command: [
            "node",
            "--conditions=@turngate/source",
            "--import",
            "tsx",
            "test-matrix/runners/typescript.ts",
          ],
          cwd: ".",
        },
        ...runtimes,
      ]),
    );
    const json = join(dir, "matrix.json");
    const child = spawnSync(join(here, "run"), ["--runtimes", registry, "--json", json], {
      encoding: "utf8",
    });
    return {
      status: child.status,
      stdout: child.stdout,
      report: JSON.parse(readFileSync(json, "utf8")),
    };
  };

  test("passes when every runtime agrees and writes {passed, failed, runtimes, groups}", () => {
    const { status, report, stdout } = run([]);
    expect(status).toBe(0);
    expect(report.failed).toBe(0);
    expect(report.passed).toBeGreaterThan(100);
    expect(report.runtimes).toEqual([{ name: "typescript", passed: report.passed, failed: 0 }]);
    expect(Object.keys(report.groups)).toContain("gate");
    expect(stdout).toContain(`test matrix: ${report.passed} passed, 0 failed`);
  });

  test("fails when a runtime cannot start (an absent toolchain is not a skip)", () => {
    const { status, report } = run([{ name: "absent", command: ["turngate-no-such-runtime"] }]);
    expect(status).toBe(1);
    expect(report.runtimes[1]).toMatchObject({ name: "absent", passed: 0 });
    expect(report.runtimes[1].error).toContain("ENOENT");
    expect(report.failed).toBe(report.runtimes[1].failed);
  });
});
