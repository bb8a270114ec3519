/**
 * User-facing findings from QA on real projects: default output locations for common report
 * names, hints that stay right on the next turn, help text and exit codes. Each test runs the
 * CLI on a real temporary git repository with real processes.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { cli, gitProject, UNSANDBOXED_LINE } from "./helpers.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
function project(files: Record<string, string>) {
  const p = gitProject(files);
  cleanups.push(p.cleanup);
  return p;
}
const WRITE_42 = `require("node:fs").writeFileSync("value.txt", "42\\n");`;

describe("QA findings: default output locations", () => {
  test("P1: checks writing report.xml, coverage.xml, coverage.txt and test-results/ end verified; they are check outputs", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const check =
      "echo r > report.xml && echo c > coverage.xml && echo t > coverage.txt && mkdir -p test-results && echo j > test-results/results.xml";
    // Check outputs are the in-place model's (docs/design.md §3a).
    const result = await cli(
      ["run", "--isolation", "in-place", "--check", check, "--", "node", agent],
      p.root,
    );
    const digest = sha256(`workspace|value.txt|${sha256("42\n")}`);
    expect(result.stdout).toBe(
      [
        "changed: 1 path",
        "  modified value.txt",
        "affected: 1 target: file:value.txt (unmapped)",
        "checks: 1 passed",
        `verified: effect digest ${digest}`,
        "check outputs: 4 paths (ignored or output locations, not in the digest): coverage.txt 1, coverage.xml 1, report.xml 1, test-results/ 1",
        `proof: .turngate/proofs/${digest}.json`,
        UNSANDBOXED_LINE,
        "",
      ].join("\n"),
    );
    expect(result.code).toBe(0);
  });

  test("P1: turngate run --help lists the new default output locations", async () => {
    const p = project({ "value.txt": "41\n" });
    const help = await cli(["run", "--help"], p.root);
    const text = help.stdout.replace(/\n {2,}/g, " ");
    for (const name of [
      "test-results/",
      "report.xml",
      "coverage.xml",
      "coverage.txt",
      "junit*.xml",
    ]) {
      expect(text).toContain(` ${name},`);
    }
  });
});

describe("QA findings: hints that stay right on the next turn", () => {
  test("P2: an untracked file the checks rewrite on the next turn keeps the outputs hint", async () => {
    const p = project({ "value.txt": "41\n" });
    const check =
      'node -e \'require("fs").writeFileSync("out.log", String(process.hrtime.bigint()))\'';
    const first = await cli(
      [
        "run",
        "--json",
        "--isolation",
        "in-place",
        "--check",
        check,
        "--",
        "node",
        p.agent("a1.js", WRITE_42),
      ],
      p.root,
    );
    expect(JSON.parse(first.stdout).binding.hint).toBe(
      'the checks created out.log: add "out.log" to "outputs" in turngate.config.json, or to .gitignore',
    );
    const again = p.agent("a2.js", `require("node:fs").writeFileSync("value.txt", "43\\n");`);
    const second = await cli(
      ["run", "--isolation", "in-place", "--check", check, "--", "node", again],
      p.root,
    );
    expect(second.code).toBe(2);
    expect(second.stdout.split("\n")).toContain(
      '  what to do: the checks rewrote out.log, which git does not track: add "out.log" to "outputs" in turngate.config.json, or to .gitignore',
    );
  });
});

describe("QA findings: messages that say what to do", () => {
  test("P5: turngate bridge --help marks --stdio as required", async () => {
    const p = project({ "value.txt": "41\n" });
    const help = await cli(["bridge", "--help"], p.root);
    expect(help.stdout.split("\n")).toContain(
      "  --stdio     required: serve on stdin/stdout (the only transport)",
    );
  });

  test("P6: an agent program that is not on PATH: the error says so and where to look", async () => {
    const p = project({ "value.txt": "41\n" });
    const result = await cli(["run", "--check", "true", "--", "nosuchagent", "--flag"], p.root);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "turngate: error: agent command could not start: nosuchagent --flag: nosuchagent not found on PATH; check the command after -- [agent_spawn_failed]\n",
    );
  });
});

describe("QA findings: exit codes and help", () => {
  test("P7: turngate proof without a subcommand prints its help and a usage error line, exit 1", async () => {
    const p = project({ "value.txt": "41\n" });
    const result = await cli(["proof"], p.root);
    expect(result.code).toBe(1);
    expect(result.stderr.startsWith("Usage: turngate proof [options] [command]\n")).toBe(true);
    expect(
      result.stderr.endsWith(
        "turngate: error: missing command: one of verify, public-key (see turngate proof --help) [usage]\n",
      ),
    ).toBe(true);
  });
});

describe("QA findings: help without noise", () => {
  test("P8: run --help and verify --help show no (default: []) for --check and --waive; the flags still repeat", async () => {
    const p = project({ "value.txt": "41\n" });
    for (const command of ["run", "verify"]) {
      const help = (await cli([command, "--help"], p.root)).stdout;
      expect(help).toContain("--check <cmd>");
      expect(help).toContain("--waive <digest:reason>");
      expect(help).not.toContain("(default: [])");
    }
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(
      ["run", "--json", "--check", "true", "--check", "exit 0", "--", "node", agent],
      p.root,
    );
    expect(JSON.parse(result.stdout).checks.map((c: { command: string }) => c.command)).toEqual([
      "true",
      "exit 0",
    ]);
  });
});

describe("QA findings: gc", () => {
  test("P9: gc --state-dir naming a folder that does not exist is an error that names it, exit 1", async () => {
    const p = project({ "value.txt": "41\n" });
    const missing = join(p.agents, "typo");
    const result = await cli(["gc", "--state-dir", missing], p.root);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr: `turngate: error: --state-dir ${missing}: the folder ${missing} does not exist; check the path (the default is .turngate/ in the workspace root) [state_dir_missing]\n`,
    });
    expect(existsSync(missing)).toBe(false);
  });
});
