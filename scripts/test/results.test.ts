import path from "node:path";
import { describe, expect, test } from "vitest";
import { parseGoResults } from "../capabilities/results/go.js";
import { parseMatrixResults } from "../capabilities/results/matrix.js";
import { junitKeys, parsePytestResults } from "../capabilities/results/pytest.js";
import { parseVitestResults } from "../capabilities/results/vitest.js";
import { parseTestReference, type TestReference } from "../capabilities/test-references.js";

const ref = <R extends TestReference["runner"]>(text: string, runner: R) => {
  const r = parseTestReference(text);
  if (typeof r === "string" || r.runner !== runner)
    throw new Error(`bad fixture reference ${text}`);
  return r as Extract<TestReference, { runner: R }>;
};

describe("vitest JSON loader", () => {
  const root = path.resolve("/repo");
  // Shape written by vitest 4.1 --reporter=json (fields the check does not read left out).
  const report = JSON.stringify({
    numTotalTests: 7,
    testResults: [
      {
        name: path.join(root, "t/a.test.ts"),
        status: "failed",
        message: "",
        assertionResults: [
          { ancestorTitles: ["outer", "inner"], title: "ok > arrow", status: "passed" },
          { ancestorTitles: ["outer", "inner"], title: "sk", status: "skipped" },
          { ancestorTitles: ["outer", "inner"], title: "td", status: "todo" },
          { ancestorTitles: ["outer", "inner"], title: "bad", status: "failed" },
          { ancestorTitles: [], title: "twice", status: "passed" },
          { ancestorTitles: [], title: "twice", status: "failed" },
          { ancestorTitles: ["p"], title: "a property (with seed=-1571735567)", status: "passed" },
        ],
      },
      {
        name: path.join(root, "t/broken.test.ts"),
        status: "failed",
        message: "Failed to load url ./missing.js\n    at stack",
        assertionResults: [],
      },
    ],
  });
  const results = parseVitestResults(report, root, "results/vitest.json");
  const outcome = (text: string) => results.outcome(ref(`vitest:${text}`, "vitest"));

  test("maps statuses by file and joined titles; a repeated name is as bad as its worst run", () => {
    expect(outcome("t/a.test.ts > outer > inner > ok > arrow")).toEqual({ status: "passed" });
    expect(outcome("t/a.test.ts > outer > inner > sk")).toEqual({ status: "skipped" });
    expect(outcome("t/a.test.ts > outer > inner > td")).toEqual({
      status: "skipped",
      detail: "(todo)",
    });
    expect(outcome("t/a.test.ts > outer > inner > bad")).toEqual({ status: "failed" });
    expect(outcome("t/a.test.ts > twice")).toEqual({ status: "failed" });
    expect(outcome("t/a.test.ts > p > a property")).toEqual({ status: "passed" });
    expect(outcome("t/a.test.ts > inner > ok > arrow")).toEqual({
      status: "absent",
      detail: "from results/vitest.json",
    });
  });

  test("names the load error of a file that failed before running tests", () => {
    expect(outcome("t/broken.test.ts > anything")).toEqual({
      status: "absent",
      detail: "from results/vitest.json (its file failed: Failed to load url ./missing.js)",
    });
  });

  test("rejects reports that are not vitest JSON", () => {
    expect(() => parseVitestResults("{", root, "r.json")).toThrow(/^r\.json: not valid JSON \(/);
    expect(() => parseVitestResults('{"testResults":[{"name":1}]}', root, "r.json")).toThrow(
      "r.json: testResults[0].name is not a string",
    );
  });
});

describe("pytest JUnit loader", () => {
  // Written by pytest 9.2 with rootdir bindings/python (its pyproject.toml), failure texts trimmed.
  const xml = `<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="1" skipped="2" tests="8" time="0.080" timestamp="2026-11-30T04:37:01.354674+00:00" hostname="vm"><testcase classname="tests.test_a" name="test_ok" time="0.001" /><testcase classname="tests.test_a" name="test_fail" time="0.001"><failure message="assert False">E   assert False</failure></testcase><testcase classname="tests.test_a" name="test_skip" time="0.000"><skipped type="pytest.skip" message="no">tests/test_a.py:4: no</skipped></testcase><testcase classname="tests.test_a" name="test_p[1]" time="0.001" /><testcase classname="tests.test_a" name="test_p[a.b/c]" time="0.001" /><testcase classname="tests.test_a.TestK" name="test_m" time="0.000" /><testcase classname="tests.test_a" name="test_err" time="0.000"><error message="failed on setup with &quot;RuntimeError: x&quot;">E   RuntimeError: x</error></testcase><testcase classname="tests.test_a" name="test_xf" time="0.000"><skipped type="pytest.xfail" message="" /></testcase></testsuite></testsuites>`;
  const results = parsePytestResults(xml, "results/pytest.xml");
  const outcome = (id: string) =>
    results.outcome(ref(`pytest:bindings/python/tests/test_a.py::${id}`, "pytest"));

  test("derives the JUnit keys of a node id for every possible rootdir", () => {
    expect(junitKeys("bindings/python/tests/test_a.py::TestK::test_m[a.b/c::d]")).toEqual([
      "bindings.python.tests.test_a.TestK::test_m[a.b/c::d]",
      "python.tests.test_a.TestK::test_m[a.b/c::d]",
      "tests.test_a.TestK::test_m[a.b/c::d]",
      "test_a.TestK::test_m[a.b/c::d]",
    ]);
  });

  test("maps passed, failed, error, skip and xfail testcases", () => {
    expect(outcome("test_ok")).toEqual({ status: "passed" });
    expect(outcome("test_p[a.b/c]")).toEqual({ status: "passed" });
    expect(outcome("TestK::test_m")).toEqual({ status: "passed" });
    expect(outcome("test_fail")).toEqual({ status: "failed" });
    expect(outcome("test_err")).toEqual({ status: "failed", detail: "(error)" });
    expect(outcome("test_skip")).toEqual({ status: "skipped" });
    expect(outcome("test_xf")).toEqual({ status: "skipped", detail: "(xfail)" });
    expect(outcome("test_m")).toEqual({ status: "absent", detail: "from results/pytest.xml" });
    expect(outcome("test_p[2]")).toEqual({ status: "absent", detail: "from results/pytest.xml" });
  });

  test("rejects files that are not JUnit XML", () => {
    expect(() => parsePytestResults("<testsuites><testcase", "p.xml")).toThrow(
      /^p\.xml: not valid XML \(/,
    );
    expect(() => parsePytestResults("<report/>", "p.xml")).toThrow(
      "p.xml: has no <testsuites> or <testsuite> root",
    );
    expect(() =>
      parsePytestResults('<testsuite><testcase name="x"/></testsuite>', "p.xml"),
    ).toThrow("p.xml: a <testcase> lacks classname or name");
  });
});

describe("go test -json loader", () => {
  const ev = (Action: string, Package: string, Test?: string) =>
    JSON.stringify({ Time: "2026-11-30T04:37:22.9Z", Action, Package, ...(Test ? { Test } : {}) });
  const m = "example.com/turngate/bindings/go";
  const stream = [
    ev("start", m),
    ev("run", m, "TestOk"),
    ev("run", m, "TestOk/sub_one"),
    ev("pass", m, "TestOk/sub_one"),
    ev("pass", m, "TestOk"),
    ev("run", m, "TestFail"),
    ev("fail", m, "TestFail"),
    ev("run", m, "TestSkip"),
    ev("skip", m, "TestSkip"),
    ev("run", m, "TestHang"),
    "plain text from a merged stderr",
    ev("fail", m),
    ev("fail", `${m}/broken`),
  ].join("\n");
  const results = parseGoResults(stream, "results/go.json");
  const outcome = (text: string) => results.outcome(ref(`go:${text}`, "go"));

  test("maps the last terminal action of each test, subtests included", () => {
    expect(outcome(`${m} TestOk`)).toEqual({ status: "passed" });
    expect(outcome(`${m} TestOk/sub_one`)).toEqual({ status: "passed" });
    expect(outcome(`${m} TestFail`)).toEqual({ status: "failed" });
    expect(outcome(`${m} TestSkip`)).toEqual({ status: "skipped" });
    expect(outcome(`${m} TestHang`)).toEqual({
      status: "failed",
      detail: "(started but never finished)",
    });
    expect(outcome(`${m}/broken TestX`)).toEqual({
      status: "absent",
      detail: `from results/go.json (package ${m}/broken failed)`,
    });
  });

  test("rejects malformed event lines by line number", () => {
    expect(() => parseGoResults(`${ev("run", m, "T")}\n{oops`, "g.json")).toThrow(
      "g.json: line 2 is not valid JSON",
    );
    expect(() => parseGoResults('{"Action":"run"}', "g.json")).toThrow(
      "g.json: line 1 lacks Package or Action",
    );
  });
});

describe("test-matrix results loader (results/matrix.json)", () => {
  const report = JSON.stringify({
    passed: 9,
    failed: 1,
    runtimes: [
      { name: "typescript", passed: 6, failed: 0 },
      { name: "go", passed: 3, failed: 1, error: "go: not found" },
      { name: "python-cpython", passed: 0, failed: 0 },
    ],
    groups: {
      ledger: {
        typescript: { passed: 3, failed: 0 },
        go: { passed: 2, failed: 1 },
        "python-cpython": { passed: 0, failed: 0 },
      },
      gate: { typescript: { passed: 3, failed: 0 } },
    },
    failures: [],
  });
  const matrix = parseMatrixResults(report, "results/matrix.json");
  const cell = (text: string) => matrix.outcome(ref(text, "matrix"));

  test("a cell passes only when it ran vectors, failed none and its runtime started", () => {
    expect(cell("matrix:ledger > typescript")).toEqual({ status: "passed" });
    expect(cell("matrix:ledger > go")).toEqual({
      status: "failed",
      detail: "(runtime go: go: not found)",
    });
    expect(cell("matrix:ledger > python-cpython")).toEqual({
      status: "skipped",
      detail: "(no vector ran)",
    });
    expect(cell("matrix:gate > go")).toEqual({
      status: "absent",
      detail: "(no gate × go cell in results/matrix.json)",
    });
  });

  test("a failed cell of a runtime that started names the count", () => {
    const m = parseMatrixResults(
      JSON.stringify({
        runtimes: [{ name: "go", passed: 2, failed: 1 }],
        groups: { ledger: { go: { passed: 2, failed: 1 } } },
      }),
      "m.json",
    );
    expect(m.outcome(ref("matrix:ledger > go", "matrix"))).toEqual({
      status: "failed",
      detail: "(1 of 3 vectors failed)",
    });
  });

  test("rejects files that are not matrix reports, and malformed references", () => {
    expect(() => parseMatrixResults("{}", "results/matrix.json")).toThrow(
      "is not a test-matrix report",
    );
    expect(parseTestReference("matrix:ledger")).toBe(
      'matrix reference "matrix:ledger" needs "<vector group> > <runtime>"',
    );
  });
});
