/**
 * SLOW (the first run installs tape, nyc, vitest, jest and mocha from npm into a cache under
 * the OS temp folder, about a minute; later runs reuse it). Issue 34 item 2: a project whose
 * `npm test` runs one of these real runners gets its failing tests named, each with its
 * assertion, with zero config — vitest and jest through their JSON reporters chosen by the
 * preset, tape (behind nyc, which prints its coverage table after the failures) and mocha
 * read from the output by core's failure digest.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { failureDigest } from "@turngate/core";
import { afterEach, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { verificationPresets } from "../../src/presets/detect.js";
import { requiredPresetCommands } from "../../src/presets/required.js";
import { runVerificationCommand } from "../../src/runner/verify-command.js";
import { tempDir } from "../runner/helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(600_000), hookTimeout: testTimeout(600_000) });

const RUNNERS = ["tape@5.10.2", "nyc@18.0.0", "vitest@4.1.12", "jest@30.5.2", "mocha@12.0.3"];
const CACHE = join(tmpdir(), "turngate-js-runners-v1");

beforeAll(() => {
  if (RUNNERS.every((r) => existsSync(join(CACHE, "node_modules", r.split("@")[0] as string))))
    return;
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(join(CACHE, "package.json"), '{"name":"runners","private":true}\n');
  execFileSync("npm", ["i", "--no-audit", "--no-fund", "--ignore-scripts", ...RUNNERS], {
    cwd: CACHE,
    stdio: "ignore",
  });
});

let work: { path: string; cleanup: () => Promise<void> };
let state: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir("js-runner-ws");
  state = await tempDir("js-runner-state");
});
afterEach(async () => {
  await work.cleanup();
  await state.cleanup();
});

function project(scripts: Record<string, string>, files: Record<string, string>) {
  const all = {
    "package.json": JSON.stringify({ name: "m", private: true, scripts }),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(work.path, path)), { recursive: true });
    writeFileSync(join(work.path, path), text);
  }
  symlinkSync(join(CACHE, "node_modules"), join(work.path, "node_modules"));
}

async function runTest() {
  const command = requiredPresetCommands(verificationPresets(work.path), work.path).find(
    (c) => c.id === "node:test",
  );
  if (!command) throw new Error("no node:test preset command");
  const run = await runVerificationCommand(
    { ...command, timeout_ms: 180_000 },
    {
      root: work.path,
      logDir: join(state.path, "logs"),
      resultsDir: join(state.path, "results"),
      env: { ...process.env, CI: "1", NO_COLOR: "1", FORCE_COLOR: "0" },
    },
  );
  const digest = failureDigest({ results: run.testResults ?? null, output: run.execution.output });
  return { command, run, digest, text: digest.lines.join("\n") };
}

const SUB = "module.exports = function add(a, b) { return a - b; };\n";

describe("real JavaScript runners name their failing tests with the assertion (slow)", () => {
  test("tape behind nyc (minimist's scripts): read from the TAP in the output, though the coverage table comes last", async () => {
    project(
      { "tests-only": "nyc tape 'test/**/*.js'", test: "npm run tests-only" },
      {
        "add.js": SUB,
        "test/add.js": [
          "var test = require('tape');",
          "var add = require('../add');",
          "test('add numbers', function (t) {",
          "  t.equal(add(1, 2), 3, 'one plus two');",
          "  t.end();",
          "});",
          "test('zero', function (t) { t.equal(add(0, 0), 0, 'zero'); t.end(); });",
          "",
        ].join("\n"),
      },
    );
    const { command, run, digest, text } = await runTest();
    expect(command.command).toBe("npm test");
    expect(run.check.status).toBe("failed");
    // The old text: the output's last 15 lines are nyc's table, not the failure.
    const tail = run.execution.output.trimEnd().split("\n").slice(-15).join("\n");
    expect(tail).not.toContain("one plus two");
    expect(digest.source).toBe("output");
    expect(digest.lines.slice(0, 5)).toEqual([
      "failing tests (1 of 2):",
      "  ✗ add numbers::one plus two",
      "      operator: equal",
      "      expected: 3",
      "      actual: -1",
    ]);
    expect(text).toContain("% Stmts");
  });

  test("vitest run: the preset adds the JSON reporter; the message says expected and got", async () => {
    project(
      { test: "vitest run" },
      {
        "add.test.mjs": [
          'import { describe, expect, it } from "vitest";',
          "const add = (a, b) => a - b;",
          'describe("add", () => {',
          '  it("adds one and two", () => { expect(add(1, 2)).toBe(3); });',
          '  it("adds zeros", () => { expect(add(0, 0)).toBe(0); });',
          "});",
          "",
        ].join("\n"),
      },
    );
    const { command, run, digest } = await runTest();
    expect(command.command).toBe(
      "npm test -- --reporter=default --reporter=json --outputFile.json={results}",
    );
    expect(command.results).toEqual({ format: "jest_json" });
    expect(run.check.tests).toEqual({ passed: 1, failed: 1, skipped: 0, errored: 0 });
    expect(digest.source).toBe("results");
    expect(digest.lines[1]).toMatch(/^ {2}✗ \S*add\.test\.mjs::add > adds one and two$/);
    expect(digest.lines[2]).toBe("      AssertionError: expected -1 to be 3 // Object.is equality");
  });

  test("jest: the preset adds --json --outputFile; the message says expected and received", async () => {
    project(
      { test: "jest" },
      {
        "add.test.js": [
          "const add = (a, b) => a - b;",
          'describe("add", () => {',
          '  test("adds one and two", () => { expect(add(1, 2)).toBe(3); });',
          '  test("adds zeros", () => { expect(add(0, 0)).toBe(0); });',
          "});",
          "",
        ].join("\n"),
      },
    );
    const { command, run, digest } = await runTest();
    expect(command.command).toBe("npm test -- --json --outputFile={results}");
    expect(run.check.tests).toEqual({ passed: 1, failed: 1, skipped: 0, errored: 0 });
    expect(digest.lines[1]).toMatch(/^ {2}✗ \S*add\.test\.js::add > adds one and two$/);
    expect(digest.lines.slice(2, 5)).toEqual([
      "      Error: expect(received).toBe(expected) // Object.is equality",
      "      Expected: 3",
      "      Received: -1",
    ]);
  });

  test("mocha: its default report is read from the output", async () => {
    project(
      { test: "mocha" },
      {
        "test/add.spec.js": [
          'const assert = require("node:assert");',
          "const add = (a, b) => a - b;",
          'describe("add", function () {',
          '  it("adds one and two", function () { assert.strictEqual(add(1, 2), 3); });',
          '  it("adds zeros", function () { assert.strictEqual(add(0, 0), 0); });',
          "});",
          "",
        ].join("\n"),
      },
    );
    const { command, run, digest } = await runTest();
    expect(command.command).toBe("npm test");
    expect(run.check.status).toBe("failed");
    expect(digest.source).toBe("output");
    expect(digest.lines.slice(0, 4)).toEqual([
      "failing tests (1):",
      "  ✗ add > adds one and two",
      "      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
      "      -1 !== 3",
    ]);
  });
});
