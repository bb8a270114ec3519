import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";
import { formatGroupScores, groupScores } from "../mutation/groups.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../..");
const script = path.join(repoRoot, "scripts/mutation-groups.ts");
const tsx = path.join(repoRoot, "node_modules/.bin/tsx");
const dir = mkdtempSync(path.join(tmpdir(), "turngate-mutation-groups-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mutants = (...statuses: string[]) => ({ mutants: statuses.map((status) => ({ status })) });
const report = {
  files: {
    "packages/core/src/gate/decide.ts": mutants("Killed", "Killed", "Timeout", "Survived"),
    "packages/core\\src\\reports\\shell-words.ts": mutants("Killed", "NoCoverage", "Ignored"),
    "packages/node/src/workspace/diff/diff.ts": mutants("Killed", "Killed", "CompileError"),
  },
};
const groups = [
  { name: "gate", prefixes: ["packages/core/src/gate/"], break: 75 },
  { name: "reports", prefixes: ["packages/core/src/reports/"], break: 60 },
  { name: "observer", prefixes: ["packages/node/src/workspace/"], break: 100 },
  { name: "evidence", prefixes: ["packages/core/src/evidence/"], break: 10 },
];

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(tsx, [script, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("per-module mutation scores (scripts/mutation-groups.ts)", () => {
  test("each group is scored on its own files; ignored and compile errors are left out", () => {
    const scores = groupScores(report, groups);
    expect(scores.map((s) => [s.name, s.score, s.failed])).toEqual([
      ["gate", 75, false],
      ["reports", 50, true],
      ["observer", 100, false],
      ["evidence", null, true],
    ]);
    expect(scores[1]).toEqual({
      name: "reports",
      killed: 1,
      timeout: 0,
      survived: 0,
      noCoverage: 1,
      equivalent: 0,
      other: 1,
      score: 50,
      break: 60,
      failed: true,
    });
    expect(formatGroupScores(scores)).toBe(
      [
        "gate: 75.00% (break 75) killed 2, timeout 1, survived 1, no coverage 0, equivalent 0",
        "reports: 50.00% (break 60) killed 1, timeout 0, survived 0, no coverage 1, equivalent 0 — BELOW BREAK",
        "observer: 100.00% (break 100) killed 2, timeout 0, survived 0, no coverage 0, equivalent 0",
        "evidence: n/a (break 10) killed 0, timeout 0, survived 0, no coverage 0, equivalent 0 — NO MUTANTS",
      ].join("\n"),
    );
  });

  test("a break outside 0..100 is refused naming the group", () => {
    expect(() => groupScores(report, [{ name: "gate", prefixes: [], break: 101 }])).toThrow(
      'mutation group "gate": break must be a number from 0 to 100',
    );
  });

  test("the CLI exits 1 when a group is below its break, 0 when all pass, 2 on an unreadable file", async () => {
    const reportFile = path.join(dir, "mutation.json");
    writeFileSync(reportFile, JSON.stringify(report));
    const failing = path.join(dir, "failing.json");
    writeFileSync(failing, JSON.stringify({ groups: groups.slice(0, 2) }));
    const passing = path.join(dir, "passing.json");
    writeFileSync(passing, JSON.stringify({ groups: [groups[0], groups[2]] }));
    const none = path.join(dir, "no-equivalents");
    expect(await run(["--report", reportFile, "--groups", failing, "--equivalents", none])).toEqual(
      {
        code: 1,
        stdout:
          "gate: 75.00% (break 75) killed 2, timeout 1, survived 1, no coverage 0, equivalent 0\n" +
          "reports: 50.00% (break 60) killed 1, timeout 0, survived 0, no coverage 1, equivalent 0 — BELOW BREAK\n" +
          "unlisted survivors (2): kill each with a test or list it in stryker/equivalent/\n" +
          "  packages/core/src/gate/decide.ts:0:0 ? → `` (Survived)\n" +
          "  packages/core/src/reports/shell-words.ts:0:0 ? → `` (NoCoverage)\n",
        stderr: "",
      },
    );
    expect(
      await run([
        "--report",
        reportFile,
        "--groups",
        passing,
        "--equivalents",
        none,
        "--only",
        "packages/node/",
      ]),
    ).toEqual({
      code: 0,
      stdout:
        "observer: 100.00% (break 100) killed 2, timeout 0, survived 0, no coverage 0, equivalent 0\n",
      stderr: "",
    });
    const missing = await run(["--report", path.join(dir, "absent.json"), "--groups", passing]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^mutation-groups: ENOENT: no such file or directory/);
  });
});
