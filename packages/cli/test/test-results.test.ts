/**
 * `turngate run` with a check that declares structured results (issue #16): the text report
 * names the failing tests instead of the output's tail, and `--json` carries the counts.
 * Real node test runner, real git repository.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { cli, gitProject } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
// Keep the user-level test history of these turns out of the real home folder.
let stateHome = "";
const saved = process.env.TURNGATE_STATE_HOME;
beforeAll(() => {
  stateHome = mkdtempSync(join(tmpdir(), "turngate-state-home-"));
  process.env.TURNGATE_STATE_HOME = stateHome;
});
afterAll(() => {
  if (saved === undefined) delete process.env.TURNGATE_STATE_HOME;
  else process.env.TURNGATE_STATE_HOME = saved;
  rmSync(stateHome, { recursive: true, force: true });
});

const CHECK =
  "node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={results} math.test.js";
const PROJECT = {
  "turngate.config.json": JSON.stringify({
    checks: [{ id: "unit", kind: "test", command: CHECK, results: { format: "junit" } }],
  }),
  "math.js": "exports.add = (a, b) => a + b;\n",
  "math.test.js": [
    'const { describe, test } = require("node:test");',
    'const assert = require("node:assert");',
    'const { add } = require("./math.js");',
    'describe("add", () => {',
    '  test("adds small numbers", () => assert.strictEqual(add(1, 2), 3));',
    '  test("adds größe", () => assert.strictEqual(add(2, 2), 4));',
    "});",
    'test("zero", () => assert.strictEqual(add(0, 0), 0));',
    "",
  ].join("\n"),
};
const BREAK = `require("node:fs").writeFileSync("math.js", "exports.add = (a, b) => a - b;\\n");`;
const FIX_COMMENT = `require("node:fs").appendFileSync("math.js", "// fine\\n");`;

describe("turngate run with structured test results", () => {
  test("a failing run names the failing tests instead of the output's tail", async () => {
    const p = gitProject(PROJECT);
    cleanups.push(p.cleanup);
    const result = await cli(["run", "--", "node", p.agent("break.js", BREAK)], p.root);
    expect(result.code).toBe(2);
    const lines = result.stdout.split("\n");
    const at = lines.findIndex((l) => l.startsWith("failed (assertion): unit:"));
    expect(lines[at]).toBe(`failed (assertion): unit: exit code 1, expected 0: ${CHECK}`);
    expect(lines[at + 1]).toMatch(
      /^ {2}failing tests \(2 of 3; full log: \.turngate\/logs\/[0-9a-f]{64}\.log\):$/,
    );
    // Each failing test with its assertion (issue 34), then the output's last lines.
    expect(lines.slice(at + 2, at + 6)).toEqual([
      "    ✗ add > test::adds small numbers",
      "        Expected values to be strictly equal:-1 !== 3",
      "    ✗ add > test::adds größe",
      "        Expected values to be strictly equal:0 !== 4",
    ]);
    expect(lines[at + 6]).toMatch(/^ {2}last \d+ lines:$/);
    // `show` and `--json` say the same as `run` (issue 34 item 1: every channel).
    const digest: string[] = [];
    for (const line of lines.slice(at + 1)) {
      if (!line.startsWith("  ")) break;
      digest.push(line.slice(2));
    }
    const shown = (await cli(["show", "last"], p.root)).stdout.split("\n");
    const from = shown.findIndex((l) => l.startsWith("      failing tests ("));
    expect(shown.slice(from, from + digest.length).map((l) => l.slice(6))).toEqual(digest);
    const view = JSON.parse((await cli(["show", "last", "--json"], p.root)).stdout);
    expect(view.checks[0].failure_digest).toEqual(digest);
  });

  test("--json carries the counts and the failing test ids; a passing run is verified", async () => {
    const p = gitProject(PROJECT);
    cleanups.push(p.cleanup);
    const failing = JSON.parse(
      (await cli(["run", "--json", "--", "node", p.agent("break.js", BREAK)], p.root)).stdout,
    );
    expect(failing.checks[0].tests).toEqual({ passed: 1, failed: 2, skipped: 0, errored: 0 });
    expect(failing.checks[0].failing_tests).toEqual([
      "add > test::adds small numbers",
      "add > test::adds größe",
    ]);
    const q = gitProject(PROJECT);
    cleanups.push(q.cleanup);
    const passing = JSON.parse(
      (await cli(["run", "--json", "--", "node", q.agent("ok.js", FIX_COMMENT)], q.root)).stdout,
    );
    expect(passing.verdict).toBe("verified");
    expect(passing.checks[0].tests).toEqual({ passed: 3, failed: 0, skipped: 0, errored: 0 });
    expect(passing.checks[0].failing_tests).toEqual([]);
  });
});
