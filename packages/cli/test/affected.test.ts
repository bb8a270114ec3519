/**
 * `turngate affected` (issue 15 item 5) on a real temporary git repository: a pnpm
 * workspace of three packages where c depends on b depends on a.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { affectedLine } from "../src/turn-affected.js";
import { cli, gitProject } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function workspace() {
  const p = gitProject({
    "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
    "package.json": JSON.stringify({ name: "root", private: true }),
    "babel.config.json": "{}\n",
    "packages/a/package.json": JSON.stringify({ name: "a" }),
    "packages/a/src/index.ts": "export const a = 1;\n",
    "packages/b/package.json": JSON.stringify({ name: "b", dependencies: { a: "workspace:*" } }),
    "packages/b/src/index.ts": 'import { a } from "a";\nexport const b = a;\n',
    "packages/c/package.json": JSON.stringify({ name: "c", dependencies: { b: "workspace:*" } }),
    "packages/c/src/index.ts": 'import { b } from "b";\nexport const c = b;\n',
  });
  cleanups.push(p.cleanup);
  return p;
}

describe("turngate affected", () => {
  test("a change in a: a direct, b and c dependent with via (the docs/facts.md sample)", async () => {
    const p = workspace();
    p.write("packages/a/src/index.ts", "export const a = 2;\n");
    const r = await cli(["affected"], p.root);
    expect(r).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        "affected targets (1 changed file against HEAD)",
        "  TARGET  REASON     WHY",
        "  pnpm:a  direct     packages/a/src/index.ts",
        "  pnpm:b  dependent  via pnpm:a",
        "  pnpm:c  dependent  via pnpm:a → pnpm:b",
        "",
      ].join("\n"),
    });
  });

  test("the root babel.config.json: all three, global_file; --json prints the fact", async () => {
    const p = workspace();
    p.write("babel.config.json", '{"presets": []}\n');
    const r = await cli(["affected", "--json"], p.root);
    expect(r.code).toBe(0);
    const fact = JSON.parse(r.stdout);
    expect(fact.targets.map((t: { id: string; reason: string }) => `${t.id} ${t.reason}`)).toEqual([
      "pnpm:a global_file",
      "pnpm:b global_file",
      "pnpm:c global_file",
    ]);
    expect(fact.run_all_reasons).toEqual(["global_file: babel.config.json"]);
  });

  test("a renamed file counts by its old and new path; an untracked data file is unmapped", async () => {
    const p = workspace();
    renameSync(join(p.root, "packages/b/src/index.ts"), join(p.root, "packages/b/src/main.ts"));
    execFileSync("git", ["add", "-A"], { cwd: p.root });
    p.write("notes/data.csv", "x,y\n");
    const r = await cli(["affected", "--base", "HEAD", "--json"], p.root);
    const fact = JSON.parse(r.stdout);
    expect(fact.changed_paths).toEqual([
      "packages/b/src/index.ts",
      "packages/b/src/main.ts",
      "notes/data.csv",
    ]);
    expect(fact.targets.map((t: { id: string; reason: string }) => `${t.id} ${t.reason}`)).toEqual([
      "pnpm:b direct",
      "pnpm:c dependent",
      "file:notes/data.csv unmapped",
    ]);
  });

  test("a ref that does not exist is an error that says what to check", async () => {
    const p = workspace();
    const r = await cli(["affected", "--base", "no-such-ref"], p.root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot diff the work tree against no-such-ref");
    expect(r.stderr).toContain("git rev-parse no-such-ref");
  });
});

describe("turngate run / verify: the turn's affected targets", () => {
  test("run prints an affected line and --json carries the fact; the view has them", async () => {
    const p = workspace();
    const agent = p.agent(
      "edit-a.mjs",
      `import { writeFileSync } from "node:fs";\nwriteFileSync("packages/a/src/index.ts", "export const a = 3;\\n");\n`,
    );
    const r = await cli(["run", "--check", "true", "--", "node", agent], p.root);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "changed: 1 path",
      "  modified packages/a/src/index.ts",
      "affected: 3 targets: pnpm:a (direct), pnpm:b (dependent), pnpm:c (dependent)",
    ]);
    const shown = await cli(["show", "last", "--json"], p.root);
    expect(JSON.parse(shown.stdout).affected_targets).toEqual([
      { target: "pnpm:a", reason: "direct" },
      { target: "pnpm:b", reason: "dependent", via: ["pnpm:a"] },
      { target: "pnpm:c", reason: "dependent", via: ["pnpm:a", "pnpm:b"] },
    ]);
    const j = await cli(["run", "--json", "--check", "true", "--", "node", agent], p.root);
    // Nothing changed this time (the file already holds those bytes): no affected targets.
    expect(JSON.parse(j.stdout).affected_targets).toBeNull();
  });

  test("in place, the refreshed code index is written after the checks, not while they run (a turn ended incomplete: its observer caught the index's temporary file in .turngate/)", async () => {
    const p = workspace();
    const agent = p.agent(
      "edit-a.mjs",
      `import { writeFileSync } from "node:fs";\nwriteFileSync("packages/a/src/index.ts", "export const a = 4;\\n");\n`,
    );
    // The check runs for a second, then notes when it ended (outside the workspace).
    const ended = join(p.agents, "check-ended");
    const check = `sleep 1 && node -e 'require("fs").writeFileSync(process.argv[1], String(Date.now()))' ${ended}`;
    const r = await cli(
      ["run", "--isolation", "in-place", "--check", check, "--", "node", agent],
      p.root,
    );
    expect(r.stdout).toMatch(/^verified: effect digest [0-9a-f]{64}$/m);
    expect(r.code).toBe(0);
    const index = join(p.root, ".turngate/code-index.json");
    expect(readFileSync(index, "utf8")).toContain("packages/a/src/index.ts");
    expect(statSync(index).mtimeMs).toBeGreaterThanOrEqual(Number(readFileSync(ended, "utf8")) - 5);
  });

  test("verify --json: the fact of the changes since the baseline; the root babel config: all, global_file", async () => {
    const p = workspace();
    expect((await cli(["baseline"], p.root)).code).toBe(0);
    p.write("babel.config.json", '{"presets": []}\n');
    const r = await cli(["verify", "--json", "--check", "true"], p.root);
    expect(r.code).toBe(0);
    const fact = JSON.parse(r.stdout).affected_targets;
    expect(fact.changed_paths).toEqual(["babel.config.json"]);
    expect(fact.targets.map((t: { id: string; reason: string }) => `${t.id} ${t.reason}`)).toEqual([
      "pnpm:a global_file",
      "pnpm:b global_file",
      "pnpm:c global_file",
    ]);
    expect(fact.run_all).toBe(true);
    const text = await cli(["verify", "--check", "true"], p.root);
    expect(text.stdout.split("\n").find((l) => l.startsWith("affected:"))).toBe(
      "affected: 3 targets: pnpm:a (global_file), pnpm:b (global_file), pnpm:c (global_file)",
    );
  });

  test("a code index that cannot be saved: the targets are still shown, one line says so, the verdict unchanged; targets that cannot be computed are one line", async () => {
    const p = workspace();
    // The code index cannot be saved: its file is a folder.
    mkdirSync(join(p.root, ".turngate/code-index.json/x"), { recursive: true });
    const agent = p.agent(
      "edit-a.mjs",
      `import { writeFileSync } from "node:fs";\nwriteFileSync("packages/a/src/index.ts", "export const a = 4;\\n");\n`,
    );
    const r = await cli(["run", "--check", "true", "--", "node", agent], p.root);
    expect(r.code).toBe(0);
    const line = r.stdout.split("\n").find((l) => l.startsWith("affected:"));
    expect(line).toBe(
      "affected: 3 targets: pnpm:a (direct), pnpm:b (dependent), pnpm:c (dependent)",
    );
    expect(r.stderr).toMatch(
      /^turngate: the code index was not saved \(.*code-index\.json.*\); it is built again next turn$/m,
    );
    expect(r.stdout).toContain("\nchecks: 1 passed\nverified: effect digest ");
    expect(affectedLine({ error: "EISDIR: illegal operation on a directory\n" })).toBe(
      "affected: not computed (EISDIR: illegal operation on a directory\\n); the verdict does not depend on it",
    );
  });

  test("verify uses the affected configuration captured in the baseline, not one edited since", async () => {
    const p = workspace();
    p.write("turngate.config.json", JSON.stringify({ checks: [{ command: "true" }] }));
    execFileSync("git", ["add", "-A"], { cwd: p.root });
    execFileSync("git", ["commit", "-qm", "config"], { cwd: p.root });
    expect((await cli(["baseline"], p.root)).code).toBe(0);
    p.write(
      "turngate.config.json",
      JSON.stringify({
        checks: [{ command: "true" }],
        affected_global_files: ["notes/**"],
        checks_from_affected: true,
      }),
    );
    p.write("notes/data.csv", "x\n");
    const v = await cli(["verify", "--json"], p.root);
    expect(v.stderr).toContain(
      "differs from the one captured by `turngate baseline` (affected_global_files, checks_from_affected); verify uses the captured configuration",
    );
    const fact = JSON.parse(v.stdout).affected_targets;
    // The edited config is itself a global file; notes/** (added since) is not applied.
    expect(fact.targets.map((t: { id: string; reason: string }) => `${t.id} ${t.reason}`)).toEqual([
      "pnpm:a global_file",
      "pnpm:b global_file",
      "pnpm:c global_file",
      "file:notes/data.csv unmapped",
    ]);
  });
});

describe("checks_from_affected: a configured check runs only if it maps to an affected target", () => {
  function narrowed(extra: Record<string, unknown> = {}) {
    const p = workspace();
    p.write(
      "turngate.config.json",
      JSON.stringify({
        checks: [
          { id: "test-a", command: "true", targets: ["pnpm:a"] },
          ...(extra.noUnmapped
            ? [{ id: "test-b", command: "true", targets: ["pnpm:b"] }]
            : [
                { id: "test-c", command: "true", targets: ["pnpm:c"] },
                { id: "lint", command: "true" },
              ]),
        ],
        checks_from_affected: extra.off !== true,
      }),
    );
    execFileSync("git", ["add", "-A"], { cwd: p.root });
    execFileSync("git", ["commit", "-qm", "config"], { cwd: p.root });
    return p;
  }
  const editC = `import { writeFileSync } from "node:fs";\nwriteFileSync("packages/c/src/index.ts", "export const c = 9;\\n");\n`;

  test("a change in c: test-a is skipped with its reason, test-c and the unmapped lint run", async () => {
    const p = narrowed();
    const r = await cli(["run", "--", "node", p.agent("c.mjs", editC)], p.root);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines.slice(2, 5)).toEqual([
      "affected: 1 target: pnpm:c (direct)",
      "checks skipped (checks_from_affected): test-a (none of its targets (pnpm:a) is affected)",
      "checks: 2 passed",
    ]);
  });

  test("every check skipped: no check ran, the turn stays incomplete and says why", async () => {
    const p = narrowed({ noUnmapped: true });
    const r = await cli(["run", "--json", "--", "node", p.agent("c.mjs", editC)], p.root);
    const out = JSON.parse(r.stdout);
    expect({
      code: r.code,
      verdict: out.verdict,
      skipped: out.skipped_checks,
      checks: out.checks,
    }).toEqual({
      code: 2,
      verdict: "incomplete",
      skipped: [
        { id: "test-a", reason: "none of its targets (pnpm:a) is affected" },
        { id: "test-b", reason: "none of its targets (pnpm:b) is affected" },
      ],
      checks: [],
    });
    const text = await cli(
      ["run", "--", "node", p.agent("c2.mjs", editC.replace("9", "8"))],
      p.root,
    );
    expect(text.code).toBe(2);
    expect(text.stdout.split("\n").slice(2, 5)).toEqual([
      "affected: 1 target: pnpm:c (direct)",
      "checks skipped (checks_from_affected): test-a (none of its targets (pnpm:a) is affected); test-b (none of its targets (pnpm:b) is affected)",
      "no check ran: every configured check was skipped as unaffected, so nothing verifies this change and the turn stays incomplete; add a check without targets, or run with checks_from_affected off",
    ]);
  });

  test("a global file changed: every check runs; off by default: every check runs", async () => {
    const p = narrowed();
    const babel = `import { writeFileSync } from "node:fs";\nwriteFileSync("babel.config.json", "{\\"x\\":1}\\n");\n`;
    const r = await cli(["run", "--json", "--", "node", p.agent("g.mjs", babel)], p.root);
    const out = JSON.parse(r.stdout);
    expect({
      code: r.code,
      skipped: out.skipped_checks,
      ran: out.checks.map((c: { id: string }) => c.id),
    }).toEqual({
      code: 0,
      skipped: [],
      ran: ["test-a", "test-c", "lint"],
    });
    const q = narrowed({ off: true });
    const s = await cli(["run", "--json", "--", "node", q.agent("c.mjs", editC)], q.root);
    const o = JSON.parse(s.stdout);
    expect({ skipped: o.skipped_checks, ran: o.checks.map((c: { id: string }) => c.id) }).toEqual({
      skipped: [],
      ran: ["test-a", "test-c", "lint"],
    });
  });

  test("verify: an agent that turns checks_from_affected on after the baseline does not skip a check", async () => {
    const p = narrowed({ off: true });
    expect((await cli(["baseline"], p.root)).code).toBe(0);
    const config = JSON.parse(readFileSync(join(p.root, "turngate.config.json"), "utf8"));
    p.write("turngate.config.json", JSON.stringify({ ...config, checks_from_affected: true }));
    p.write("packages/c/src/index.ts", "export const c = 5;\n");
    const v = await cli(["verify", "--json"], p.root);
    const o = JSON.parse(v.stdout);
    // The edited configuration is itself part of the turn (incomplete); no check was skipped.
    expect({
      code: v.code,
      skipped: o.skipped_checks,
      ran: o.checks.map((c: { id: string }) => c.id),
    }).toEqual({
      code: 2,
      skipped: [],
      ran: ["test-a", "test-c", "lint"],
    });
    expect(v.stderr).toContain("(checks_from_affected); verify uses the captured configuration");
  });

  test("targets is validated: an empty list names the field", async () => {
    const p = workspace();
    p.write("turngate.config.json", JSON.stringify({ checks: [{ command: "true", targets: [] }] }));
    const r = await cli(["run", "--", "true"], p.root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("checks.0.targets");
    expect(r.stderr).toContain("must list at least one target id (or leave targets out)");
  });
});

describe("checks_from_affected with cwd: a check maps to the target whose root holds its folder", () => {
  function withD() {
    const p = workspace();
    p.write("packages/d/package.json", JSON.stringify({ name: "d" }));
    p.write("packages/d/src/index.ts", "export const d = 1;\n");
    p.write("tools/lint.sh", "true\n");
    p.write(
      "turngate.config.json",
      JSON.stringify({
        checks: [
          // Passes only in packages/c: the check really runs in its cwd.
          { id: "test-c", command: 'grep -q \'"name":"c"\' package.json', cwd: "packages/c" },
          { id: "test-d", command: "true", cwd: "./packages/d" },
          { id: "tools", command: "test -f lint.sh", cwd: "tools" },
        ],
        checks_from_affected: true,
      }),
    );
    execFileSync("git", ["add", "-A"], { cwd: p.root });
    execFileSync("git", ["commit", "-qm", "d and config"], { cwd: p.root });
    return p;
  }
  const editA = `import { writeFileSync } from "node:fs";\nwriteFileSync("packages/a/src/index.ts", "export const a = 7;\\n");\n`;

  test("a change in a: the check with cwd packages/c runs (c depends on b on a), the one in packages/d is skipped with its reason, one in no target's root runs", async () => {
    const p = withD();
    const r = await cli(["run", "--json", "--", "node", p.agent("a.mjs", editA)], p.root);
    const out = JSON.parse(r.stdout);
    expect({
      code: r.code,
      verdict: out.verdict,
      skipped: out.skipped_checks,
      ran: out.checks.map((c: { id: string; cwd: string | null; status: string }) => [
        c.id,
        c.cwd,
        c.status,
      ]),
      roots: out.affected_targets.adapters[0].project_roots,
    }).toEqual({
      code: 0,
      verdict: "verified",
      skipped: [
        { id: "test-d", reason: "its cwd packages/d lies in pnpm:d, which is not affected" },
      ],
      ran: [
        ["test-c", "packages/c", "passed"],
        ["tools", "tools", "passed"],
      ],
      roots: {
        "pnpm:a": "packages/a",
        "pnpm:b": "packages/b",
        "pnpm:c": "packages/c",
        "pnpm:d": "packages/d",
      },
    });
    const text = await cli(
      ["run", "--", "node", p.agent("a2.mjs", editA.replace("7", "8"))],
      p.root,
    );
    expect(text.stdout.split("\n").slice(2, 4)).toEqual([
      "affected: 3 targets: pnpm:a (direct), pnpm:b (dependent), pnpm:c (dependent)",
      "checks skipped (checks_from_affected): test-d (its cwd packages/d lies in pnpm:d, which is not affected)",
    ]);
  });

  test("cwd is validated: a .. segment or an absolute path names the field; a symlink out of the workspace is refused when the check runs", async () => {
    const p = workspace();
    for (const [cwd, message] of [
      ["../elsewhere", "must not contain a .. segment (it stays inside the workspace)"],
      ["/tmp", "must be relative to the workspace root, not absolute"],
    ]) {
      p.write("turngate.config.json", JSON.stringify({ checks: [{ command: "true", cwd }] }));
      const r = await cli(["run", "--", "true"], p.root);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("checks.0.cwd");
      expect(r.stderr).toContain(message);
    }
    symlinkSync(tmpdir(), join(p.root, "out"));
    p.write(
      "turngate.config.json",
      JSON.stringify({ checks: [{ id: "esc", command: "true", cwd: "out" }] }),
    );
    const edit = `import { writeFileSync } from "node:fs";\nwriteFileSync("packages/a/src/index.ts", "export const a = 3;\\n");\n`;
    const r = await cli(["run", "--json", "--", "node", p.agent("e.mjs", edit)], p.root);
    const check = JSON.parse(r.stdout).checks[0];
    expect({ code: r.code, id: check.id, status: check.status, cwd: check.cwd }).toEqual({
      code: 2,
      id: "esc",
      status: "failed",
      cwd: "out",
    });
    expect(check.residual_risk).toBe(
      `verification command could not run: cwd "out" resolves outside the workspace (${realpathSync(tmpdir())})`,
    );
  });
});
