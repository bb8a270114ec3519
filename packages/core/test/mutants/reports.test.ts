/**
 * Tests added for surviving mutants of the reports (issue #11 §5, Stryker over
 * stryker.config.json): exact validation messages and paths of createReport,
 * deriveReportStatus and checkFromExecution, what artifactUris walks, summarizeReports on
 * recorded statuses its checks do not derive, supportsGoalAchievement on each of its
 * conditions, and the rules of checkWithTestResults and vanishedTests one at a time.
 */
import { describe, expect, test } from "vitest";
import {
  artifactUris,
  checkFromExecution,
  checkWithTestResults,
  checkWithVanishedTests,
  createReport,
  deriveReportStatus,
  type ParsedTest,
  type ParsedTestResults,
  summarizeReports,
  supportsGoalAchievement,
  type TestHistory,
  TurngateValidationError,
  testHistoryOf,
  type VerificationCheck,
  type VerificationSummary,
  vanishedTests,
} from "../../src/index.js";

/** The message and path of the `TurngateValidationError` `run` throws. */
function refusal(run: () => unknown): { message: string; path: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TurngateValidationError);
    const e = error as TurngateValidationError;
    return { message: e.message, path: e.path };
  }
  throw new Error("the input was accepted");
}

const passedCheck: VerificationCheck = {
  id: "u",
  kind: "test",
  description: "d",
  status: "passed",
  required: true,
};

describe("createReport input validation (exact messages)", () => {
  test("a subject that is not a string", () => {
    expect(refusal(() => createReport(5 as never, []))).toEqual({
      message: "invalid verification report at subject: expected a string",
      path: "subject",
    });
  });

  test("checks that are not an array", () => {
    expect(refusal(() => createReport("s", "checks" as never))).toEqual({
      message: "invalid verification report at checks: expected an array",
      path: "checks",
    });
  });

  test("residual risks that are not an array, or hold a non-string", () => {
    expect(refusal(() => createReport("s", [], { residualRisks: "risk" as never }))).toEqual({
      message: "invalid verification report at residualRisks: expected an array of strings",
      path: "residualRisks",
    });
    expect(refusal(() => createReport("s", [], { residualRisks: ["a", 7 as never] }))).toEqual({
      message: "invalid verification report at residualRisks.1: expected a string",
      path: "residualRisks.1",
    });
  });

  test("an effect digest that is not a string", () => {
    expect(refusal(() => createReport("s", [], { effectDigest: 7 as never }))).toEqual({
      message: "invalid verification report at effectDigest: expected a string",
      path: "effectDigest",
    });
  });

  test("without an effect digest the report has no effect_digest key", () => {
    const report = createReport("s", [passedCheck]);
    expect(Object.keys(report)).toEqual(["schema", "subject", "status", "checks"]);
    expect(Object.keys(createReport("s", [], { effectDigest: "d" }))).toEqual([
      "schema",
      "subject",
      "status",
      "checks",
      "effect_digest",
    ]);
  });
});

describe("deriveReportStatus input validation (exact messages)", () => {
  test("checks that are not an array", () => {
    expect(refusal(() => deriveReportStatus({} as never))).toEqual({
      message: "invalid report status input at checks: expected an array",
      path: "checks",
    });
  });

  test("a check that is a primitive or null", () => {
    expect(refusal(() => deriveReportStatus([passedCheck, 5 as never]))).toEqual({
      message: "invalid report status input at checks.1: expected an object",
      path: "checks.1",
    });
    expect(refusal(() => deriveReportStatus([null as never]))).toEqual({
      message: "invalid report status input at checks.0: expected an object",
      path: "checks.0",
    });
  });

  test("residual risks that are not an array", () => {
    expect(refusal(() => deriveReportStatus([], "risk" as never))).toEqual({
      message: "invalid report status input at residualRisks: expected an array",
      path: "residualRisks",
    });
  });
});

describe("checkFromExecution input validation and artifactUris", () => {
  const command = { id: "c", kind: "test", description: "d", command: "t", required: true };

  test("a non-integer exit code and a non-string execution error", () => {
    expect(refusal(() => checkFromExecution(command, 0.5))).toEqual({
      message: "invalid command execution at exitCode: expected an integer",
      path: "exitCode",
    });
    expect(refusal(() => checkFromExecution(command, 0, undefined, 5 as never))).toEqual({
      message: "invalid command execution at executionError: expected a string",
      path: "executionError",
    });
  });

  test("a null execution error means the command ran", () => {
    expect(checkFromExecution(command, 0, undefined, null)).toStrictEqual({
      id: "c",
      kind: "test",
      description: "d",
      status: "passed",
      required: true,
      suggested_tools: ["bash"],
    });
  });

  test("of an array only the elements are walked, not named properties", () => {
    const list = Object.assign([{ artifact_uri: "file:///a" }], { artifact_uri: "file:///b" });
    expect(artifactUris(list)).toEqual(["file:///a"]);
    expect(artifactUris({ nested: list })).toEqual(["file:///a"]);
  });
});

describe("summarizeReports on recorded statuses", () => {
  const report = (status: VerificationCheck["status"], checks: VerificationCheck[] = []) => ({
    subject: "r",
    status,
    checks,
  });
  const counts = {
    report_count: 1,
    required_check_count: 0,
    pending_required_check_count: 0,
    failed_check_count: 0,
    residual_risk_count: 0,
  };

  test("not an array", () => {
    expect(refusal(() => summarizeReports("x" as never))).toEqual({
      message: "invalid verification reports: expected an array",
      path: "",
    });
  });

  test("a report recorded needs_review with nothing pending still makes the summary needs_review", () => {
    expect(summarizeReports([report("needs_review")])).toStrictEqual({
      status: "needs_review",
      ...counts,
      pending_subjects: ["r"],
    });
  });

  test("a failed check fails the summary even in a report recorded passed", () => {
    const failed = { ...passedCheck, required: false, status: "failed" as const };
    expect(summarizeReports([report("passed", [failed])])).toStrictEqual({
      status: "failed",
      ...counts,
      failed_check_count: 1,
      failed_subjects: ["r"],
    });
  });

  test("a pending required check makes the summary needs_review even in a report recorded passed", () => {
    const skipped = { ...passedCheck, status: "skipped" as const };
    expect(summarizeReports([report("passed", [skipped])])).toStrictEqual({
      status: "needs_review",
      ...counts,
      required_check_count: 1,
      pending_required_check_count: 1,
      pending_subjects: ["r"],
    });
  });
});

describe("supportsGoalAchievement needs every condition", () => {
  const good: VerificationSummary = {
    status: "passed",
    report_count: 1,
    required_check_count: 1,
    pending_required_check_count: 0,
    failed_check_count: 0,
    residual_risk_count: 0,
  };

  test("a passed summary with a report and a required check and nothing open supports it", () => {
    expect(supportsGoalAchievement(good)).toBe(true);
  });

  test.each([
    ["status needs_review", { status: "needs_review" as const }],
    ["status skipped", { status: "skipped" as const }],
    ["no report", { report_count: 0 }],
    ["no required check", { required_check_count: 0 }],
    ["a pending required check", { pending_required_check_count: 1 }],
    ["a failed check", { failed_check_count: 1 }],
    ["a residual risk", { residual_risk_count: 1 }],
  ])("%s does not (even when the other counts say passed)", (_, change) => {
    expect(supportsGoalAchievement({ ...good, ...change })).toBe(false);
  });
});

const parsedTest = (id: string, status: ParsedTest["status"]): ParsedTest => ({
  id,
  name: id,
  suite: null,
  file: null,
  status,
  duration_ms: null,
  message: null,
});

/** A parse with these tests (totals counted from them) and suite errors. */
function results(tests: ParsedTest[], errors: string[] = []): { results: ParsedTestResults } {
  const count = (s: ParsedTest["status"]) => tests.filter((t) => t.status === s).length;
  return {
    results: {
      schema: "turngate.parsed_test_results.v1",
      format: "tap",
      tests,
      totals: {
        tests: tests.length,
        passed: count("passed"),
        failed: count("failed"),
        skipped: count("skipped"),
        errored: count("errored"),
      },
      errors: errors.map((message) => ({ suite: null, file: null, message })),
      unparsed: [],
    },
  };
}

describe("checkWithTestResults, rule by rule", () => {
  const onExit0 = (evidence: ReturnType<typeof results>) =>
    checkWithTestResults({ check: passedCheck, exitCode: 0, expectExit: 0, evidence });

  test("errored tests are failing tests, and an exit 0 names them", () => {
    expect(onExit0(results([parsedTest("a", "passed"), parsedTest("b", "errored")]))).toEqual({
      ...passedCheck,
      status: "failed",
      tests: { passed: 1, failed: 0, skipped: 0, errored: 1 },
      failing_tests: ["b"],
      residual_risk: "exit 0 but 1 test errored",
    });
  });

  test("one failed and one errored test on exit 0", () => {
    const r = onExit0(results([parsedTest("a", "failed"), parsedTest("b", "errored")]));
    expect([r.status, r.residual_risk, r.failing_tests]).toEqual([
      "failed",
      "exit 0 but 1 test failed, 1 test errored",
      ["a", "b"],
    ]);
  });

  test("failed tests alone on exit 0 name no suite error", () => {
    const r = onExit0(
      results([parsedTest("a", "failed"), parsedTest("b", "failed"), parsedTest("c", "passed")]),
    );
    expect([r.status, r.residual_risk]).toEqual(["failed", "exit 0 but 2 tests failed"]);
  });

  test("a suite error alone fails the check, with its first line", () => {
    const r = onExit0(results([], ["collection failed\nat line 3", "second"]));
    expect(r).toEqual({
      ...passedCheck,
      status: "failed",
      tests: { passed: 0, failed: 0, skipped: 0, errored: 0 },
      residual_risk: "exit 0 but 2 suite errors: collection failed",
    });
  });

  test("a command that could not run is returned as derived even without results", () => {
    const derived: VerificationCheck = {
      ...passedCheck,
      status: "failed",
      residual_risk: "verification command could not run: spawn ENOENT",
    };
    expect(
      checkWithTestResults({
        check: derived,
        exitCode: null,
        expectExit: 0,
        executionError: "spawn ENOENT",
        evidence: { problem: "results file was not written" },
      }),
    ).toStrictEqual(derived);
  });
});

const entry = (status: ParsedTest["status"], suite: string | null, file: string | null) => ({
  status,
  suite,
  file,
});

describe("testHistoryOf", () => {
  test("each test is an ordinary own data property", () => {
    const history = testHistoryOf(results([parsedTest("a", "passed")]).results);
    expect(Object.getOwnPropertyDescriptor(history, "a")).toEqual({
      value: { status: "passed", file: null, suite: null },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
});

describe("vanishedTests: which deleted path explains a gone test", () => {
  /** The disappeared ids when the one test `id` is gone and `deleted` were deleted. */
  const gone = (id: string, e: ReturnType<typeof entry>, deleted: string[]) =>
    vanishedTests({ [id]: e } as TestHistory, [], deleted).disappeared;

  test("the file part of a pytest id (before `::`), with no file recorded", () => {
    expect(
      gone("tests/test_a.py::test_one", entry("passed", null, null), ["tests/test_a.py"]),
    ).toEqual([]);
    expect(
      gone("tests/test_a.py::test_one", entry("passed", null, null), ["tests/test_b.py"]),
    ).toEqual(["tests/test_a.py::test_one"]);
  });

  test("an id without `::` has no file part, even when a deleted path is a prefix of it", () => {
    expect(gone("build1", entry("passed", null, null), ["build"])).toEqual(["build1"]);
  });

  test("an empty file or id file part matches no deleted path, not even an empty one", () => {
    expect(gone("::t", entry("passed", null, ""), [""])).toEqual(["::t"]);
  });

  test("a test with no suite is explained by no classname", () => {
    expect(gone("t", entry("passed", null, null), ["t", "tests/test_a.py"])).toEqual(["t"]);
  });

  test("a suite segment that starts with the module's dotted name (a class in it)", () => {
    const e = entry("passed", "pytest > tests.test_a.TestCase", null);
    expect(gone("x", e, ["tests/test_a.py"])).toEqual([]);
    expect(gone("x", e, ["tests/test_b.py"])).toEqual(["x"]);
  });

  test("a suite segment that the file's dotted name ends with (a package-relative classname)", () => {
    const e = entry("passed", "a.FooTest", null);
    expect(gone("x", e, ["src/test/java/a/FooTest.java"])).toEqual([]);
    expect(gone("x", e, ["src/test/java/b/FooTest.java"])).toEqual(["x"]);
  });

  test("the dotted name of a path without an extension is the whole path", () => {
    expect(gone("x", entry("passed", "FooTest", null), ["FooTest"])).toEqual([]);
    expect(gone("x", entry("passed", "a.FooTest", null), ["src/a/FooTest"])).toEqual([]);
    // A dot in a directory is not an extension: `pkg.v2/test_a` dots to `pkg.v2.test_a`.
    expect(gone("x", entry("passed", "pkg.x", null), ["pkg.v2/test_a"])).toEqual(["x"]);
  });

  test("a deleted `_test.go` explains its package directory's tests, but only in a directory", () => {
    expect(gone("x", entry("passed", "example.com/m/pkg", null), ["pkg/x_test.go"])).toEqual([]);
    expect(gone("x", entry("passed", "example.com/m/pkg", null), ["pkg/x.go"])).toEqual(["x"]);
    // At the workspace root (or at `/`) the directory is empty: it explains nothing.
    expect(gone("x", entry("passed", "example.com/m/", null), ["x_test.go"])).toEqual(["x"]);
    expect(gone("x", entry("passed", "example.com/m/", null), ["/x_test.go"])).toEqual(["x"]);
  });
});

describe("vanishedTests: skipped tests and order", () => {
  test("only a test that passed then and is skipped now is a skipped one, ids sorted", () => {
    const previous: TestHistory = {
      b: entry("passed", null, null),
      a: entry("passed", null, null),
      f: entry("failed", null, null),
      c: entry("passed", null, null),
    };
    const now = [
      parsedTest("b", "skipped"),
      parsedTest("a", "skipped"),
      parsedTest("f", "skipped"),
    ];
    expect(vanishedTests(previous, [...now, parsedTest("c", "passed")], [])).toEqual({
      disappeared: [],
      skipped: ["a", "b"],
    });
    expect(vanishedTests(previous, now, [])).toEqual({ disappeared: ["c"], skipped: ["a", "b"] });
  });

  test("ids are in code-point order, not UTF-16 code-unit order", () => {
    // U+1F600 is the pair D83D DE00: code units put it before U+E000, code points after.
    const previous: TestHistory = {
      "t\u{1F600}": entry("passed", null, null),
      "t\uE000": entry("passed", null, null),
      "s\u{1F600}": entry("passed", null, null),
      "s\uE000": entry("passed", null, null),
    };
    const now = [parsedTest("s\u{1F600}", "skipped"), parsedTest("s\uE000", "skipped")];
    expect(vanishedTests(previous, now, [])).toEqual({
      disappeared: ["t\uE000", "t\u{1F600}"],
      skipped: ["s\uE000", "s\u{1F600}"],
    });
  });

  test("malformed arguments name the argument", () => {
    const status = 'Invalid option: expected one of "passed"|"failed"|"skipped"|"errored"';
    expect(refusal(() => vanishedTests({ a: { status: "gone" } } as never, [], []))).toEqual({
      message: `invalid vanished tests at previous.a.status: ${status} (+2 more)`,
      path: "previous.a.status",
    });
    expect(refusal(() => vanishedTests({}, [{ id: "a" }] as never, []))).toEqual({
      message: `invalid vanished tests at current.0.status: ${status} (+2 more)`,
      path: "current.0.status",
    });
  });
});

describe("checkWithVanishedTests texts", () => {
  test("two skipped tests are plural; exactly VANISHED_LIST_MAX ids are all listed", () => {
    const ids = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    expect(
      checkWithVanishedTests(passedCheck, { disappeared: ids, skipped: ["s1", "s2"] })
        .residual_risk,
    ).toBe(
      `tests_disappeared: 20 tests of the last verified run are gone: ${ids.join(", ")}; tests_skipped: 2 tests that passed in the last verified run are skipped: s1, s2`,
    );
  });

  test("malformed arguments name the argument", () => {
    const none = { disappeared: [], skipped: [] };
    expect(
      refusal(() => checkWithVanishedTests({ ...passedCheck, status: "ok" } as never, none)),
    ).toEqual({
      message:
        'invalid vanished tests check at check.status: Invalid option: expected one of "passed"|"failed"|"needs_review"|"skipped"',
      path: "check.status",
    });
    expect(
      refusal(() =>
        checkWithVanishedTests(passedCheck, { disappeared: [1], skipped: [] } as never),
      ),
    ).toEqual({
      message:
        "invalid vanished tests check at vanished.disappeared.0: Invalid input: expected string, received number",
      path: "vanished.disappeared.0",
    });
  });
});
