/**
 * `turngate run` and what the checks changed (issue 10): the `"rewrite_paths"` config
 * field, the hint of an unbound report in text and `--json`, and the check outputs line.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, test } from "vitest";
import { checkOutputsLine } from "../src/render.js";
import { cli, gitProject, UNSANDBOXED_LINE } from "./helpers.js";
import { inPlaceChecks } from "./in-place.js";

// The in-place model (docs/design.md §3a); see inPlaceChecks.
inPlaceChecks();

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

describe("turngate run: what the checks changed", () => {
  test("a check creating a source-scope file: text names the path and what to do", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(
      ["run", "--check", "mkdir -p build && echo x > build/out.txt", "--", "node", agent],
      p.root,
    );
    expect(result.code).toBe(2);
    const lines = result.stdout.split("\n");
    expect(lines).toContain(
      "not bound (workspace_changed_during_check): the checks changed the workspace while they ran: build/out.txt",
    );
    expect(lines).toContain(
      '  what to do: the checks created build/out.txt: add "build/" to "outputs" in turngate.config.json, or to .gitignore',
    );
  });

  test("a check creating many source files: the text names ten and counts the rest", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const check =
      "mkdir -p gen && for i in 01 02 03 04 05 06 07 08 09 10 11 12; do echo $i > gen/f$i.txt; done";
    const result = await cli(["run", "--check", check, "--", "node", agent], p.root);
    const names = Array.from(
      { length: 10 },
      (_, i) => `gen/f${String(i + 1).padStart(2, "0")}.txt`,
    );
    expect(result.stdout.split("\n")).toContain(
      `not bound (workspace_changed_during_check): the checks changed the workspace while they ran: ${names.join(", ")}, and 2 more (see --json)`,
    );
  });

  test('following the hint works: with "build/" in "outputs" the same check ends verified and build/ is listed', async () => {
    const p = project({ "value.txt": "41\n" });
    const check = "mkdir -p build && echo x > build/out.txt";
    const first = await cli(
      ["run", "--json", "--check", check, "--", "node", p.agent("a1.js", WRITE_42)],
      p.root,
    );
    expect(JSON.parse(first.stdout).binding.hint).toBe(
      'the checks created build/out.txt: add "build/" to "outputs" in turngate.config.json, or to .gitignore',
    );
    p.write("turngate.config.json", JSON.stringify({ checks: [check], outputs: ["build/"] }));
    const again = p.agent("a2.js", `require("node:fs").writeFileSync("value.txt", "43\\n");`);
    const second = await cli(["run", "--json", "--", "node", again], p.root);
    const out = JSON.parse(second.stdout);
    expect(out.verdict).toBe("verified");
    expect(out.binding.check_outputs).toEqual({
      count: 1,
      paths: [{ path: "build/out.txt", change: "modified", scope: "output" }],
    });
    expect(second.code).toBe(0);
  });

  test("a check writing coverage/ ends verified and the text lists the check outputs", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(
      ["run", "--check", "mkdir -p coverage && echo x > coverage/lcov.info", "--", "node", agent],
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
        "check outputs: 1 path (ignored or output locations, not in the digest): coverage/ 1",
        `proof: .turngate/proofs/${digest}.json`,
        UNSANDBOXED_LINE,
        "",
      ].join("\n"),
    );
    expect(result.code).toBe(0);
  });

  test('"rewrite_paths": a passing check that rewrites Cargo.lock runs once more and the turn is verified', async () => {
    const p = project({ "value.txt": "41\n", "Cargo.lock": "v1\n" });
    const settle = p.agent(
      "settle.js",
      `const fs = require("node:fs"); if (fs.readFileSync("Cargo.lock", "utf8") !== "v2\\n") fs.writeFileSync("Cargo.lock", "v2\\n");`,
    );
    p.write(
      "turngate.config.json",
      JSON.stringify({
        checks: [{ id: "lock", command: `node ${settle}` }],
        rewrite_paths: ["Cargo.lock"],
      }),
    );
    const agent = p.agent("agent.js", WRITE_42);
    const json = await cli(["run", "--json", "--", "node", agent], p.root);
    expect(json.code).toBe(0);
    const out = JSON.parse(json.stdout);
    expect(out.verdict).toBe("verified");
    expect(out.binding).toEqual({
      bound: true,
      effect_digest: out.effect_digest,
      rewrites: [{ path: "Cargo.lock", check_id: "lock" }],
    });
    const lockRow = sha256(
      JSON.stringify({
        changed_paths: ["Cargo.lock"],
        check_id: "lock",
        content_digest: sha256("v2\n"),
      }),
    );
    const rows = [
      `check:lock|Cargo.lock|${lockRow}`,
      `workspace|Cargo.lock|${sha256("v2\n")}`,
      `workspace|value.txt|${sha256("42\n")}`,
    ];
    expect(out.effect_digest).toBe(sha256(rows.join("\n")));
    expect(out.checks.map((c: { id: string; status: string }) => `${c.id}:${c.status}`)).toEqual([
      "lock:passed",
    ]);
    const verified = await cli(["proof", "verify", out.proof_path], p.root);
    expect(verified.code).toBe(0);
  });

  test('"rewrite_paths" in the text output: the rewritten lockfile and the check that rewrote it', async () => {
    const p = project({ "value.txt": "41\n", "pnpm-lock.yaml": "v1\n" });
    const settle = p.agent(
      "settle.js",
      `const fs = require("node:fs"); if (fs.readFileSync("pnpm-lock.yaml", "utf8") !== "v2\\n") fs.writeFileSync("pnpm-lock.yaml", "v2\\n");`,
    );
    p.write(
      "turngate.config.json",
      JSON.stringify({
        checks: [{ id: "install", command: `node ${settle}` }],
        rewrite_paths: ["pnpm-lock.yaml"],
      }),
    );
    const result = await cli(["run", "--", "node", p.agent("agent.js", WRITE_42)], p.root);
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "changed: 2 paths",
      "  modified pnpm-lock.yaml",
      "  modified value.txt",
    ]);
    expect(lines).toContain(
      'rewritten by the checks, then re-run ("rewrite_paths"): pnpm-lock.yaml (by install)',
    );
    expect(lines.some((l) => l.startsWith("verified: effect digest "))).toBe(true);
  });

  test('"rewrite_paths" without it: the text says to run cargo in the turn or set the field', async () => {
    const p = project({ "value.txt": "41\n", "Cargo.lock": "v1\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(
      ["run", "--check", "echo v2 > Cargo.lock", "--", "node", agent],
      p.root,
    );
    expect(result.code).toBe(2);
    expect(result.stdout.split("\n")).toContain(
      '  what to do: the check rewrote Cargo.lock: run cargo once in the agent\'s turn, or set "rewrite_paths": ["Cargo.lock"] in turngate.config.json',
    );
  });

  test('verify uses the "rewrite_paths" captured by baseline: one the agent added is reported and not used', async () => {
    const p = project({ "value.txt": "41\n", "Cargo.lock": "v1\n" });
    expect((await cli(["baseline"], p.root)).code).toBe(0);
    p.write("value.txt", "42\n");
    p.write("turngate.config.json", JSON.stringify({ rewrite_paths: ["Cargo.lock"] }));
    const result = await cli(["verify", "--json", "--check", "echo v2 > Cargo.lock"], p.root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "differs from the one captured by `turngate baseline` (rewrite_paths); verify uses the captured configuration",
    );
    const binding = JSON.parse(result.stdout).binding;
    expect([binding.reason, binding.rewrites, binding.changed_paths]).toEqual([
      "workspace_changed_during_check",
      undefined,
      ["Cargo.lock"],
    ]);
  });

  test('"rewrite_paths" accepts only lockfiles: anything else is a config error naming the field', async () => {
    const p = project({ "value.txt": "41\n" });
    for (const [value, message] of [
      [["Cargo.lock", "src/main.rs"], "at rewrite_paths.1: must name a lockfile (Cargo.lock, "],
      [
        ["**/*.lock"],
        "at rewrite_paths.0: must be a lockfile name or path, without glob characters",
      ],
      ["Cargo.lock", "at rewrite_paths: "],
    ] as const) {
      p.write("turngate.config.json", JSON.stringify({ rewrite_paths: value }));
      const result = await cli(["run", "--check", "true", "--", "true"], p.root);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(message);
    }
  });

  test("the check outputs line groups by top folder, largest first, and counts what is not listed", () => {
    const paths = [
      ".pytest_cache/v/cache/nodeids",
      ".pytest_cache/README.md",
      "__pycache__/a.pyc",
      "cover.out",
    ].map((path) => ({ path }));
    expect(checkOutputsLine({ count: 4, paths })).toBe(
      "check outputs: 4 paths (ignored or output locations, not in the digest): .pytest_cache/ 2, __pycache__/ 1, cover.out 1",
    );
    const many = Array.from({ length: 7 }, (_, i) => ({ path: `d${i}/x` }));
    expect(checkOutputsLine({ count: 9, paths: many })).toBe(
      "check outputs: 9 paths (ignored or output locations, not in the digest): d0/ 1, d1/ 1, d2/ 1, d3/ 1, d4/ 1, 2 more folders, 2 not listed",
    );
  });
});
