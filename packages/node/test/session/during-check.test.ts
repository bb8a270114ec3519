/**
 * What the checks changed (issue 10, "What the checks changed"; docs/design.md §3a): attacks on the
 * binding by a check or a background process, the `"rewrite_paths"` re-run rule and the
 * hints, on real temporary git repositories with real processes.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TurngateValidationError } from "@turngate/core";
import { afterEach, describe, expect, test } from "vitest";
import { Session } from "../../src/session/session.js";
import { useGitRepos } from "./git-repo.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const row = (tool: string, path: string, digest: string) => `${tool}|${path}|${digest}`;
/** Effect digest of rows by docs/design.md §3's formula: sorted by (path, tool), joined by \n. */
const digestOfRows = (rows: Array<[tool: string, path: string, digest: string]>) =>
  sha256(
    rows
      .slice()
      .sort(([ta, pa], [tb, pb]) => (pa < pb ? -1 : pa > pb ? 1 : ta < tb ? -1 : ta > tb ? 1 : 0))
      .map(([t, p, d]) => row(t, p, d))
      .join("\n"),
  );

const repo = useGitRepos();
let scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  scratch = [];
});
/** A folder outside the repository (run counters, background scripts). */
function outsideDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "turngate-during-"));
  scratch.push(dir);
  return dir;
}
/**
 * A check command running a Node script kept outside the repository (a plain command, so
 * its exit status is not masked): it appends a line to `<dir>/runs`, then runs `body`
 * (JS with `fs` in scope, cwd = the workspace root).
 */
function scriptCheck(dir: string, name: string, body: string): string {
  const path = join(dir, `${name}.js`);
  writeFileSync(
    path,
    `const fs = require("node:fs"); fs.appendFileSync(${JSON.stringify(join(dir, "runs"))}, "run\\n");\n${body}\n`,
  );
  return `node ${JSON.stringify(path)}`;
}
const check = (id: string, command: string) => ({
  id,
  kind: "test",
  description: id,
  command,
  required: true,
});

describe("what the checks changed", () => {
  test("a change after the turn's observation and before the checks leaves the report unbound: the checks start from that observation", async () => {
    const r = await repo({ "a.txt": "old\n", "b.txt": "keep\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    const observed = await session.observeWorkspace();
    expect(observed.changes.map((c) => c.path)).toEqual(["a.txt"]);
    const digest = session.effectDigest;
    // Written between the observation and the checks (a background writer).
    r.write("b.txt", "broken\n");
    const pass = check("c:pass", "true");
    const result = await session.verifyCommands("host:test", [pass], { bind: true });
    expect(result.report.status).toBe("passed");
    expect(result.binding).toMatchObject({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: ["b.txt"],
    });
    // The digest stays the observed one; the unbound report cannot verify it.
    expect(session.effectDigest).toBe(digest);
    // Control: nothing written in between, the same check binds to the observed digest.
    const r2 = await repo({ "a.txt": "old\n" });
    const honest = await Session.start({ root: r2.root });
    r2.write("a.txt", "new\n");
    await honest.observeWorkspace();
    const bound = await honest.verifyCommands("host:test", [pass], { bind: true });
    expect(bound.binding).toMatchObject({ bound: true });
    expect(bound.report.subject).toBe("host:test");
  });

  test("a check that swaps a source file and swaps it back (same bytes) is not bound: its ctime changed", async () => {
    const r = await repo({ "a.txt": "old\n", "b.txt": "keep\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const swap = check(
      "c:swap",
      "mv b.txt b.bak && printf 'evil\\n' > b.txt && sleep 0.05 && mv b.bak b.txt",
    );
    const result = await session.verifyCommands("host:test", [swap], { bind: true });
    expect(readFileSync(join(r.root, "b.txt"), "utf8")).toBe("keep\n");
    expect(result.report.status).toBe("passed");
    expect(result.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: ["b.txt"],
      unreadable: [],
      changes: [{ path: "b.txt", change: "metadata" }],
      hint: "the checks touched b.txt while they ran (size, mtime, ctime or inode changed; a file replaced and put back counts): find the check or background process that rewrites it",
    });
    expect(result.report.effect_digest).toBeUndefined();
    expect((await session.decide()).kind).toBe("incomplete");
  });

  test("a check that rewrites a file in place and restores its bytes and mtime (touch -r) is not bound: ctime still changed", async () => {
    const r = await repo({ "a.txt": "old\n", "lib.txt": "real\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const dir = outsideDir();
    const copy = JSON.stringify(join(dir, "lib.copy"));
    const restore = check(
      "c:restore",
      `cp -p lib.txt ${copy} && printf 'fake\\n' > lib.txt && cat ${copy} > lib.txt && touch -r ${copy} lib.txt`,
    );
    const result = await session.verifyCommands("host:test", [restore], { bind: true });
    expect(readFileSync(join(r.root, "lib.txt"), "utf8")).toBe("real\n");
    expect(result.binding).toMatchObject({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: ["lib.txt"],
      changes: [{ path: "lib.txt", change: "metadata" }],
    });
  });

  test("a background process (not the check's child) that swaps a file while the check runs is not bound", async () => {
    const r = await repo({ "a.txt": "old\n", "lib.js": "module.exports = 1;\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const dir = outsideDir();
    // Waits for the check to start (it writes a marker outside the repository), swaps
    // lib.js for a cheating copy, then puts the original bytes back with a new inode.
    const script = `
      const fs = require("node:fs");
      const lib = ${JSON.stringify(join(r.root, "lib.js"))};
      const started = ${JSON.stringify(join(dir, "started"))};
      const wait = () => fs.existsSync(started) ? swap() : setTimeout(wait, 10);
      const swap = () => {
        const original = fs.readFileSync(lib);
        fs.writeFileSync(lib + ".tmp", "module.exports = 2;\\n");
        fs.renameSync(lib + ".tmp", lib);
        setTimeout(() => {
          fs.writeFileSync(lib + ".tmp", original);
          fs.renameSync(lib + ".tmp", lib);
          fs.writeFileSync(${JSON.stringify(join(dir, "done"))}, "");
        }, 100);
      };
      wait();`;
    const daemon = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
    const exited = new Promise((resolve) => daemon.on("exit", resolve));
    try {
      const slow = check(
        "c:slow",
        `touch ${JSON.stringify(join(dir, "started"))} && while [ ! -e ${JSON.stringify(join(dir, "done"))} ]; do sleep 0.02; done`,
      );
      const result = await session.verifyCommands("host:test", [slow], { bind: true });
      expect(readFileSync(join(r.root, "lib.js"), "utf8")).toBe("module.exports = 1;\n");
      expect(result.binding).toMatchObject({
        bound: false,
        reason: "workspace_changed_during_check",
        changedPaths: ["lib.js"],
        changes: [{ path: "lib.js", change: "metadata" }],
      });
    } finally {
      daemon.kill("SIGKILL");
      await exited;
    }
  });

  test("a check that creates a new source-scope file outside the output locations is unbound, and the hint names the outputs pattern", async () => {
    const r = await repo({ "a.txt": "old\n", "src/main.txt": "main\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const writer = check(
      "c:build",
      "mkdir -p gen/deep && echo x > gen/deep/out.txt && echo y > src/made.txt",
    );
    const result = await session.verifyCommands("host:test", [writer], { bind: true });
    expect(result.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: ["gen/deep/out.txt", "src/made.txt"],
      unreadable: [],
      created: ["gen/deep/out.txt", "src/made.txt"],
      hint: 'the checks created gen/deep/out.txt, src/made.txt: add "gen/", "src/made.txt" to "outputs" in turngate.config.json, or to .gitignore',
    });
  });

  test("ignored files and output locations the checks write are check outputs: listed, bound", async () => {
    const r = await repo({ "a.txt": "old\n", ".gitignore": "dist/\n", "dist/keep.js": "1\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const digest = digestOfRows([["workspace", "a.txt", sha256("new\n")]]);
    const writer = check(
      "c:out",
      "echo 2 > dist/keep.js && mkdir -p coverage && echo x > coverage/lcov.info && echo y > cover.out",
    );
    const result = await session.verifyCommands("host:test", [writer], { bind: true });
    expect(result.binding).toEqual({
      bound: true,
      effectDigest: digest,
      checkOutputs: {
        count: 3,
        paths: [
          { path: "cover.out", change: "added", scope: "output" },
          { path: "coverage/lcov.info", change: "added", scope: "output" },
          { path: "dist/keep.js", change: "modified", scope: "ignored" },
        ],
      },
    });
    expect(session.effectDigest).toBe(digest);
  });

  test("check outputs stay outputs: observing again after the checks keeps the digest, and the turn is verified", async () => {
    const r = await repo({ "a.txt": "old\n", ".gitignore": "dist/\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const digest = digestOfRows([["workspace", "a.txt", sha256("new\n")]]);
    const writer = check(
      "c:out",
      "mkdir -p coverage dist && echo x > coverage/lcov.info && echo y > dist/b.js",
    );
    const result = await session.verifyCommands("host:test", [writer], { bind: true });
    expect(result.binding).toMatchObject({ bound: true, effectDigest: digest });
    const delta = await session.observeWorkspace();
    expect(delta.changes.map((c) => c.path)).toEqual(["a.txt"]);
    expect(session.effectDigest).toBe(digest);
    expect(await session.decide()).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: digest },
    });
    // A later change to a check output is the agent's again: it is a ledger row.
    r.write("dist/b.js", "planted\n");
    await session.observeWorkspace();
    expect(session.records.map((row) => row.path)).toEqual(["a.txt", "dist/b.js"]);
  });

  test("an output the agent wrote and the checks rewrote keeps the agent's row when observed again", async () => {
    const r = await repo({ "a.txt": "old\n", ".gitignore": "dist/\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    r.write("dist/b.js", "agent\n");
    await session.observeWorkspace();
    const digest = session.effectDigest;
    expect(session.records.map((row) => `${row.path}:${row.content_digest}`)).toEqual([
      `a.txt:${sha256("new\n")}`,
      `dist/b.js:${sha256("agent\n")}`,
    ]);
    const rewrite = check("c:out", "echo checks > dist/b.js");
    const result = await session.verifyCommands("host:test", [rewrite], { bind: true });
    expect(result.binding).toMatchObject({ bound: true, effectDigest: digest });
    await session.observeWorkspace();
    expect(session.effectDigest).toBe(digest);
    expect((await session.decide()).kind).toBe("allow");
  });

  test("an output folder that ignores itself (pytest's .pytest_cache/.gitignore holding *) is still a check output", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const cache = check(
      "c:cache",
      "mkdir -p .pytest_cache/v && printf '*\\n' > .pytest_cache/.gitignore && echo '{}' > .pytest_cache/v/lastfailed",
    );
    const result = await session.verifyCommands("host:test", [cache], { bind: true });
    expect(result.binding).toEqual({
      bound: true,
      effectDigest: digestOfRows([["workspace", "a.txt", sha256("new\n")]]),
      checkOutputs: {
        count: 2,
        paths: [
          { path: ".pytest_cache/.gitignore", change: "added", scope: "output" },
          { path: ".pytest_cache/v/lastfailed", change: "added", scope: "output" },
        ],
      },
    });
  });

  test("a check that deletes a source file is unbound and told not to", async () => {
    const r = await repo({ "a.txt": "old\n", "old.txt": "x\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const result = await session.verifyCommands("host:test", [check("c:rm", "rm old.txt")], {
      bind: true,
    });
    expect(result.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: ["old.txt"],
      unreadable: [],
      changes: [{ path: "old.txt", change: "deleted" }],
      hint: "the checks deleted old.txt: a check must not remove source files; do that step in the agent's turn",
    });
  });

  test("a check that writes .git/hooks/x, .git/config or .git/info/x is unbound", async () => {
    for (const [command, path] of [
      ["printf '#!/bin/sh\\n' > .git/hooks/x", ".git/hooks/x"],
      ["git config --local core.pager cat", ".git/config"],
      ["echo '*.js' >> .git/info/exclude", ".git/info/exclude"],
    ] as const) {
      const r = await repo({ "a.txt": "old\n" });
      const session = await Session.start({ root: r.root });
      r.write("a.txt", "new\n");
      await session.observeWorkspace();
      const result = await session.verifyCommands("host:test", [check("c:git", command)], {
        bind: true,
      });
      expect(result.binding).toEqual({
        bound: false,
        reason: "workspace_changed_during_check",
        changedPaths: [path],
        unreadable: [],
        hint: `the checks changed ${path}: a check must not change git's config, hooks or info/, or turngate's folder (that changes what later commands run); remove that step from the checks`,
      });
    }
  });

  test("a check that rewrites Cargo.lock without rewrite_paths stays unbound with a hint naming the fix", async () => {
    const r = await repo({ "a.txt": "old\n", "Cargo.lock": "v1\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const result = await session.verifyCommands(
      "host:test",
      [check("c:cargo", "echo v2 > Cargo.lock")],
      { bind: true },
    );
    expect(result.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: ["Cargo.lock"],
      unreadable: [],
      changes: [{ path: "Cargo.lock", change: "modified" }],
      hint: 'the check rewrote Cargo.lock: run cargo once in the agent\'s turn, or set "rewrite_paths": ["Cargo.lock"] in turngate.config.json',
    });
    expect(result.firstRuns).toBeUndefined();
  });

  test("rewrite_paths: a passing first run that rewrote only Cargo.lock runs once more and binds the new bytes, with a check:<id> row", async () => {
    const r = await repo({ "a.txt": "old\n", "Cargo.lock": "v1\n" });
    const session = await Session.start({ root: r.root, rewritePaths: ["Cargo.lock"] });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const dir = outsideDir();
    const runs = join(dir, "runs");
    const settle = check(
      "c:cargo",
      scriptCheck(
        dir,
        "settle",
        `if (fs.readFileSync("Cargo.lock", "utf8") !== "v2\\n") fs.writeFileSync("Cargo.lock", "v2\\n");`,
      ),
    );
    const result = await session.verifyCommands("host:test", [check("c:first", "true"), settle], {
      bind: true,
    });
    expect(readFileSync(runs, "utf8")).toBe("run\nrun\n");
    const metadataDigest = sha256(
      JSON.stringify({
        changed_paths: ["Cargo.lock"],
        check_id: "c:cargo",
        content_digest: sha256("v2\n"),
      }),
    );
    const digest = digestOfRows([
      ["workspace", "a.txt", sha256("new\n")],
      ["check:c:cargo", "Cargo.lock", metadataDigest],
      ["workspace", "Cargo.lock", sha256("v2\n")],
    ]);
    expect(result.binding).toEqual({
      bound: true,
      effectDigest: digest,
      rewrites: [{ path: "Cargo.lock", checkId: "c:cargo" }],
    });
    expect(session.records).toEqual([
      { tool: "check:c:cargo", path: "Cargo.lock", content_digest: metadataDigest },
      { tool: "workspace", path: "Cargo.lock", content_digest: sha256("v2\n") },
      { tool: "workspace", path: "a.txt", content_digest: sha256("new\n") },
    ]);
    expect(result.report.effect_digest).toBe(digest);
    expect(result.firstRuns?.map((run) => run.check.status)).toEqual(["passed", "passed"]);
    expect(result.runs.map((run) => run.check.status)).toEqual(["passed", "passed"]);
    expect(session.verificationReports()).toHaveLength(1);
    expect(await session.decide()).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: digest },
    });
  });

  test("rewrite_paths: a failing first run is not re-run and stays unbound", async () => {
    const r = await repo({ "a.txt": "old\n", "Cargo.lock": "v1\n" });
    const session = await Session.start({ root: r.root, rewritePaths: ["Cargo.lock"] });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const dir = outsideDir();
    const runs = join(dir, "runs");
    const failing = check(
      "c:cargo",
      scriptCheck(dir, "fail", `fs.writeFileSync("Cargo.lock", "v2\\n"); process.exit(1);`),
    );
    const result = await session.verifyCommands("host:test", [failing], { bind: true });
    expect(readFileSync(runs, "utf8")).toBe("run\n");
    expect(result.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: ["Cargo.lock"],
      unreadable: [],
      changes: [{ path: "Cargo.lock", change: "modified" }],
      hint: 'the check rewrote Cargo.lock and did not pass: "rewrite_paths" re-runs the checks only after a passing run; fix the failing check, or run cargo once in the agent\'s turn',
    });
    expect(result.firstRuns).toBeUndefined();
    expect(result.report.status).toBe("failed");
  });

  test("rewrite_paths: a second run that changes the lockfile again stays unbound (no third run)", async () => {
    const r = await repo({ "a.txt": "old\n", "Cargo.lock": "v1\n" });
    const session = await Session.start({ root: r.root, rewritePaths: ["Cargo.lock"] });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const dir = outsideDir();
    const runs = join(dir, "runs");
    const churn = check(
      "c:cargo",
      scriptCheck(dir, "churn", `fs.writeFileSync("Cargo.lock", String(process.hrtime.bigint()));`),
    );
    const result = await session.verifyCommands("host:test", [churn], { bind: true });
    expect(readFileSync(runs, "utf8")).toBe("run\nrun\n");
    expect(result.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: ["Cargo.lock"],
      unreadable: [],
      changes: [{ path: "Cargo.lock", change: "modified" }],
      rewrites: [{ path: "Cargo.lock", checkId: "c:cargo" }],
      hint: "the checks rewrote Cargo.lock again on the re-run, so it does not settle: run cargo once in the agent's turn and keep the result",
    });
    expect(result.report.effect_digest).toBeUndefined();
    expect((await session.decide()).kind).toBe("incomplete");
  });

  test("rewrite_paths: a lockfile rewrite mixed with a source change is not re-run", async () => {
    const r = await repo({ "a.txt": "old\n", "Cargo.lock": "v1\n", "src.rs": "fn a() {}\n" });
    const session = await Session.start({ root: r.root, rewritePaths: ["Cargo.lock"] });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const dir = outsideDir();
    const runs = join(dir, "runs");
    const both = check(
      "c:both",
      scriptCheck(
        dir,
        "both",
        `fs.writeFileSync("Cargo.lock", "v2\\n"); fs.writeFileSync("src.rs", "fn b() {}\\n");`,
      ),
    );
    const result = await session.verifyCommands("host:test", [both], { bind: true });
    expect(readFileSync(runs, "utf8")).toBe("run\n");
    expect(result.binding).toMatchObject({
      bound: false,
      changedPaths: ["Cargo.lock", "src.rs"],
      hint: `Cargo.lock is in "rewrite_paths", but the checks changed more than that, so they are not re-run; the checks changed src.rs while they ran: a check must not write source files; do that step in the agent's turn, or write to an output location`,
    });
  });

  test("a check that turns a tracked file into a FIFO is unbound (unreadable); a turn whose own observation is incomplete says what to do", async () => {
    const r = await repo({ "a.txt": "old\n", pipe: "data\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const result = await session.verifyCommands(
      "host:test",
      [check("c:fifo", "rm pipe && mkfifo pipe")],
      {
        bind: true,
      },
    );
    expect(result.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: [],
      unreadable: ["pipe"],
      hint: "the checks left pipe that cannot be read (a special file, or no permission): remove it or make it readable",
    });
    // The FIFO is now part of the turn's own observation: incomplete, and the hint says so.
    const next = await session.verifyCommands("host:test", [check("c:ok", "true")], { bind: true });
    expect(next.binding).toEqual({
      bound: false,
      reason: "observation_incomplete",
      hint: "the turn's observation is incomplete (see the unreadable paths): make them readable or remove them, then run again",
    });
  });

  test("rewritePaths accepts only lockfile names or paths, naming the element", async () => {
    const r = await repo({ "a.txt": "old\n" });
    for (const [value, message] of [
      ["src/main.rs", /must name a lockfile \(Cargo\.lock, package-lock\.json, /],
      ["*.lock", /without glob characters/],
      ["../Cargo.lock", /must not contain empty, \. or \.\. segments/],
      ["/abs/Cargo.lock", /must be a relative file path/],
      ["", /must not be empty/],
    ] as const) {
      const error = await Session.start({
        root: r.root,
        rewritePaths: ["Cargo.lock", value],
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TurngateValidationError);
      const issues = (error as TurngateValidationError).issues;
      expect(issues).toHaveLength(1);
      expect(issues[0]?.path).toBe("rewrite_paths.1");
      expect(issues[0]?.message).toMatch(message);
    }
    const ok = await Session.start({
      root: r.root,
      rewritePaths: ["crates/cli/Cargo.lock", "go.sum", "package-lock.json"],
    });
    expect(ok.root).toBe(r.root);
  });
});
