import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { WorkspaceObserver } from "../../src/workspace/index.js";
import { runGit, runGitPair } from "../../src/workspace/listing/git.js";
import { git, initRepo, makeTempDir, removeDir, write } from "./helpers.js";

// Issue 10 "No agent code runs inside turngate's own git calls": each test plants a program
// the agent controls where git would run it, runs real observations, and asserts that the
// program's marker file never appears.

let dir: string;
let root: string;
let markers: string;

beforeEach(() => {
  dir = makeTempDir("tg-gitsafe-");
  root = join(dir, "ws");
  markers = join(dir, "markers");
  mkdirSync(root);
  mkdirSync(markers);
  initRepo(root, { "a.txt": "aaaa\n", "src/b.txt": "bbbb\n" });
});
afterEach(() => removeDir(dir));

/** Writes an executable shell script that creates `markers/<name>` when run. */
function plantProgram(name: string): string {
  const path = join(dir, `${name}.sh`);
  write(dir, `${name}.sh`, `#!/bin/sh\ntouch '${join(markers, name)}'\ncat\n`);
  chmodSync(path, 0o755);
  return path;
}

const fired = (name: string): boolean => existsSync(join(markers, name));

/** A same-size rewrite with a new mtime: git must re-read the content to compare it. */
function rewriteSameSize(rel: string, content: string): void {
  write(root, rel, content);
  const later = new Date(Date.now() + 5000);
  utimesSync(join(root, rel), later, later);
}

/** A baseline, a turn that rewrites a tracked file and changes the ignore rules, a delta. */
async function observeATurn(): Promise<Awaited<ReturnType<WorkspaceObserver["delta"]>>> {
  rewriteSameSize("a.txt", "AAAA\n"); // stat differs from the index: status re-reads it
  const observer = new WorkspaceObserver(root);
  await observer.baseline();
  write(root, ".gitignore", "*.log\n"); // the ignore guard re-evaluates the rules
  write(root, "x.log", "x\n");
  rewriteSameSize("src/b.txt", "BBBB\n");
  const delta = await observer.delta();
  await observer.snapshot();
  return delta;
}

describe("turngate's git calls run no program the agent planted", () => {
  test("runGit overrides core.fsmonitor, core.hooksPath and core.untrackedCache from .git/config", async () => {
    git(root, "config", "core.fsmonitor", plantProgram("fsmonitor"));
    git(root, "config", "core.hooksPath", join(dir, "hooks"));
    git(root, "config", "core.untrackedCache", "true");
    const read = async (key: string): Promise<string> =>
      (await runGit(["config", key], root)).stdout.toString("utf8").trim();
    expect(await read("core.fsmonitor")).toBe("false");
    expect(await read("core.hooksPath")).toBe("/dev/null");
    expect(await read("core.untrackedCache")).toBe("false");
  });

  test("runGitPair runs two git commands from one shell, each with the safety options, its own stdout and exit code", async () => {
    git(root, "config", "core.fsmonitor", plantProgram("fsmonitor"));
    const [a, b] = runGitPair(["config", "core.fsmonitor"], ["config", "core.hooksPath"], root);
    expect((await a).stdout.toString("utf8")).toBe("false\n");
    expect((await b).stdout.toString("utf8")).toBe("/dev/null\n");
    expect([(await a).code, (await b).code]).toEqual([0, 0]);
    const [ok, bad] = runGitPair(
      ["rev-parse", "--is-inside-work-tree"],
      ["config", "no.such"],
      root,
    );
    expect([(await ok).code, (await bad).code]).toEqual([0, 1]);
    expect(fired("fsmonitor")).toBe(false);
  });

  test("a core.fsmonitor program in .git/config never runs (and plain git status would run it)", async () => {
    git(root, "config", "core.fsmonitor", plantProgram("fsmonitor"));
    const delta = await observeATurn();
    expect(fired("fsmonitor")).toBe(false);
    expect(delta.changes.map((c) => `${c.scope} ${c.path}`)).toEqual([
      "source .gitignore",
      "source src/b.txt",
      "source x.log", // hidden by a rule added during the turn: the baseline rules show it
    ]);
    // Control: the plant is live — git's own status runs it.
    execFileSync("git", ["status", "--porcelain"], { cwd: root, stdio: "ignore" });
    expect(fired("fsmonitor")).toBe(true);
  });

  test("hooks (in .git/hooks and under a planted core.hooksPath) never run", async () => {
    const hooks = ["post-index-change", "post-checkout", "pre-commit", "reference-transaction"];
    mkdirSync(join(dir, "hooks"));
    for (const hook of hooks) {
      const program = plantProgram(`hook-${hook}`);
      write(root, `.git/hooks/${hook}`, `#!/bin/sh\nexec '${program}'\n`);
      chmodSync(join(root, `.git/hooks/${hook}`), 0o755);
      write(dir, `hooks/${hook}`, `#!/bin/sh\nexec '${program}'\n`);
      chmodSync(join(dir, `hooks/${hook}`), 0o755);
    }
    git(root, "config", "core.hooksPath", join(dir, "hooks"));
    await observeATurn();
    for (const hook of hooks) expect(fired(`hook-${hook}`)).toBe(false);
  });

  test("a clean filter named in .gitattributes never runs (and plain git status would run it)", async () => {
    write(root, ".gitattributes", "* filter=planted\n");
    git(root, "add", ".gitattributes");
    git(root, "commit", "-q", "-m", "attributes");
    git(root, "config", "filter.planted.clean", plantProgram("clean"));
    git(root, "config", "filter.planted.smudge", plantProgram("smudge"));
    await observeATurn();
    expect(fired("clean")).toBe(false);
    expect(fired("smudge")).toBe(false);
    rewriteSameSize("a.txt", "CCCC\n");
    execFileSync("git", ["status", "--porcelain"], { cwd: root, stdio: "ignore" });
    expect(fired("clean")).toBe(true);
  });

  test("a filter process and a textconv driver never run", async () => {
    write(root, ".gitattributes", "*.txt filter=proc diff=conv\n");
    git(root, "add", ".gitattributes");
    git(root, "commit", "-q", "-m", "attributes");
    git(root, "config", "filter.proc.process", plantProgram("process"));
    git(root, "config", "filter.proc.required", "true");
    git(root, "config", "diff.conv.textconv", plantProgram("textconv"));
    const delta = await observeATurn();
    expect(fired("process")).toBe(false);
    expect(fired("textconv")).toBe(false);
    expect(delta.complete).toBe(true);
  });
});
