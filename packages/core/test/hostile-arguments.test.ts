/**
 * Issue #11 §1: the core exports the fuzz suite found throwing untyped errors (TypeError,
 * RangeError) on hostile arguments now validate them and throw `TurngateValidationError`
 * naming the field. Each case asserts the exact message and path, and that valid input
 * still gives the same answer.
 */
import { describe, expect, test } from "vitest";
import {
  checkExit,
  checkWithTestResults,
  checkWithVanishedTests,
  commandLabel,
  commandSubstitutions,
  compileGlob,
  contentDigest,
  failureSignature,
  isAssignmentWord,
  isoSeconds,
  MutationLedger,
  matchName,
  mergeAttestedReport,
  nearestRank,
  normalizeRecordSet,
  parseDiagnostics,
  parseTestResults,
  profileMatches,
  pushToWindow,
  resultOk,
  rowSpecificity,
  shellWords,
  TurngateValidationError,
  testHistoryOf,
  vanishedTests,
  windowPercentiles,
  wrappedCommand,
} from "../src/index.js";

/** The TurngateValidationError `run` throws: `{message, path}`. */
function rejection(run: () => unknown): { message: string; path: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof TurngateValidationError)) throw error;
    return { message: error.message, path: error.path };
  }
  throw new Error("did not throw");
}

const nested = (levels: number): unknown => {
  let v: unknown = [];
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

const check = {
  id: "t",
  kind: "test",
  description: "d",
  status: "passed" as const,
  required: true,
};
const results = parseTestResults("tap", "TAP version 13\n1..1\nok 1 - a\n");

describe("command results (checkExit, resultOk, failureSignature)", () => {
  test("a result that is not an object, or a field of the wrong type, names the field", () => {
    expect(rejection(() => checkExit(null as never))).toEqual({
      message: "invalid command result at result: Invalid input: expected object, received null",
      path: "result",
    });
    expect(rejection(() => resultOk({ ok: "yes" } as never))).toEqual({
      message:
        "invalid command result at result.ok: Invalid input: expected boolean, received string",
      path: "result.ok",
    });
    expect(rejection(() => failureSignature({}, { failure_signature_from: 3 } as never))).toEqual({
      message:
        "invalid observation options at options.failure_signature_from: Invalid input: expected string, received number",
      path: "options.failure_signature_from",
    });
    expect(rejection(() => checkExit({}, { exit: [] } as never)).path).toBe("options.exit");
  });

  test("valid input answers as before", () => {
    expect(checkExit({ exit_code: 3 })).toBe(3);
    expect(checkExit({ timed_out: true })).toBe(124);
    expect(checkExit({ ok: false })).toBe(1);
    expect(checkExit({}, null as never)).toBeNull();
    expect(resultOk({ exit_code: 0 })).toBe(true);
    expect(failureSignature({ exit_code: 2, stderr: " boom \n" })).toBe("boom");
    expect(failureSignature({ exit_code: 2 })).toBe("check failed exit=2");
  });
});

describe("commandLabel", () => {
  test("a value too deep, cyclic or holding a BigInt to print as JSON", () => {
    expect(rejection(() => commandLabel(nested(600)))).toEqual({
      message: "invalid command label at command: nests deeper than 512 levels",
      path: "command",
    });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(rejection(() => commandLabel(cycle)).message).toBe(
      "invalid command label at command: nests deeper than 512 levels",
    );
    expect(rejection(() => commandLabel({ n: 1n }))).toEqual({
      message:
        "invalid command label at command: is not JSON: Do not know how to serialize a BigInt",
      path: "command",
    });
    expect(
      rejection(() =>
        commandLabel({
          toJSON() {
            throw "no";
          },
        }),
      ).message,
    ).toBe("invalid command label at command: is not JSON: its toJSON threw");
  });

  test("valid input answers as before", () => {
    expect(commandLabel(nested(3))).toBe("[[[[]]]]");
    expect(commandLabel({ argv: ["npm", 1, null] })).toBe("npm 1 nil");
    expect(commandLabel(() => 1)).toBe("");
    expect(commandLabel(" x ")).toBe("x");
  });
});

describe("shell words", () => {
  test("a non-string text or word names the argument", () => {
    expect(rejection(() => shellWords(5 as never))).toEqual({
      message: "invalid shell words at text: expected a string, got a number",
      path: "text",
    });
    expect(rejection(() => commandSubstitutions(null as never))).toEqual({
      message: "invalid shell word at raw: expected a string, got null",
      path: "raw",
    });
    expect(rejection(() => isAssignmentWord(Object.create(null)))).toEqual({
      message: "invalid shell word at raw: expected a string, got an object",
      path: "raw",
    });
    expect(rejection(() => wrappedCommand("sh -c x" as never))).toEqual({
      message: "invalid shell words at words: Invalid input: expected array, received string",
      path: "words",
    });
    expect(rejection(() => wrappedCommand([{ raw: "sh", value: 1 }] as never))).toEqual({
      message:
        "invalid shell words at words.0.value: Invalid input: expected string, received number",
      path: "words.0.value",
    });
    expect(rejection(() => wrappedCommand([{ value: "sh" }] as never)).path).toBe("words.0.raw");
  });

  test("valid input answers as before", () => {
    expect(wrappedCommand(shellWords("env A=1 sh -ec 'x y'"))).toEqual({
      kind: "script",
      script: "x y",
      options: { pipefail: false, errexit: true },
    });
    expect(wrappedCommand([{ raw: "$X", value: null }])).toEqual({
      kind: "unreadable",
      word: "$X",
    });
    expect(commandSubstitutions('a$(b c)"`d`"')).toEqual(["b c", "d"]);
    expect(isAssignmentWord("A=1")).toBe(true);
    expect(isAssignmentWord("=1")).toBe(false);
  });
});

describe("scope globs", () => {
  test("a non-string pattern or name", () => {
    expect(rejection(() => compileGlob(undefined as never))).toEqual({
      message: "invalid scope glob at pattern: expected a string, got undefined",
      path: "pattern",
    });
    expect(rejection(() => matchName([] as never, "a"))).toEqual({
      message: "invalid scope glob at pattern: expected a string, got an array",
      path: "pattern",
    });
    expect(rejection(() => matchName("*", 1 as never))).toEqual({
      message: "invalid scope glob at name: expected a string, got a number",
      path: "name",
    });
  });

  test("valid input answers as before", () => {
    expect(compileGlob("src/{a,b}/*.ts")?.source).toBe("^(?:src\\/(?:a|b)\\/[^]*\\.ts)$");
    expect(compileGlob("[z-a]")).toBeNull();
    expect(matchName("src/*/x", "src/a/b/x")).toBe(true);
    expect(matchName("src/*/x", "lib/a/x")).toBe(false);
  });
});

describe("timing windows and timestamps", () => {
  test("windows of non-numbers, percentiles out of range, bad clocks", () => {
    expect(rejection(() => nearestRank(undefined as never, 50))).toEqual({
      message: "invalid nearest-rank percentile at sorted: expected an array, got undefined",
      path: "sorted",
    });
    expect(rejection(() => nearestRank([1, "2"] as never, 50))).toEqual({
      message:
        "invalid nearest-rank percentile at sorted.1: expected a finite number, got a string",
      path: "sorted.1",
    });
    expect(rejection(() => nearestRank([1], Number.NaN))).toEqual({
      message: "invalid nearest-rank percentile at p: expected a finite number, got NaN",
      path: "p",
    });
    expect(rejection(() => nearestRank([1], 100.5))).toEqual({
      message: "invalid nearest-rank percentile at p: expected a percentile from 0 to 100",
      path: "p",
    });
    expect(rejection(() => nearestRank([1], -1)).path).toBe("p");
    expect(rejection(() => windowPercentiles([Infinity]))).toEqual({
      message: "invalid timing window at window.0: expected a finite number, got Infinity",
      path: "window.0",
    });
    expect(rejection(() => pushToWindow([], null as never))).toEqual({
      message: "invalid timing window at duration_ms: expected a finite number, got null",
      path: "duration_ms",
    });
    expect(rejection(() => pushToWindow({} as never, 1)).path).toBe("window");
    expect(rejection(() => isoSeconds(253_402_300_800_000))).toEqual({
      message:
        "invalid timestamp at now_ms: expected ms since the epoch from -62167219200000 (year 0) to 253402300799999 (year 9999)",
      path: "now_ms",
    });
    expect(rejection(() => isoSeconds(-62_167_219_200_001)).path).toBe("now_ms");
    expect(rejection(() => isoSeconds("0" as never)).message).toBe(
      "invalid timestamp at now_ms: expected a finite number, got a string",
    );
    expect(rejection(() => normalizeRecordSet({}, Number.POSITIVE_INFINITY)).path).toBe("now_ms");
  });

  test("valid input answers as before", () => {
    expect(nearestRank([1, 2, 3, 4], 50)).toBe(2);
    expect(nearestRank([1, 2, 3, 4], 0)).toBe(1);
    expect(nearestRank([1, 2, 3, 4], 100)).toBe(4);
    expect(nearestRank([], 50)).toBe(0);
    expect(windowPercentiles([30, 10, 20])).toEqual({ p50: 20, p95: 30, p99: 30 });
    expect(pushToWindow([1, 2], 3)).toEqual([1, 2, 3]);
    expect(isoSeconds(253_402_300_799_999)).toBe("9999-12-31T23:59:59Z");
    expect(isoSeconds(-62_167_219_200_000)).toBe("0000-01-01T00:00:00Z");
    expect(isoSeconds(1_700_000_000_123)).toBe("2023-11-14T22:13:20Z");
  });
});

describe("profile matching", () => {
  test("a row that is not an object, a query whose fields are not strings, bad options", () => {
    expect(rejection(() => rowSpecificity(null as never, {}))).toEqual({
      message: "invalid profile row at row: expected an object",
      path: "row",
    });
    expect(rejection(() => rowSpecificity({ id: "r" }, { repo: 1 } as never))).toEqual({
      message:
        "invalid profile query at query.repo: Invalid input: expected string, received number",
      path: "query.repo",
    });
    expect(rejection(() => profileMatches({}, true as never))).toEqual({
      message: "invalid profile match options at options: expected an object",
      path: "options",
    });
  });

  test("valid input answers as before", () => {
    const row = { id: "r", scope: { repo: "x", dir: "src/*" } };
    expect(rowSpecificity(row, { repo: "x", path: "src/a" })).toBe(3);
    expect(rowSpecificity(row, { repo: "y", path: "src/a" })).toBeNull();
    expect(profileMatches({ repo: "x" }, null as never)).toEqual([]);
    expect(profileMatches({ repo: "x", path: "src/a" }, { profiles: { rows: [row] } })).toEqual([
      { row, specificity: 3, index: 0 },
    ]);
  });
});

describe("test results", () => {
  test("a format that is not a string is named by its kind (a deep value never overflows)", () => {
    expect(rejection(() => parseTestResults(nested(100_000) as never, "x"))).toEqual({
      message:
        "invalid test results parse request at format: unknown format an array; expected one of junit, tap, ctrf, go_test_json, jest_json, pytest_reportlog, libtest",
      path: "format",
    });
    expect(rejection(() => parseDiagnostics(nested(100_000) as never, "x")).message).toMatch(
      /^invalid diagnostic parse request at format: unknown format an array; expected one of /,
    );
    expect(rejection(() => parseTestResults("nope" as never, "x")).message).toMatch(
      /^invalid test results parse request at format: unknown format "nope"; /,
    );
  });

  test("checkWithTestResults names the bad field of its input", () => {
    const input = { check, exitCode: 0, expectExit: 0, evidence: { results } };
    expect(rejection(() => checkWithTestResults(undefined as never))).toEqual({
      message: "invalid test results check: Invalid input: expected object, received undefined",
      path: "",
    });
    expect(
      rejection(() =>
        checkWithTestResults({ ...input, check: { ...check, status: "ok" } } as never),
      ).path,
    ).toBe("check.status");
    expect(rejection(() => checkWithTestResults({ ...input, exitCode: 0.5 })).path).toBe(
      "exitCode",
    );
    expect(
      rejection(() => checkWithTestResults({ ...input, expectExit: null } as never)).path,
    ).toBe("expectExit");
    expect(
      rejection(() => checkWithTestResults({ ...input, executionError: 1 } as never)).path,
    ).toBe("executionError");
    const badTotals = { ...results, totals: { ...results.totals, failed: -1 } };
    expect(
      rejection(() => checkWithTestResults({ ...input, evidence: { results: badTotals } })).path,
    ).toBe("evidence.results.totals.failed");
    const badTest = { ...results, tests: [{ id: "a", status: "weird" }] };
    expect(
      rejection(() => checkWithTestResults({ ...input, evidence: { results: badTest } } as never))
        .path,
    ).toBe("evidence");
    expect(
      rejection(() => checkWithTestResults({ ...input, evidence: { problem: 3 } } as never)).path,
    ).toBe("evidence");
    expect(checkWithTestResults(input)).toEqual({
      ...check,
      tests: { passed: 1, failed: 0, skipped: 0, errored: 0 },
    });
    expect(
      checkWithTestResults({ ...input, evidence: { problem: "missing" }, exitCode: null }),
    ).toEqual({ ...check, status: "failed", residual_risk: "no structured result: missing" });
  });

  test("test histories and vanished tests name the bad argument", () => {
    expect(rejection(() => testHistoryOf(null as never))).toEqual({
      message: "invalid test history at results: Invalid input: expected object, received null",
      path: "results",
    });
    expect(
      rejection(() =>
        testHistoryOf({ tests: [{ id: "a", status: "passed", file: null }] } as never),
      ).path,
    ).toBe("results.tests.0.suite");
    const history = testHistoryOf(results);
    expect(rejection(() => vanishedTests({ a: { status: "x" } } as never, [], [])).path).toBe(
      "previous.a.status",
    );
    expect(
      rejection(() =>
        vanishedTests(history, [{ id: 1, status: "passed", file: null, suite: null }] as never, []),
      ).path,
    ).toBe("current.0.id");
    expect(rejection(() => vanishedTests(history, results.tests, [null] as never))).toEqual({
      message:
        "invalid vanished tests at deleted_paths.0: Invalid input: expected string, received null",
      path: "deleted_paths.0",
    });
    expect(vanishedTests(history, [], [])).toEqual({ disappeared: ["a"], skipped: [] });
    expect(
      rejection(() => checkWithVanishedTests({} as never, { disappeared: [], skipped: [] })).path,
    ).toBe("check.id");
    expect(rejection(() => checkWithVanishedTests(check, { disappeared: [1] } as never)).path).toBe(
      "vanished.disappeared.0",
    );
    expect(rejection(() => checkWithVanishedTests(check, { disappeared: [] } as never)).path).toBe(
      "vanished.skipped",
    );
    expect(checkWithVanishedTests(check, { disappeared: ["a"], skipped: [] })).toEqual({
      ...check,
      status: "needs_review",
      residual_risk: "tests_disappeared: 1 test of the last verified run is gone: a",
    });
  });

  test("a test id __proto__ is kept in the history (not taken as the prototype)", () => {
    const r = parseTestResults("tap", "TAP version 13\n1..1\nok 1 - __proto__\n");
    const id = (r.tests[0] as { id: string }).id;
    const history = testHistoryOf(r);
    expect(Object.keys(history)).toEqual([id]);
    expect(Object.getPrototypeOf(history)).toBe(Object.prototype);
    expect(vanishedTests(history, [], [])).toEqual({ disappeared: [id], skipped: [] });
  });
});

describe("ledger and gate", () => {
  test("recordEnvironmentPaths refuses a value that is not an array and changes nothing", () => {
    const ledger = new MutationLedger();
    expect(rejection(() => ledger.recordEnvironmentPaths("~/.npmrc" as never))).toEqual({
      message: "invalid environment paths: expected an array",
      path: "",
    });
    expect(ledger.isEmpty).toBe(true);
    expect(ledger.recordEnvironmentPaths([{ path: "~/.npmrc", contentDigest: "d" }])).toEqual([
      { tool: "environment", path: "~/.npmrc", content_digest: "d" },
    ]);
  });

  test("mergeAttestedReport rejects a reports value that is not an array, and an attestor that is not a function", async () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "a.ts", after: "a" });
    await expect(mergeAttestedReport(null, ledger, "r" as never)).rejects.toThrow(
      new TurngateValidationError("attested report merge", [
        { path: "reports", message: "expected an array" },
      ]),
    );
    await expect(mergeAttestedReport(null, ledger, [])).resolves.toEqual([]);
    await expect(mergeAttestedReport("x" as never, ledger, [])).rejects.toThrow(
      "invalid attested report merge at attestor: expected a function or null",
    );
  });
});

describe("injected hashers", () => {
  test("contentDigest refuses a hasher without sha256Hex and textSink", () => {
    expect(rejection(() => contentDigest({ after: "a" }, {} as never))).toEqual({
      message:
        "invalid ledger options at hasher: expected an object with sha256Hex(text) and textSink() functions",
      path: "hasher",
    });
    expect(contentDigest({ after: "a" }, null as never)).toBe(
      "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",
    );
  });
});
