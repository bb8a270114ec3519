/**
 * The preset checks turngate runs itself read structured results (issue #16 §4): each
 * variant on a real project with one passing and one failing test, run by the real tool.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { verificationPresets } from "../../src/presets/detect.js";
import { requiredPresetCommands } from "../../src/presets/required.js";
import { nodeTestNamesFiles, nodeTestTakesFlags } from "../../src/presets/results.js";
import { runVerificationCommand } from "../../src/runner/verify-command.js";
import { pythonTestEnv } from "../python-env.js";
import { tempDir } from "../runner/helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(240_000), hookTimeout: testTimeout(240_000) });

let work: { path: string; cleanup: () => Promise<void> };
let state: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir("preset-ws");
  state = await tempDir("preset-state");
});
afterEach(async () => {
  await work.cleanup();
  await state.cleanup();
});
const write = (files: Record<string, string>) => {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(work.path, path)), { recursive: true });
    writeFileSync(join(work.path, path), text);
  }
};
async function runPreset() {
  const [command] = requiredPresetCommands(verificationPresets(work.path), work.path);
  if (!command) throw new Error("no preset command");
  const run = await runVerificationCommand(command, {
    root: work.path,
    logDir: join(state.path, "logs"),
    resultsDir: join(state.path, "results"),
    env: {
      ...pythonTestEnv(),
      GOFLAGS: "-mod=mod",
      CARGO_TARGET_DIR: join(state.path, "target"),
    },
  });
  return { command, run };
}

describe("preset commands with structured results", () => {
  test("without a root the required commands are A3S's, unchanged", () => {
    write({ "go.mod": "module example.com/m\n\ngo 1.24\n" });
    expect(requiredPresetCommands(verificationPresets(work.path)).map((c) => c.command)).toEqual([
      "go test ./...",
    ]);
  });

  test("go: go test -json ./..., read from the output", async () => {
    write({
      "go.mod": "module example.com/m\n\ngo 1.24\n",
      "m_test.go":
        'package m\n\nimport "testing"\n\nfunc TestOk(t *testing.T) {}\n\nfunc TestBad(t *testing.T) { t.Fatal("bad") }\n',
    });
    const { command, run } = await runPreset();
    expect(command.command).toBe("go test -json ./...");
    expect(command.results).toEqual({ format: "go_test_json", source: "output" });
    expect(run.check.status).toBe("failed");
    expect(run.check.tests).toEqual({ passed: 1, failed: 1, skipped: 0, errored: 0 });
    expect(run.check.failing_tests).toEqual(["example.com/m::TestBad"]);
  });

  test("python: <python> -m pytest --junitxml={results}", async () => {
    write({
      "pyproject.toml": "[tool.pytest.ini_options]\n",
      "tests/test_m.py": "def test_ok():\n    pass\n\n\ndef test_bad():\n    assert False\n",
    });
    const { command, run } = await runPreset();
    expect(command.command).toMatch(
      /^(python3|python|\S*\/\.venv\/bin\/python) -m pytest --junitxml=\{results\}$/,
    );
    expect(run.check.tests).toEqual({ passed: 1, failed: 1, skipped: 0, errored: 0 });
    expect(run.check.failing_tests).toEqual(["pytest > tests.test_m::test_bad"]);
  });

  test("node: npm test -- with node's junit reporter when the script is node --test", async () => {
    write({
      "package.json": JSON.stringify({
        name: "m",
        private: true,
        scripts: { test: "node --test" },
      }),
      "m.test.js":
        'const { test } = require("node:test");\ntest("ok", () => {});\ntest("bad", () => { throw new Error("bad"); });\n',
    });
    const { command, run } = await runPreset();
    expect(command.command).toBe(
      "npm test -- --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={results}",
    );
    expect(run.check.tests).toEqual({ passed: 1, failed: 1, skipped: 0, errored: 0 });
    expect(run.check.failing_tests).toEqual(["test::bad"]);
    expect(run.execution.output).toContain("✖ bad");
  });

  test("node: a node --test script that names its files gets the reporters through NODE_OPTIONS (appended flags would be read as files): junit results name the failing test", async () => {
    write({
      "package.json": JSON.stringify({
        name: "m",
        private: true,
        scripts: { test: "node --test test/" },
      }),
      "test/m.test.js":
        'const { test } = require("node:test");\nconst assert = require("node:assert");\ntest("ok", () => {});\ntest("bad", () => assert.strictEqual(1, 2));\n',
      "test/n.test.js": 'const { test } = require("node:test");\ntest("also ok", () => {});\n',
    });
    const { command, run } = await runPreset();
    expect(command.command).toBe(
      'NODE_OPTIONS="${NODE_OPTIONS:-} --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={results}" npm test',
    );
    expect(command.results).toEqual({ format: "junit" });
    expect(run.check.status).toBe("failed");
    expect(run.execution.output).not.toContain("Could not find");
    // Both files' tests are in the results: the per-file runs report to the one runner.
    expect(run.check.tests).toEqual({ passed: 2, failed: 1, skipped: 0, errored: 0 });
    expect(run.check.failing_tests).toEqual(["test::bad"]);
    expect(nodeTestTakesFlags("node --test")).toBe(true);
    expect(nodeTestTakesFlags("node --test --test-concurrency=1")).toBe(true);
    expect(nodeTestTakesFlags("node --test test/")).toBe(false);
    expect(nodeTestTakesFlags("node --test && eslint .")).toBe(false);
    expect(nodeTestNamesFiles("node --test test/")).toBe(true);
    expect(nodeTestNamesFiles("node --test --test-concurrency=1 test/ lib/")).toBe(true);
    expect(nodeTestNamesFiles("node --test")).toBe(false);
    expect(nodeTestNamesFiles('node --test "test/*.js"')).toBe(false);
    expect(nodeTestNamesFiles("node --test test/ && eslint .")).toBe(false);
  });

  test("node: another test script keeps npm test without results", () => {
    write({
      "package.json": JSON.stringify({ name: "m", private: true, scripts: { test: "mocha" } }),
    });
    const [command] = requiredPresetCommands(verificationPresets(work.path), work.path);
    expect(command).toEqual({
      id: "node:test",
      kind: "test",
      description: "Run JavaScript tests",
      command: "npm test",
      required: true,
      expect_exit: 0,
    });
  });

  test("rust: cargo test --no-fail-fast, libtest text read from the output: a failing unit test hides neither the integration tests nor the doctests (issue 34 item 3)", async () => {
    write({
      "Cargo.toml": '[package]\nname = "m"\nversion = "0.1.0"\nedition = "2021"\n',
      "src/lib.rs":
        '/// ```\n/// assert_eq!(m::one(), 1);\n/// ```\npub fn one() -> i32 { 1 }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn ok() {}\n    #[test]\n    fn bad() { assert_eq!(super::one(), 2, "one is two"); }\n}\n',
      "tests/it.rs": "#[test]\nfn also_bad() { assert_eq!(m::one() + 1, 3); }\n",
    });
    const presets = verificationPresets(work.path);
    const test = requiredPresetCommands(presets, work.path).find((c) => c.id === "rust:test");
    expect(test?.command).toBe("cargo test --no-fail-fast");
    expect(test?.results).toEqual({ format: "libtest", source: "output" });
    if (!test) return;
    const run = await runVerificationCommand(
      { ...test, timeout_ms: 120_000 },
      {
        root: work.path,
        logDir: join(state.path, "logs"),
        resultsDir: join(state.path, "results"),
        env: { ...process.env, RUST_BACKTRACE: "0", CARGO_TARGET_DIR: join(state.path, "target") },
      },
    );
    expect(run.check.status).toBe("failed");
    // Plain `cargo test` stops after the first failing binary: one failing test, no doctest.
    expect(run.check.failing_tests).toEqual([
      "unittests src/lib.rs::tests::bad",
      "tests/it.rs::also_bad",
    ]);
    expect(run.check.tests).toEqual({ passed: 2, failed: 2, skipped: 0, errored: 0 });
  });
});
