/**
 * Issue 33 deliverable 1: with `@turngate/native`, the observer lists the root repository
 * in-process (one gitoxide call: the index, the walk and the ignore decisions), so a git-mode
 * observation starts no `git ls-files`; where the addon leaves the repository to git
 * (`core.ignoreCase`, one row of its fallback matrix) git lists it and the snapshot says why
 * (`listed_by_git`), never a silent difference. Both give the TypeScript path's snapshot.
 * Real repositories; the git processes are counted through a logging `git` first on PATH.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { WorkspaceObserver } from "../../src/workspace/observer.js";
import type { WorkspaceSnapshot } from "../../src/workspace/snapshot.js";
import { git, makeTempDir, removeDir, write } from "../workspace/helpers.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) removeDir(dir);
});

const originalPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = originalPath;
});

/** A repository with tracked, untracked and ignored files. */
function repo(): string {
  const root = makeTempDir("tg-listing-");
  dirs.push(root);
  write(root, ".gitignore", "build/\n*.log\n");
  write(root, "src/a.js", "a\n");
  write(root, "src/b.js", "b\n");
  git(root, "init", "-q", "-b", "main", ".");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "t");
  write(root, "src/new.js", "new\n");
  write(root, "build/out.js", "out\n");
  write(root, "debug.log", "log\n");
  return root;
}

/** Puts a `git` first on PATH that logs its arguments, one call per line, then runs git. */
function logGitCalls(): () => string[] {
  const dir = makeTempDir("tg-gitlog-");
  dirs.push(dir);
  const bin = join(dir, "bin");
  mkdirSync(bin);
  const log = join(dir, "calls");
  writeFileSync(log, "");
  const real = (originalPath ?? "")
    .split(delimiter)
    .map((p) => join(p, "git"))
    .find((p) => {
      try {
        readFileSync(p);
        return true;
      } catch {
        return false;
      }
    });
  if (real === undefined) throw new Error("git not found on PATH");
  writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, "git"), 0o755);
  process.env.PATH = `${bin}${delimiter}${originalPath ?? ""}`;
  return () =>
    readFileSync(log, "utf8")
      .split("\n")
      .filter((line) => line !== "");
}

/** The snapshot without its clock, for comparing two observers. */
function plain(snapshot: WorkspaceSnapshot): unknown {
  return {
    ...snapshot,
    taken_at_ms: 0,
    entries: [...snapshot.entries].sort(),
    outside: [...snapshot.outside].sort(),
  };
}

describe("issue 33: the observer's listing in the addon", () => {
  test("a git-mode snapshot with the addon runs no git ls-files, and equals the TypeScript path's", async () => {
    const root = repo();
    const off = await new WorkspaceObserver(root, { native: false }).snapshot();
    const calls = logGitCalls();
    const observer = new WorkspaceObserver(root, { native: true });
    const on = await observer.snapshot();
    expect(calls().filter((line) => line.includes("ls-files"))).toEqual([]);
    expect(on.listed_by_git).toBeUndefined();
    expect(plain(on)).toEqual(plain(off));
    expect([...on.entries.keys()].sort()).toEqual([
      ".gitignore",
      "src/a.js",
      "src/b.js",
      "src/new.js",
    ]);
    const ignored = [...on.outside.keys()].filter((key) => !key.startsWith(".git/"));
    expect(ignored.sort()).toEqual(["build/out.js", "debug.log"]);
  });

  test("positive control: without the addon the same snapshot runs git ls-files (both listings)", async () => {
    const root = repo();
    const calls = logGitCalls();
    await new WorkspaceObserver(root, { native: false }).snapshot();
    expect(calls().filter((line) => line.includes("ls-files")).length).toBe(2);
  });

  test("core.ignoreCase: the addon leaves the repository to git, which lists it; the snapshot says why, and equals the TypeScript path's", async () => {
    const root = repo();
    git(root, "config", "core.ignoreCase", "true");
    const off = await new WorkspaceObserver(root, { native: false }).snapshot();
    const calls = logGitCalls();
    const on = await new WorkspaceObserver(root, { native: true }).snapshot();
    expect(on.listed_by_git).toBe(
      "core.ignoreCase is true: case-folded index and ignore matching are left to git",
    );
    expect(calls().filter((line) => line.includes("ls-files")).length).toBe(2);
    const { listed_by_git: _why, ...rest } = on;
    expect(plain(rest as WorkspaceSnapshot)).toEqual(plain(off));
  });
});
