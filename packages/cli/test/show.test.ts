import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TURN_VIEW_DIFFS_DEFERRED, TURN_VIEW_LIMITS } from "@turngate/core";
import { TurnViewSchema } from "@turngate/core/schemas";
import { afterEach, describe, expect, test } from "vitest";
import { renderViewText, useColor } from "../src/show/render-view-text.js";
import { cli, cliFresh, gitProject } from "./helpers.js";

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(files: Record<string, string>) {
  const p = gitProject(files);
  cleanups.push(p.cleanup);
  return p;
}

const git = (root: string, ...args: string[]) =>
  execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

const CALC = {
  "calc.py": "def add(a, b):\n    return a - b\n",
  "test_calc.py":
    'from calc import add\nassert add(2, 3) == 5, "add(2, 3) should be 5"\nprint("ok")\n',
};
const FIX = `require("node:fs").writeFileSync("calc.py", "def add(a, b):\\n    return a + b\\n"); require("node:fs").writeFileSync("NOTES.md", "fixed add\\n");`;
const BREAK = `require("node:fs").writeFileSync("calc.py", "def add(a, b):\\n    return a * b\\n");`;

describe("turngate show", () => {
  test("after a verified run: summary, check and both diffs; --json is the view model; DIGEST prefix and the proof file show the same files", async () => {
    const p = project(CALC);
    const agent = p.agent("fix.js", FIX);
    const run = await cli(["run", "--check", "python3 test_calc.py", "--", "node", agent], p.root);
    expect(run.code).toBe(0);
    const digest = /verified: effect digest ([0-9a-f]{64})/.exec(run.stdout)?.[1] as string;
    const baseline = git(p.root, "rev-parse", "HEAD^{tree}");

    const shown = await cli(["show"], p.root);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split("\n");
    expect(lines[0]).toBe(`VERIFIED  effect digest ${digest}`);
    expect(lines[1]).toMatch(/^ {2}decided just now \(\d{4}-\d\d-\d\dT[\d:.]+Z\)$/);
    expect(lines[2]).toBe("  checks: 1 passed · 2 files (1 added, 1 modified), +2 −1");
    expect(lines[3]).toBe("  trust: unsandboxed");
    expect(lines[4]).toMatch(
      new RegExp(`^  baseline tree ${baseline} \\(git diff ${baseline} [0-9a-f]{40}\\)$`),
    );
    expect(shown.stdout).toMatch(
      /\nchecks\n {2}✓ passed python3 test_calc.py in \d+\.\ds \(optional\)\n|\nchecks\n {2}✓ passed python3 test_calc.py in \d+\.\ds\n/,
    );
    expect(shown.stdout).toContain("\nfiles\n  A NOTES.md  +1 −0\n  M calc.py  +1 −1\n");
    expect(shown.stdout).toContain(
      [
        "diff --git a/calc.py b/calc.py",
        "index 12ee743..4693ad3 100644",
        "--- a/calc.py",
        "+++ b/calc.py",
        "@@ -1,2 +1,2 @@",
        " def add(a, b):",
        "-    return a - b",
        "+    return a + b",
      ].join("\n"),
    );
    // not a terminal: no colour at all
    expect(shown.stdout).not.toContain("\x1b");

    const json = await cli(["show", "--json", "last"], p.root);
    const view = TurnViewSchema.parse(JSON.parse(json.stdout));
    expect(view.verdict).toBe("verified");
    expect(view.source).toBe("result");
    expect(view.effect_digest).toBe(digest);
    expect(view.counts).toEqual({
      checks: { passed: 1, failed: 0, needs_review: 0, skipped: 0 },
      files: { added: 1, modified: 1, deleted: 0, outside_scope: 0, environment: 0 },
      additions: 2,
      deletions: 1,
    });
    expect(view.files.map((f) => [f.path, f.change, f.content_digest])).toEqual([
      ["NOTES.md", "added", sha256("fixed add\n")],
      ["calc.py", "modified", sha256("def add(a, b):\n    return a + b\n")],
    ]);
    const check = view.checks[0];
    expect(check?.command).toBe("python3 test_calc.py");
    expect(check?.output_tail).toEqual(["ok"]);
    expect(check?.log?.sha256).toBe(sha256(readFileSync(check?.log?.path as string)));
    expect(view.diffs.baseline_tree).toBe(baseline);

    // The stored view leaves the diffs to `show` (issue 33): no blob was read at the turn's end.
    const stored = JSON.parse(readFileSync(join(p.root, ".turngate/views/last.json"), "utf8"));
    expect(stored.diffs).toEqual({
      ...view.diffs,
      available: false,
      reason: TURN_VIEW_DIFFS_DEFERRED,
    });
    expect(stored.files.map((f: { diff: unknown }) => f.diff)).toEqual([
      { kind: "unavailable", reason: TURN_VIEW_DIFFS_DEFERRED },
      { kind: "unavailable", reason: TURN_VIEW_DIFFS_DEFERRED },
    ]);
    expect(view.diffs.available).toBe(true);
    expect(view.files.map((f) => f.diff.kind)).toEqual(["text", "text"]);
    expect(view.counts.additions).toBe(2);

    // the trees are kept: a ref each, and `git diff <tree>` still works after gc --prune=now
    const refs = git(p.root, "for-each-ref", "--format=%(refname)", "refs/turngate/");
    expect(refs.split("\n")).toContain(`refs/turngate/trees/${baseline}`);
    execFileSync("git", ["gc", "-q", "--prune=now"], { cwd: p.root });
    expect(git(p.root, "diff", "--stat", baseline, view.diffs.final_tree as string)).toContain(
      "2 files changed, 2 insertions(+), 1 deletion(-)",
    );
    // the user's index is not touched: the agent's files are still unstaged / untracked
    expect(git(p.root, "status", "--porcelain")).toBe("M calc.py\n?? NOTES.md");

    const byPrefix = await cli(["show", "--json", digest.slice(0, 8)], p.root);
    expect(JSON.parse(byPrefix.stdout)).toEqual(view);

    const proofFile = `.turngate/proofs/${digest}.json`;
    const fromProof = await cli(["show", "--json", proofFile], p.root);
    expect(fromProof.code).toBe(0);
    expect(fromProof.stderr).toMatch(/turngate: proof .*: signature holds \(keyid [0-9a-f]{64}\)/);
    const proofView = TurnViewSchema.parse(JSON.parse(fromProof.stdout));
    expect(proofView.source).toBe("proof");
    expect(proofView.files).toEqual(view.files);
    expect(proofView.checks[0]?.output_tail).toEqual([]);
    expect(proofView.checks[0]?.log?.sha256).toBe(check?.log?.sha256);
  });

  test("an incomplete turn: the failing check's output and the diff of the breaking change", async () => {
    const p = project(CALC);
    const agent = p.agent("break.js", BREAK);
    const run = await cli(["run", "--check", "python3 test_calc.py", "--", "node", agent], p.root);
    expect(run.code).toBe(2);
    const shown = await cli(["show", "last"], p.root);
    expect(shown.stdout.split("\n")[0]).toMatch(/^INCOMPLETE {2}effect digest [0-9a-f]{64}$/);
    expect(shown.stdout.split("\n")[1]).toBe(
      `  the change (effect digest ${/effect digest ([0-9a-f]{64})/.exec(shown.stdout)?.[1]}) is not verified: the required checks did not all pass. Fix it and run again, or, as the host, accept this exact change with --waive ${/effect digest ([0-9a-f]{64})/.exec(shown.stdout)?.[1]}:REASON`,
    );
    // The gate's A3S text and the HUD's shorthand stay in --json (issue 34 item 8).
    for (const jargon of ["completion gate", "no bound Passed", "check:1", "R4", "(fallback)"])
      expect(shown.stdout).not.toContain(jargon);
    expect(shown.stdout).toMatch(/ {2}✗ failed \(assertion\) python3 test_calc.py in \d+\.\ds/);
    expect(shown.stdout).toContain("      | AssertionError: add(2, 3) should be 5\n");
    expect(shown.stdout).toMatch(
      / {6}log: .*\.turngate\/logs\/[0-9a-f]{64}\.log \(sha256 [0-9a-f]{64}\)/,
    );
    expect(shown.stdout).toContain("-    return a - b\n+    return a * b\n");
    // no proof for an incomplete turn, but its view is stored by digest too
    const digest = /effect digest ([0-9a-f]{64})/.exec(shown.stdout)?.[1] as string;
    expect(existsSync(join(p.root, ".turngate/proofs", `${digest}.json`))).toBe(false);
    expect(
      readdirSync(join(p.root, ".turngate/views")).filter((n) => n.startsWith(digest)),
    ).toEqual([expect.stringMatching(new RegExp(`^${digest}\\.\\d+-[0-9a-f]{6}\\.json$`))]);
  });

  test("turngate verify twice against one baseline: the stored views and kept trees never enter the digest", async () => {
    const p = project(CALC);
    expect((await cli(["baseline"], p.root)).code).toBe(0);
    p.write("calc.py", "def add(a, b):\n    return a + b\n");
    const first = await cli(["verify", "--check", "python3 test_calc.py"], p.root);
    const second = await cli(["verify", "--check", "python3 test_calc.py"], p.root);
    const digest = (text: string) => /effect digest ([0-9a-f]{64})/.exec(text)?.[1];
    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    expect(digest(first.stdout)).toMatch(/^[0-9a-f]{64}$/);
    expect(existsSync(join(p.root, ".turngate/views/last.json"))).toBe(true);
    expect(git(p.root, "for-each-ref", "refs/turngate/")).not.toBe("");
    // The second turn sees neither turngate's stored views nor the kept trees' refs. (It does
    // see .turngate/verification-profiles.json, written by the first turn's profile store:
    // a finding left to that store's owner, so only views and refs are asserted here.)
    expect(second.stdout).toContain("changed: 1 path\n  modified calc.py\n");
    expect(second.stdout).not.toContain("views/");
    expect(second.stdout).not.toContain("refs/turngate");
  });

  test("views are kept per turn: a later turn with the same bytes keeps the earlier view, and each prints its age (issue 34 item 8)", async () => {
    const p = project(CALC);
    const agent = p.agent("break.js", BREAK);
    const first = await cli(
      ["run", "--check", "python3 test_calc.py", "--", "node", agent],
      p.root,
    );
    expect(first.code).toBe(2);
    const digest = /effect digest ([0-9a-f]{64})/.exec(first.stdout)?.[1] as string;
    const views = join(p.root, ".turngate/views");
    const [earlier] = readdirSync(views).filter((n) => n.startsWith(digest));
    // The earlier turn was decided ten minutes ago (a stored view is a display: edit its time).
    const old = JSON.parse(readFileSync(join(views, earlier as string), "utf8"));
    old.finished_at = new Date(Date.now() - 10 * 60_000).toISOString();
    // …and stored before views had `outputs` and `failure_digest`: it still shows.
    delete old.outputs;
    for (const check of old.checks) delete check.failure_digest;
    writeFileSync(join(views, earlier as string), JSON.stringify(old));
    // The same agent again from the same baseline (the host starts over, the workspace
    // reset): the same bytes, so the same digest.
    p.write("calc.py", CALC["calc.py"] as string);
    const second = await cliFresh(
      ["run", "--check", "python3 test_calc.py", "--", "node", agent],
      p.root,
    );
    expect(/effect digest ([0-9a-f]{64})/.exec(second.stdout)?.[1]).toBe(digest);
    const files = readdirSync(views).filter((n) => n.startsWith(digest));
    expect(files).toHaveLength(2);
    expect(files).toContain(earlier);
    const shown = await cli(["show", digest.slice(0, 12), "--no-pager"], p.root);
    expect(shown.stdout.split("\n")[2]).toMatch(/^ {2}decided just now \(/);
    expect(shown.stderr).toContain(
      `turngate: 2 turns had effect digest ${digest.slice(0, 16)}…: this is the newest; the others are ${join(views, earlier as string)}`,
    );
    const older = await cli(["show", join(views, earlier as string), "--no-pager"], p.root);
    expect(older.stdout.split("\n")[2]).toBe(`  decided 10 min ago (${old.finished_at})`);
  });

  test("a workspace that is not a git repository: the view says diffs are not available", async () => {
    const p = project({});
    execFileSync("rm", ["-rf", join(p.root, ".git")]);
    const agent = p.agent("w.js", `require("node:fs").writeFileSync("a.txt", "1\\n");`);
    const run = await cli(["run", "--check", "true", "--", "node", agent], p.root);
    expect(run.code).toBe(0);
    const json = JSON.parse((await cli(["show", "--json"], p.root)).stdout);
    expect(json.diffs).toEqual({
      available: false,
      reason: "not a git work tree",
      baseline_tree: null,
      final_tree: null,
    });
    expect(json.files[0].diff).toEqual({ kind: "unavailable", reason: "not a git work tree" });
    const text = (await cli(["show"], p.root)).stdout;
    expect(text).toContain("  diffs: not available (not a git work tree)\n");
  });

  test("binary and large files are summarised, not dumped", async () => {
    const p = project({ "img.bin": "\0\x01old", "big.txt": "x\n" });
    const big = "y\n".repeat(TURN_VIEW_LIMITS.blobBytes / 2 + 1);
    const agent = p.agent(
      "w.js",
      `const fs=require("node:fs"); fs.writeFileSync("img.bin", Buffer.from([0,1,2,3,4,5])); fs.writeFileSync("big.txt", ${JSON.stringify(big)});`,
    );
    await cli(["run", "--check", "true", "--", "node", agent], p.root);
    const view = JSON.parse((await cli(["show", "--json"], p.root)).stdout);
    const byPath = Object.fromEntries(
      view.files.map((f: { path: string; diff: unknown }) => [f.path, f.diff]),
    );
    expect(byPath["img.bin"]).toEqual({ kind: "binary", old_bytes: 5, new_bytes: 6 });
    expect(byPath["big.txt"]).toEqual({
      kind: "too_large",
      old_bytes: 2,
      new_bytes: big.length,
      limit_bytes: TURN_VIEW_LIMITS.blobBytes,
    });
    const text = (await cli(["show"], p.root)).stdout;
    expect(text).toContain("  M img.bin  binary, 5 → 6 bytes\n");
    expect(text).toContain(
      `  M big.txt  too large to show (2 → ${big.length} bytes; limit 1048576 bytes)\n`,
    );
  });

  test("file names and diff lines with terminal escapes are shown escaped, never sent raw", async () => {
    const p = project({ "a.txt": "old\n" });
    const agent = p.agent(
      "w.js",
      `const fs=require("node:fs"); fs.writeFileSync("a.txt", "\\u001b[2J\\u001b]0;pwned\\u0007new\\n"); fs.writeFileSync("x\\u001b[31mred.txt", "1\\n");`,
    );
    await cli(["run", "--check", "true", "--", "node", agent], p.root);
    const text = (await cli(["show"], p.root)).stdout;
    expect(text).not.toContain("\x1b");
    expect(text).not.toContain("\x07");
    expect(text).toContain("+\\x1b[2J\\x1b]0;pwned\\x07new\n");
    expect(text).toContain('  A "x\\u001b[31mred.txt"  +1 −0\n');
  });

  test("errors: no turn yet, an unknown digest, a file that is neither proof nor view", async () => {
    const p = project({ "a.txt": "1\n" });
    const none = await cli(["show"], p.root);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /^turngate: error: no turn recorded in .*views yet: run one .* \[no_turn\]\n$/,
    );
    const unknown = await cli(["show", "abcdef12"], p.root);
    expect(unknown.stderr).toContain("no turn with an effect digest starting abcdef12");
    writeFileSync(join(p.root, "x.json"), '{"schema":"other"}');
    const other = await cli(["show", "x.json"], p.root);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("is neither a turn proof nor a view");
  });

  test("colour: only on a terminal, and never with NO_COLOR", () => {
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(useColor({ isTTY: true }, { TERM: "dumb" })).toBe(false);
    expect(useColor({ isTTY: false }, {})).toBe(false);
    const view = TurnViewSchema.parse({
      schema: "turngate.turn_view.v1",
      source: "proof",
      verdict: "verified",
      effect_digest: "d".repeat(64),
      reason: null,
      message: null,
      root: null,
      trust: null,
      started_at: null,
      finished_at: null,
      counts: {
        checks: { passed: 0, failed: 0, needs_review: 0, skipped: 0 },
        files: { added: 1, modified: 0, deleted: 0, outside_scope: 0, environment: 0 },
        additions: 1,
        deletions: 0,
      },
      checks: [],
      files: [
        {
          path: "a",
          change: "added",
          scope: "source",
          tool: "workspace",
          content_digest: "e".repeat(64),
          diff: {
            kind: "text",
            unified: "@@ -0,0 +1 @@\n+x\n",
            additions: 1,
            deletions: 0,
            truncated: false,
          },
        },
      ],
      diffs: { available: true, reason: null, baseline_tree: null, final_tree: null },
      waivers: [],
      attempts: null,
      affected_targets: null,
      hud: null,
      outputs: null,
    });
    const coloured = renderViewText(view, { color: true });
    expect(coloured.split("\n")[0]).toBe(
      `\x1b[1m\x1b[32mVERIFIED\x1b[0m\x1b[0m  effect digest ${"d".repeat(64)}`,
    );
    expect(coloured).toContain("\x1b[36m@@ -0,0 +1 @@\x1b[0m\n\x1b[32m+x\x1b[0m\n");
  });
});
