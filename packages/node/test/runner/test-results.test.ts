/**
 * Structured test results of a check (issue #16 §2), with real runners (pytest, node's test
 * runner) on real temporary folders: each rule of the consistency table, and the ways a
 * cheating agent could try to get `passed` from results that are not this run's.
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import type { VerificationCommandInput } from "@turngate/core";
import { parseVerificationCommand } from "@turngate/core";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { RESULTS_ENV } from "../../src/runner/test-results.js";
import { runVerificationCommand } from "../../src/runner/verify-command.js";
import { pythonTestEnv } from "../python-env.js";
import { tempDir } from "./helpers.js";

let work: { path: string; cleanup: () => Promise<void> };
let state: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir("results-ws");
  state = await tempDir("results-state");
});
afterEach(async () => {
  await work.cleanup();
  await state.cleanup();
});

const env = pythonTestEnv();
const write = (path: string, text: string) => {
  const full = join(work.path, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
};
const cmd = (command: string, format: string, extra: Partial<VerificationCommandInput> = {}) =>
  parseVerificationCommand({
    id: "unit",
    kind: "test",
    description: "unit tests",
    command,
    required: true,
    results: { format },
    ...extra,
  } as VerificationCommandInput);
const run = (command: ReturnType<typeof cmd>) =>
  runVerificationCommand(command, {
    root: work.path,
    logDir: join(state.path, "logs"),
    resultsDir: join(state.path, "results"),
    env,
  });
const PYTEST = "python3 -m pytest -q -p no:cacheprovider";

const PASSING =
  "def test_one():\n    assert 1 == 1\n\n\ndef test_größe():\n    assert 'ü' == 'ü'\n";
const FAILING =
  "def test_one():\n    assert 1 == 1\n\n\ndef test_two():\n    assert 1 == 2, 'one is not two'\n";

describe("results path", () => {
  test("each run gets a fresh file outside the workspace, as {results} and TURNGATE_RESULTS", async () => {
    const a = await run(
      cmd(`echo "$${RESULTS_ENV}" > where.txt && printf 'ok 1 - a\\n1..1\\n' > {results}`, "tap"),
    );
    const b = await run(cmd(`printf 'ok 1 - a\\n1..1\\n' > "$${RESULTS_ENV}"`, "tap"));
    const pathA = a.metadata.results_path as string;
    const pathB = b.metadata.results_path as string;
    expect(readFileSync(join(work.path, "where.txt"), "utf8")).toBe(`${pathA}\n`);
    expect(relative(join(state.path, "results"), pathA).startsWith("..")).toBe(false);
    expect(relative(work.path, pathA).startsWith("..")).toBe(true);
    expect(dirname(pathA)).not.toBe(dirname(pathB));
    expect(pathA.endsWith("/results.tap")).toBe(true);
    expect(a.check.residual_risk).toBeUndefined();
    expect(a.check.status).toBe("passed");
    expect(a.check.tests).toEqual({ passed: 1, failed: 0, skipped: 0, errored: 0 });
    expect(b.check.status).toBe("passed");
  });
});

describe("results path quoting", () => {
  test("{results} works bare, double-quoted, and under a folder with a space", async () => {
    const quoted = await run(cmd(`printf 'ok 1 - a\\n1..1\\n' > "{results}"`, "tap"));
    expect(quoted.check.status).toBe("passed");
    const spaced = await runVerificationCommand(
      cmd("printf 'ok 1 - a\\n1..1\\n' > {results}", "tap"),
      {
        root: work.path,
        resultsDir: join(state.path, "my results"),
        env,
      },
    );
    expect((spaced.metadata.results_path as string).includes("/my results/run-")).toBe(true);
    expect(spaced.check.status).toBe("passed");
  });
});

describe("consistency of exit status and results (real runners)", () => {
  test("pytest --junitxml={results}, all passing → passed with the counts", async () => {
    write("test_a.py", PASSING);
    const r = await run(cmd(`${PYTEST} --junitxml={results}`, "junit"));
    expect(r.check.status).toBe("passed");
    expect(r.check.residual_risk).toBeUndefined();
    expect(r.check.tests).toEqual({ passed: 2, failed: 0, skipped: 0, errored: 0 });
    expect(r.check.failing_tests).toBeUndefined();
    expect(r.testResults?.tests.map((t) => t.id)).toEqual([
      "pytest > test_a::test_one",
      "pytest > test_a::test_größe",
    ]);
  });

  test("a failing pytest run names its failing test ids", async () => {
    write("test_a.py", FAILING);
    const r = await run(cmd(`${PYTEST} --junitxml={results}`, "junit"));
    expect(r.check.status).toBe("failed");
    expect(r.check.failing_tests).toEqual(["pytest > test_a::test_two"]);
    expect(r.check.residual_risk).toBe(
      `verification command exited with code 1, expected 0: ${PYTEST} --junitxml={results}`,
    );
  });

  test("cheat: a wrapper that exits 0 and writes nothing → needs_review, no structured result", async () => {
    const r = await run(cmd("true", "junit"));
    expect(r.check.status).toBe("needs_review");
    expect(r.check.residual_risk).toBe(
      `no structured result: results file was not written: ${r.metadata.results_path} (does the command write junit to {results} or $TURNGATE_RESULTS?)`,
    );
  });

  test("cheat: a results file written before the run (copied with its old mtime) → needs_review", async () => {
    write("old.xml", '<testsuite name="s"><testcase classname="s" name="all_good"/></testsuite>');
    const old = new Date(Date.now() - 3600_000);
    utimesSync(join(work.path, "old.xml"), old, old);
    const r = await run(cmd("cp -p old.xml {results}", "junit"));
    expect(r.check.status).toBe("needs_review");
    expect(r.check.residual_risk).toBe(
      `no structured result: results file is older than the run: ${r.metadata.results_path}`,
    );
  });

  test("cheat: a results file the agent left at the old path of an earlier run does not count", async () => {
    const first = await run(cmd("printf 'ok 1 - a\\n1..1\\n' > {results}", "tap"));
    const r = await run(cmd(`test -f '${first.metadata.results_path}'`, "tap"));
    expect(r.check.status).toBe("needs_review");
    expect(
      r.check.residual_risk?.startsWith("no structured result: results file was not written:"),
    ).toBe(true);
  });

  test("cheat: a symlink to a file written elsewhere is not a results file", async () => {
    write("fake.xml", '<testsuite name="s"><testcase name="a"/></testsuite>');
    const r = await run(cmd(`ln -s "$PWD/fake.xml" {results}`, "junit"));
    expect(r.check.status).toBe("needs_review");
    expect(r.check.residual_risk).toBe(
      `no structured result: results path is not a regular file: ${r.metadata.results_path}`,
    );
  });

  test("exit 0 but the results show a failure → failed (a script that swallows pytest's status)", async () => {
    write("test_a.py", FAILING);
    write("run.sh", `${PYTEST} --junitxml="$${RESULTS_ENV}"\nexit 0\n`);
    const r = await run(cmd("sh run.sh", "junit"));
    expect(r.execution.exitCode).toBe(0);
    expect(r.check.status).toBe("failed");
    expect(r.check.residual_risk).toBe("exit 0 but 1 test failed");
    expect(r.check.failing_tests).toEqual(["pytest > test_a::test_two"]);
  });

  test("exit 0 but an unhandled error after a test ended (node --test) → failed naming the error", async () => {
    write(
      "leak.test.mjs",
      'import { test } from "node:test";\ntest("leaks", () => { setTimeout(() => { throw new Error("late"); }, 0); });\n',
    );
    write(
      "run.sh",
      `node --test --test-reporter=junit --test-reporter-destination="$${RESULTS_ENV}" leak.test.mjs\nexit 0\n`,
    );
    const r = await run(cmd("sh run.sh", "junit"));
    expect(r.check.status).toBe("failed");
    expect(r.check.tests).toEqual({ passed: 1, failed: 0, skipped: 0, errored: 0 });
    expect(r.check.residual_risk).toBe(
      'exit 0 but 2 suite errors: Error: Test "leaks" at leak.test.mjs:2:1 generated asynchronous activity after the test ended. This activity created the error "Error: late" and would have caused the test to fail, but instead triggered an uncaughtException event.',
    );
  });

  test("non-zero exit while every parsed test passed → needs_review", async () => {
    write("test_a.py", PASSING);
    const r = await run(cmd(`${PYTEST} --junitxml={results} && exit 3`, "junit"));
    expect(r.check.status).toBe("needs_review");
    expect(r.check.residual_risk).toBe("exit 3 but every parsed test passed (2 tests)");
  });

  test("zero tests executed with exit 0 (node --test on a file without tests) → skipped, no tests ran", async () => {
    write("empty.test.mjs", "// no tests yet\n");
    const r = await run(
      cmd(
        "node --test --test-reporter=junit --test-reporter-destination={results} empty.test.mjs",
        "junit",
      ),
    );
    expect(r.execution.exitCode).toBe(0);
    expect(r.check.status).toBe("skipped");
    expect(r.check.residual_risk).toBe("no tests ran");
  });

  test("only skipped tests with exit 0 → skipped, no tests ran (N skipped)", async () => {
    write(
      "test_a.py",
      "import pytest\n\n\n@pytest.mark.skip(reason='later')\ndef test_one():\n    pass\n",
    );
    const r = await run(cmd(`${PYTEST} --junitxml={results}`, "junit"));
    expect(r.check.status).toBe("skipped");
    expect(r.check.residual_risk).toBe("no tests ran (1 test skipped)");
    expect(r.check.tests).toEqual({ passed: 0, failed: 0, skipped: 1, errored: 0 });
  });

  test("pytest collecting nothing (exit 5) → failed, no tests ran", async () => {
    write("README.md", "no tests\n");
    const r = await run(cmd(`${PYTEST} --junitxml={results}`, "junit"));
    expect(r.execution.exitCode).toBe(5);
    expect(r.check.status).toBe("failed");
    expect(r.check.residual_risk).toBe(
      `verification command exited with code 5, expected 0: ${PYTEST} --junitxml={results}; no tests ran`,
    );
  });

  test("a broken test module (collection error) → failed, the module named as errored", async () => {
    write("test_a.py", "import not_a_module\n\n\ndef test_one():\n    pass\n");
    const r = await run(cmd(`${PYTEST} --junitxml={results}`, "junit"));
    expect(r.check.status).toBe("failed");
    expect(r.check.failing_tests).toEqual(["pytest::test_a"]);
    expect(r.check.tests).toEqual({ passed: 0, failed: 0, skipped: 0, errored: 1 });
  });

  test("an unreadable (truncated) results file → needs_review naming the parse error", async () => {
    const r = await run(cmd("printf '<testsuites><testsuite name=\"a\">' > {results}", "junit"));
    expect(r.check.status).toBe("needs_review");
    expect(r.check.residual_risk).toBe(
      "no structured result: results file is unreadable: cannot parse junit test results at line:1: unclosed <testsuites>, <testsuite> (a truncated document?)",
    );
  });

  test("source: output reads the command's own output (libtest text)", async () => {
    write(
      "out.txt",
      "running 2 tests\ntest a::one ... ok\ntest a::two ... FAILED\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
    );
    const r = await run(
      parseVerificationCommand({
        id: "cargo",
        kind: "test",
        description: "cargo",
        command: "cat out.txt",
        results: { format: "libtest", source: "output" },
      }),
    );
    expect(r.check.status).toBe("failed");
    expect(r.check.residual_risk).toBe("exit 0 but 1 test failed");
    expect(r.check.failing_tests).toEqual(["a::two"]);
  });

  test("a masked exit status still never passes, even with passing results", async () => {
    write("test_a.py", PASSING);
    const r = await run(cmd(`${PYTEST} --junitxml={results} || true`, "junit"));
    expect(r.check.status).toBe("needs_review");
    expect(r.check.residual_risk).toBe("exit status masked");
  });
});
