import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ParsedTestResultsSchema } from "../../src/facts/schemas.js";
import {
  MAX_JSON_DEPTH,
  parseTestResults,
  TEST_MESSAGE_MAX_CHARS,
  type TestResultFormat,
  TestResultsParseError,
  TurngateError,
  TurngateValidationError,
} from "../../src/index.js";

const fixture = (name: string) =>
  readFileSync(new URL(`fixtures/test-results/${name}`, import.meta.url), "utf8");
const parse = (format: TestResultFormat, name: string) => {
  const r = parseTestResults(format, fixture(name));
  expect(ParsedTestResultsSchema.parse(r)).toEqual(r);
  return r;
};
const rows = (r: ReturnType<typeof parse>) => r.tests.map((t) => [t.id, t.status]);
const parseError = (format: TestResultFormat, text: string): TestResultsParseError => {
  try {
    parseTestResults(format, text);
  } catch (err) {
    expect(err).toBeInstanceOf(TestResultsParseError);
    return err as TestResultsParseError;
  }
  throw new Error("expected a TestResultsParseError");
};

describe("parseTestResults: JUnit XML", () => {
  test("pytest --junitxml: failure, fixture error, skip, xfail, nested classes, non-ASCII", () => {
    const r = parse("junit", "junit/pytest.xml");
    expect(rows(r)).toEqual([
      ["pytest > test_sample::test_adds", "passed"],
      ["pytest > test_sample::test_fails", "failed"],
      ["pytest > test_sample::test_skipped", "skipped"],
      ["pytest > test_sample::test_errors", "errored"],
      ["pytest > test_sample::test_größe_ünïcode", "passed"],
      ["pytest > test_sample.TestNested.TestInner::test_deep", "passed"],
      ["pytest > test_sample.TestNested::test_outer_fails", "failed"],
      ["pytest > test_sample::test_xfail", "skipped"],
    ]);
    expect(r.totals).toEqual({ tests: 8, passed: 3, failed: 2, skipped: 2, errored: 1 });
    expect(r.tests[1]).toEqual({
      id: "pytest > test_sample::test_fails",
      name: "test_fails",
      suite: "pytest > test_sample",
      file: null,
      status: "failed",
      duration_ms: 1,
      message:
        "AssertionError: lists differ\nassert [1, 2] == [1, 3]\n  \n  At index 1 diff: 2 != 3\n  Use -v to get more diff",
    });
    expect(r.tests[6]?.message).toBe('ValueError: boom <&> "quoted"');
    expect(r.tests[3]?.message).toBe('failed on setup with "RuntimeError: fixture exploded"');
    expect(r.errors).toEqual([]);
    expect(r.unparsed).toEqual([]);
  });

  test("pytest --junitxml: a module that fails to import is an errored entry", () => {
    const r = parse("junit", "junit/pytest-collection-error.xml");
    expect(rows(r)).toEqual([["pytest::test_broken", "errored"]]);
    expect(r.tests[0]?.message).toBe("collection failure");
  });

  test("node --test junit: nested suites and the unhandled error comment", () => {
    const r = parse("junit", "junit/node-test.xml");
    expect(rows(r)).toEqual([
      ["test::adds", "passed"],
      ["test::fails", "failed"],
      ["test::skipped", "skipped"],
      ["test::todo later", "skipped"],
      ["test::leaks an error", "passed"],
      ["outer > inner > test::deep", "passed"],
      ["outer > inner > test::größe ünïcode <&>", "failed"],
    ]);
    expect(r.tests[3]?.message).toBe(null);
    expect(r.tests[0]?.duration_ms).toBe(0.934);
    expect(r.errors).toEqual([
      {
        suite: null,
        file: null,
        message:
          'Error: Test "leaks an error" at sample.test.mjs:24:1 generated asynchronous activity after the test ended. This activity created the error "Error: late explosion" and would have caused the test to fail, but instead triggered an uncaughtException event.',
      },
    ]);
  });

  test("node --test junit: a file's own entry is the file, not a test", () => {
    const empty = parse("junit", "junit/node-test-empty-file.xml");
    expect(empty.tests).toEqual([]);
    expect(empty.errors).toEqual([]);
    const failed = parse("junit", "junit/node-test-file-failed.xml");
    expect(rows(failed)).toEqual([["test::leaks", "passed"]]);
    expect(failed.errors.map((e) => [e.file, e.message.slice(0, 22)])).toEqual([
      [null, 'Error: Test "leaks" at'],
      ["/src/sample/leak.test.mjs", "test failed"],
    ]);
  });

  test("surefire: <testsuite> root, error, skipped, flakyFailure passes", () => {
    const r = parse("junit", "junit/surefire.xml");
    expect(rows(r)).toEqual([
      ["com.example.CalculatorTest::adds", "passed"],
      ["com.example.CalculatorTest::divides", "failed"],
      ["com.example.CalculatorTest::connects", "errored"],
      ["com.example.CalculatorTest::later", "skipped"],
      ["com.example.CalculatorTest::retries", "passed"],
    ]);
    expect(r.tests.map((t) => t.message)).toEqual([
      null,
      "expected: <2> but was: <3>",
      "Connection refused",
      "@Disabled: flaky on CI",
      null,
    ]);
    expect(r.tests[2]?.duration_ms).toBe(105);
    expect(r.errors).toEqual([]);
  });

  test("jest-junit: classname equal to name, file attribute, suite that failed to run", () => {
    const r = parse("junit", "junit/jest-junit.xml");
    expect(r.tests.map((t) => [t.id, t.status, t.file])).toEqual([
      ["cart::cart adds an item", "passed", "src/cart.test.js"],
      ["cart::cart totals in €", "failed", "src/cart.test.js"],
      ["cart::cart pending", "skipped", "src/cart.test.js"],
      ["src/broken.test.js > Test suite failed to run::src/broken.test.js", "errored", null],
    ]);
    expect(r.tests[1]?.message?.split("\n")[0]).toBe("Error: expect(received).toBe(expected)");
  });

  test("gotestsum: the placeholder message Failed gives way to the output", () => {
    const r = parse("junit", "junit/gotestsum.xml");
    expect(rows(r)).toEqual([
      ["example.com/sample/sample::TestAdds", "passed"],
      ["example.com/sample/sample::TestFails", "failed"],
      ["example.com/sample/sample::TestSkipped", "skipped"],
      ["example.com/sample/sample::TestNested/inner/größe_ünïcode", "failed"],
    ]);
    expect(r.tests[1]?.message).toBe(
      "=== RUN   TestFails\n    sample_test.go:12: got 2, want 3\n--- FAIL: TestFails (0.00s)",
    );
  });

  test("a suite that declares more failures than its cases show is a suite error", () => {
    const r = parseTestResults(
      "junit",
      '<testsuite name="s" tests="1" failures="1" errors="1"><testcase name="a" classname="s"/></testsuite>',
    );
    expect(r.errors).toEqual([
      {
        suite: "s",
        file: null,
        message: "suite declares 2 failures/errors but its test cases show 0",
      },
    ]);
  });

  test("malformed, truncated or foreign XML is a typed error naming the line", () => {
    const truncated = fixture("junit/pytest.xml").slice(0, 900);
    const e = parseError("junit", truncated);
    expect(e.code).toBe("test_results_parse_error");
    expect(e.path).toBe("line:1");
    expect(parseError("junit", "<testsuites>\n<testsuite>\n</testcase>\n</testsuites>").path).toBe(
      "line:3",
    );
    expect(parseError("junit", "<results><test/></results>").message).toBe(
      "cannot parse junit test results: root element is <results>, expected <testsuites> or <testsuite>",
    );
    expect(parseError("junit", "not xml at all").path).toBe("line:1");
    expect(parseError("junit", "   \n").message).toBe(
      "cannot parse junit test results: empty output (the runner wrote no results)",
    );
  });

  test("a <failure> or <error> directly under a suite is a suite error", () => {
    const r = parseTestResults(
      "junit",
      '<testsuite name="S" errors="1"><error message="setUpClass failed: db down"/><testcase name="a" classname="S"/></testsuite>',
    );
    expect(rows(r)).toEqual([["S::a", "passed"]]);
    expect(r.errors).toEqual([{ suite: "S", file: null, message: "setUpClass failed: db down" }]);
  });

  test("DOCTYPE entities are not expanded", () => {
    const r = parseTestResults(
      "junit",
      '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><testsuite name="s"><testcase name="&b;"/></testsuite>',
    );
    expect(r.tests.map((t) => t.name)).toEqual(["&b;"]);
  });
});

describe("parseTestResults: TAP", () => {
  test("node --test tap: subtests become suites, YAML gives durations and errors", () => {
    const r = parse("tap", "tap/node-test.tap");
    expect(rows(r)).toEqual([
      ["adds", "passed"],
      ["fails", "failed"],
      ["skipped", "skipped"],
      ["todo later", "skipped"],
      ["outer > inner::deep", "passed"],
      ["outer > inner::größe ünïcode <&>", "failed"],
      ["leaks an error", "passed"],
    ]);
    expect(r.tests[5]).toEqual({
      id: "outer > inner::größe ünïcode <&>",
      name: "größe ünïcode <&>",
      suite: "outer > inner",
      file: null,
      status: "failed",
      duration_ms: 0.566,
      message: "Expected values to be strictly equal:\n\n'ü' !== 'Ü'",
    });
    expect(r.tests[2]?.message).toBe("not on this platform");
    expect(r.errors.map((e) => e.message)).toEqual([
      'Error: Test "leaks an error" at sample.test.mjs:24:1 generated asynchronous activity after the test ended. This activity created the error "Error: late explosion" and would have caused the test to fail, but instead triggered an uncaughtException event.',
    ]);
    expect(r.unparsed).toEqual([]);
  });

  test("TAP 14: escapes, a failing parent without a failing subtest, unmet plan, Bail out!", () => {
    const r = parse("tap", "tap/tap14.tap");
    expect(rows(r)).toEqual([
      ["parser::reads numbers", "passed"],
      ["parser::reads größe # escaped", "failed"],
      ["network", "skipped"],
      ["renders", "skipped"],
      ["hooks::inner passes", "passed"],
    ]);
    expect(r.tests[1]?.message).toBe("values differ");
    expect(r.tests[1]?.duration_ms).toBe(1.5);
    expect(r.errors).toEqual([
      { suite: "hooks", file: null, message: "before() hook failed" },
      { suite: null, file: null, message: "Bail out! database went away" },
      { suite: null, file: null, message: "plan 1..5 but 4 test points arrived" },
    ]);
    expect(r.unparsed).toEqual([
      { line: 15, pointer: null, text: "this line is not TAP", reason: "not a TAP line" },
    ]);
  });

  test("a truncated stream: subtests without their parent, no plan", () => {
    const r = parseTestResults(
      "tap",
      "TAP version 14\n# Subtest: big\n    ok 1 - first\n    not ok 2 - second\n",
    );
    expect(rows(r)).toEqual([
      ["big::first", "passed"],
      ["big::second", "failed"],
    ]);
    expect(r.errors).toEqual([
      { suite: null, file: null, message: "no plan line (1..N): the TAP stream may be truncated" },
      { suite: "big", file: null, message: "subtest big ended without a test point" },
    ]);
  });

  test("node --test tap: file entries are not tests; a failed file is a suite error with the error node printed for it", () => {
    const r = parse("tap", "tap/node-test-files.tap");
    expect(rows(r)).toEqual([["leaks", "passed"]]);
    // node says only "test failed" for the file; the error it printed just before is why.
    expect(r.errors.map((e) => [e.suite, e.message.slice(0, 22)])).toEqual([
      ["/src/sample/leak.test.mjs", 'Error: Test "leaks" at'],
    ]);
  });

  test("node --test tap: a test file that fails to load names the load error (the comments node printed for it, without node's own frames)", () => {
    const r = parse("tap", "tap/node-test-load-error.tap");
    expect(rows(r)).toEqual([["one", "passed"]]);
    expect(r.errors).toEqual([
      {
        suite: "/src/sample/b.test.js",
        file: null,
        message: [
          "Error: Cannot find module './missing-module'",
          "Require stack:",
          "- /src/sample/b.test.js",
          "at Object.<anonymous> (/src/sample/b.test.js:1:11)",
          "code: 'MODULE_NOT_FOUND',",
          "requireStack: [ '/src/sample/b.test.js' ]",
        ].join("\n"),
      },
    ]);
  });

  test("an empty describe (type: suite, no subtests) is not a test", () => {
    const r = parseTestResults("tap", "ok 1 - empty\n  ---\n  type: 'suite'\n  ...\n1..1\n");
    expect(r.tests).toEqual([]);
    expect(r.errors).toEqual([]);
  });
});

describe("parseTestResults: CTRF", () => {
  test("every status, suite as list or string, a bad element is unparsed", () => {
    const r = parse("ctrf", "ctrf/report.json");
    expect(r.tests.map((t) => [t.id, t.status, t.duration_ms, t.message])).toEqual([
      ["auth > login::logs in", "passed", 812, null],
      ["auth > login::rejects a bad password", "failed", 1200, "expected 401, got 200"],
      ["i18n::größe ünïcode", "passed", 15.5, null],
      ["dark mode", "skipped", 0, "feature flag off"],
      ["billing", "skipped", 0, null],
      ["flaky network", "errored", 3, "worker crashed"],
    ]);
    expect(r.tests[0]?.file).toBe("tests/auth.spec.ts");
    expect(r.unparsed).toEqual([
      {
        line: null,
        pointer: "/results/tests/6",
        text: '{"name":42,"status":"passed"}',
        reason: "name: Invalid input: expected string, received number",
      },
    ]);
  });

  test("a document without results.tool is a typed error naming the field", () => {
    const e = parseError("ctrf", '{"results": {"tests": []}}');
    expect(e.path).toBe("/results/tool");
  });
});

describe("parseTestResults: go test -json", () => {
  test("nested subtests, skip, non-ASCII and a package that does not compile", () => {
    const r = parse("go_test_json", "go-test-json/mixed.jsonl");
    expect(rows(r)).toEqual([
      ["example.com/sample/sample::TestAdds", "passed"],
      ["example.com/sample/sample::TestFails", "failed"],
      ["example.com/sample/sample::TestSkipped", "skipped"],
      ["example.com/sample/sample::TestNested/inner/deep", "passed"],
      ["example.com/sample/sample::TestNested/inner/größe_ünïcode", "failed"],
    ]);
    expect(r.tests[1]?.message).toBe("sample_test.go:12: got 2, want 3");
    expect(r.errors).toEqual([
      {
        suite: "example.com/sample/broken",
        file: null,
        message:
          'build failed\n# example.com/sample/broken [example.com/sample/broken.test]\nbroken/broken_test.go:6:14: cannot use "nope" (untyped string constant) as int value in variable declaration',
      },
    ]);
  });

  test("a panicking test fails with the panic as its message", () => {
    const r = parse("go_test_json", "go-test-json/panic.jsonl");
    expect(r.tests.map((t) => [t.id, t.status, t.message?.split("\n")[0] ?? null])).toEqual([
      ["example.com/gp/p::TestOk", "passed", null],
      [
        "example.com/gp/p::TestPanics",
        "failed",
        "panic: assignment to entry in nil map [recovered, repanicked]",
      ],
    ]);
    expect(r.errors).toEqual([]);
  });

  test("a test that never finished is errored; a parent failing on its own is a suite error", () => {
    const lines = [
      { Action: "run", Package: "p", Test: "TestHangs" },
      { Action: "output", Package: "p", Test: "TestHangs", Output: "=== RUN   TestHangs\n" },
      { Action: "run", Package: "p", Test: "TestParent" },
      { Action: "run", Package: "p", Test: "TestParent/child" },
      { Action: "pass", Package: "p", Test: "TestParent/child", Elapsed: 0.25 },
      {
        Action: "output",
        Package: "p",
        Test: "TestParent",
        Output: "    p_test.go:9: own check\n",
      },
      { Action: "fail", Package: "p", Test: "TestParent", Elapsed: 0.3 },
      { Action: "output", Package: "p", Output: "panic: test timed out after 1s\n" },
      { Action: "fail", Package: "p", Elapsed: 1 },
    ].map((e) => JSON.stringify(e));
    const r = parseTestResults("go_test_json", `${lines.join("\n")}\nFAIL\tp\t1.0s\n`);
    expect(r.tests).toEqual([
      {
        id: "p::TestHangs",
        name: "TestHangs",
        suite: "p",
        file: null,
        status: "errored",
        duration_ms: null,
        message: "no result: the test started but never finished",
      },
      {
        id: "p::TestParent/child",
        name: "TestParent/child",
        suite: "p",
        file: null,
        status: "passed",
        duration_ms: 250,
        message: null,
      },
    ]);
    expect(r.errors).toEqual([
      {
        suite: "p",
        file: null,
        message: "TestParent failed outside its subtests: p_test.go:9: own check",
      },
    ]);
    expect(r.unparsed).toEqual([
      { line: 10, pointer: null, text: "FAIL\tp\t1.0s", reason: "not a go test -json event" },
    ]);
  });
});

describe("parseTestResults: Jest / Vitest JSON", () => {
  test("vitest --reporter=json: nested describes, skip, todo, a file that fails to import", () => {
    const r = parse("jest_json", "jest-json/vitest.json");
    const f = "/src/sample/sample.test.ts";
    expect(rows(r)).toEqual([
      [`${f}::adds`, "passed"],
      [`${f}::fails`, "failed"],
      [`${f}::skipped`, "skipped"],
      [`${f}::todo later`, "skipped"],
      [`${f}::outer > inner > deep`, "passed"],
      [`${f}::outer > inner > größe ünïcode`, "failed"],
      [`${f}::unhandled rejection`, "passed"],
    ]);
    expect(r.tests[5]?.suite).toBe("outer > inner");
    expect(r.tests[5]?.message?.split("\n")[0]).toBe(
      "AssertionError: expected 'ü' to be 'Ü' // Object.is equality",
    );
    expect(r.errors).toEqual([
      {
        suite: null,
        file: "/src/sample/broken.test.ts",
        message: "Cannot find module './does-not-exist' imported from /src/sample/broken.test.ts",
      },
    ]);
  });

  test("vitest's unhandled error leaves no trace in the JSON: every test passed", () => {
    const r = parse("jest_json", "jest-json/vitest-unhandled.json");
    expect(r.totals).toEqual({ tests: 2, passed: 2, failed: 0, skipped: 0, errored: 0 });
    expect(r.errors).toEqual([]);
  });

  test("Jest's file message repeating its failing tests is not a second error", () => {
    const r = parseTestResults(
      "jest_json",
      JSON.stringify({
        success: false,
        testResults: [
          {
            name: "a.test.js",
            message: "● adds › fails\n\n  expect(1).toBe(2)",
            assertionResults: [
              {
                ancestorTitles: ["adds"],
                title: "fails",
                status: "failed",
                failureMessages: ["Error: expect(1).toBe(2)"],
              },
            ],
          },
        ],
      }),
    );
    expect(rows(r)).toEqual([["a.test.js::adds > fails", "failed"]]);
    expect(r.errors).toEqual([]);
  });

  test("success: false without a failing test is a suite error", () => {
    const r = parseTestResults(
      "jest_json",
      JSON.stringify({
        success: false,
        testResults: [
          {
            name: "a.test.js",
            message: "",
            assertionResults: [{ ancestorTitles: [], title: "ok", status: "passed" }],
          },
        ],
      }),
    );
    expect(r.errors).toEqual([
      {
        suite: null,
        file: null,
        message: "the run reported success: false without a failing test (an unhandled error?)",
      },
    ]);
  });
});

describe("parseTestResults: pytest --report-log", () => {
  test("phases fold into one test per node id", () => {
    const r = parse("pytest_reportlog", "pytest-reportlog/mixed.jsonl");
    expect(rows(r)).toEqual([
      ["test_sample.py::test_adds", "passed"],
      ["test_sample.py::test_fails", "failed"],
      ["test_sample.py::test_skipped", "skipped"],
      ["test_sample.py::test_errors", "errored"],
      ["test_sample.py::test_größe_ünïcode", "passed"],
      ["test_sample.py::TestNested::TestInner::test_deep", "passed"],
      ["test_sample.py::TestNested::test_outer_fails", "failed"],
      ["test_sample.py::test_xfail", "skipped"],
    ]);
    expect(r.tests.map((t) => t.message)).toEqual([
      null,
      "AssertionError: lists differ\nassert [1, 2] == [1, 3]\n  \n  At index 1 diff: 2 != 3\n  Use -v to get more diff",
      "not on this platform",
      "RuntimeError: fixture exploded",
      null,
      null,
      'ValueError: boom <&> "quoted"',
      "xfail: known bug",
    ]);
    expect(r.tests[5]?.suite).toBe("test_sample.py::TestNested::TestInner");
    expect(r.tests[5]?.file).toBe("test_sample.py");
    expect(r.errors).toEqual([]);
  });

  test("a collection error and exit status 2 are suite errors; zero tests", () => {
    const r = parse("pytest_reportlog", "pytest-reportlog/collection-error.jsonl");
    expect(r.tests).toEqual([]);
    expect(r.errors.map((e) => [e.suite, e.message.split("\n")[0]])).toEqual([
      [
        "test_broken.py",
        "collection failed: ImportError while importing test module '/src/sample/test_broken.py'.",
      ],
      [null, "pytest exited with status 2 (interrupted)"],
    ]);
  });

  test("a log cut short has no SessionFinish", () => {
    const lines = fixture("pytest-reportlog/mixed.jsonl").split("\n").slice(0, 8).join("\n");
    const r = parseTestResults("pytest_reportlog", lines);
    expect(r.errors).toEqual([
      { suite: null, file: null, message: "no SessionFinish record: the run was cut short" },
    ]);
  });
});

describe("parseTestResults: cargo test (libtest text)", () => {
  test("unit and doc tests, ignored, should_panic, the failure section as message", () => {
    const r = parse("libtest", "libtest/cargo-test.txt");
    expect(rows(r)).toEqual([
      ["unittests src/lib.rs::tests::adds", "passed"],
      ["unittests src/lib.rs::tests::größe_ünïcode", "passed"],
      ["unittests src/lib.rs::tests::fails", "failed"],
      ["unittests src/lib.rs::tests::ignored", "skipped"],
      ["unittests src/lib.rs::tests::nested::deep", "passed"],
      ["unittests src/lib.rs::tests::nested::panics_ok", "passed"],
      ["Doc-tests sample::src/lib.rs - add (line 1)", "passed"],
    ]);
    expect(r.tests[2]?.message).toBe(
      "thread 'tests::fails' (17002) panicked at src/lib.rs:14:18:\nassertion `left == right` failed: sum is wrong\n  left: 2\n right: 3\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
    );
    expect(r.tests[3]?.message).toBe("slow");
    expect(r.errors).toEqual([]);
    expect(r.unparsed).toEqual([]);
  });

  test("a binary that died before its result line, and counts that do not add up", () => {
    const r = parseTestResults(
      "libtest",
      "running 3 tests\ntest a ... ok\ntest b ... ok\nerror: test failed, to rerun pass `--lib`\n\nrunning 1 test\ntest c ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
    );
    expect(rows(r)).toEqual([
      ["a", "passed"],
      ["b", "passed"],
      ["c", "passed"],
    ]);
    expect(r.errors).toEqual([
      {
        suite: null,
        file: null,
        message:
          "test result line says 2 passed, 0 failed, 0 ignored but the test lines show 1, 0, 0",
      },
      {
        suite: null,
        file: null,
        message:
          'no "test result:" line after running 3 tests (line 1): the test binary crashed or was killed',
      },
    ]);
  });
});

describe("parseTestResults: bad input", () => {
  test("unknown format and non-string text are validation errors naming the field", () => {
    expect(() => parseTestResults("xunit" as TestResultFormat, "")).toThrow(
      TurngateValidationError,
    );
    try {
      parseTestResults("junit", 7 as unknown as string);
    } catch (err) {
      expect((err as TurngateValidationError).path).toBe("text");
    }
  });

  test(`JSON nested deeper than MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) is refused, per document or per line`, () => {
    const deep = `${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}`;
    expect(parseError("ctrf", deep).message).toBe(
      "cannot parse ctrf test results: nests deeper than 512 levels",
    );
    expect(parseError("jest_json", `{"testResults": ${deep}}`).message).toBe(
      "cannot parse jest_json test results: nests deeper than 512 levels",
    );
    const r = parseTestResults("go_test_json", `{"Action":"x","Output":${deep}}\n`);
    expect(r.unparsed.map((u) => [u.line, u.reason])).toEqual([
      [1, "nests deeper than 512 levels"],
    ]);
    const ok = `${"[".repeat(MAX_JSON_DEPTH - 3)}${"]".repeat(MAX_JSON_DEPTH - 3)}`;
    expect(
      parseError("ctrf", `{"results": {"tool": {"name": "x"}, "tests": 1, "x": ${ok}}}`).path,
    ).toBe("/results/tests");
  });

  test("deeply nested XML and YAML are refused or unparsed, never a crash", () => {
    const n = 200_000;
    const xml = `<testsuites>${"<testsuite>".repeat(n)}${"</testsuite>".repeat(n)}</testsuites>`;
    expect(parseError("junit", xml).message).toBe(
      "cannot parse junit test results: Maximum nested tags exceeded",
    );
    const tap = `ok 1 - a\n  ---\n  x: ${"[".repeat(n)}${"]".repeat(n)}\n  ...\n1..1\n`;
    const r = parseTestResults("tap", tap);
    expect(rows(r)).toEqual([["a", "passed"]]);
    expect(r.unparsed.map((u) => [u.line, u.reason])).toEqual([
      [2, "YAML diagnostic is not valid YAML: nests deeper than 512 levels"],
    ]);
  });

  test("long messages are capped", () => {
    const long = "x".repeat(TEST_MESSAGE_MAX_CHARS * 2);
    const r = parseTestResults(
      "junit",
      `<testsuite name="s"><testcase name="a"><failure message="${long}"/></testcase></testsuite>`,
    );
    expect(r.tests[0]?.message).toBe(`${"x".repeat(TEST_MESSAGE_MAX_CHARS - 1)}…`);
  });

  test("a repeated id gets #2 so every run keeps its entry", () => {
    const r = parseTestResults(
      "libtest",
      "running 2 tests\ntest a ... ok\ntest a ... FAILED\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
    );
    expect(rows(r)).toEqual([
      ["a", "passed"],
      ["a#2", "failed"],
    ]);
  });

  test("no format throws anything but a typed error on arbitrary text", () => {
    const formats = [
      "junit",
      "tap",
      "ctrf",
      "go_test_json",
      "jest_json",
      "pytest_reportlog",
      "libtest",
    ] as const;
    const pieces = fc.constantFrom(
      "<testsuite",
      '<testcase name="a">',
      "</testsuite>",
      "<failure/>",
      "{",
      "}",
      "[",
      "]",
      '"tests":',
      '"Action":"fail"',
      "ok 1 - a",
      "not ok",
      "    ",
      "---",
      "...",
      "1..2",
      "\n",
      "# Subtest: x",
      "running 2 tests",
      "test a ... ok",
      "test result: ok.",
      ":",
      ",",
      '{"$report_type":"TestReport","nodeid":"a","when":"call","outcome":"failed"}',
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...formats),
        fc.array(fc.oneof(pieces, fc.string()), { maxLength: 30 }),
        (format, parts) => {
          try {
            const r = parseTestResults(format, parts.join(""));
            ParsedTestResultsSchema.parse(r);
          } catch (err) {
            if (!(err instanceof TurngateError)) throw err;
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
