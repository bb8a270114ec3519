import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  deserializeSnapshot,
  serializeSnapshot,
  WorkspaceObserver,
} from "../../src/workspace/index.js";
import { git, initRepo, makeTempDir, removeDir, SHA, sourceScope, write } from "./helpers.js";

let dir: string;
let root: string;
let globalConfig: string;
const savedEnv = { GIT_CONFIG_GLOBAL: "", XDG_CONFIG_HOME: "" };

// Every test gets its own global git config and XDG directory, so the machine's own
// global excludes never take part and tests can change them.
beforeEach(() => {
  dir = makeTempDir();
  root = join(dir, "repo");
  mkdirSync(root);
  globalConfig = join(dir, "gitconfig");
  writeFileSync(globalConfig, "");
  for (const key of ["GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME"] as const) {
    savedEnv[key] = process.env[key] ?? "\0unset";
  }
  process.env.GIT_CONFIG_GLOBAL = globalConfig;
  process.env.XDG_CONFIG_HOME = join(dir, "xdg");
  initRepo(root, { "a.txt": "hello\n", ".gitignore": "*.log\n", "src/keep.txt": "kept\n" });
});

afterEach(() => {
  for (const key of ["GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME"] as const) {
    if (savedEnv[key] === "\0unset") delete process.env[key];
    else process.env[key] = savedEnv[key];
  }
  removeDir(dir);
});

async function observed(at = root): Promise<WorkspaceObserver> {
  const observer = new WorkspaceObserver(at);
  await observer.baseline();
  return observer;
}

describe("WorkspaceObserver when ignore rules change during the turn", () => {
  test("a new file hidden by a line added to .git/info/exclude is added with its digest", async () => {
    const observer = await observed();
    write(root, "override.js", "process.exit(0)\n");
    appendFileSync(join(root, ".git/info/exclude"), "override.js\n");
    expect(sourceScope(await observer.delta())).toEqual({
      changes: [
        {
          path: "override.js",
          change: "added",
          content_digest: SHA["process.exit(0)\n"],
          scope: "source",
        },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a new file hidden by a line appended to the root .gitignore is added next to the .gitignore edit", async () => {
    const observer = await observed();
    write(root, "override.js", "process.exit(0)\n");
    appendFileSync(join(root, ".gitignore"), "override.js\n");
    expect(sourceScope(await observer.delta())).toEqual({
      changes: [
        {
          path: ".gitignore",
          change: "modified",
          content_digest: SHA["*.log\noverride.js\n"],
          scope: "source",
        },
        {
          path: "override.js",
          change: "added",
          content_digest: SHA["process.exit(0)\n"],
          scope: "source",
        },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a .gitignore created in a subdirectory does not hide the new files next to it", async () => {
    const observer = await observed();
    write(root, "src/.gitignore", "*.js\n");
    write(root, "src/new.js", "x\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "src/.gitignore", change: "added", content_digest: SHA["*.js\n"], scope: "source" },
      { path: "src/new.js", change: "added", content_digest: SHA["x\n"], scope: "source" },
    ]);
  });

  test("a new directory whose .gitignore hides everything, itself included, is observed in full", async () => {
    const observer = await observed();
    write(root, "hidden/.gitignore", "*\n");
    write(root, "hidden/deep/x.js", "x\n");
    expect(sourceScope(await observer.delta())).toEqual({
      changes: [
        { path: "hidden/.gitignore", change: "added", content_digest: SHA["*\n"], scope: "source" },
        { path: "hidden/deep/x.js", change: "added", content_digest: SHA["x\n"], scope: "source" },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a pattern appended to the global excludes file (core.excludesFile) does not hide new files", async () => {
    const excludes = join(dir, "global-excludes");
    writeFileSync(excludes, "*.tmp\n");
    writeFileSync(globalConfig, `[core]\n\texcludesFile = ${excludes}\n`);
    const observer = await observed();
    write(root, "scratch.tmp", "x\n");
    appendFileSync(excludes, "*.gen\n");
    write(root, "out.gen", "hello\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "out.gen", change: "added", content_digest: SHA["hello\n"], scope: "source" },
    ]);
  });

  test("the XDG default excludes file created during the turn does not hide new files", async () => {
    const observer = await observed();
    write(dir, "xdg/git/ignore", "*.gen\n");
    write(root, "out.gen", "hello\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "out.gen", change: "added", content_digest: SHA["hello\n"], scope: "source" },
    ]);
  });

  test("setting core.excludesFile during the turn does not hide new files", async () => {
    const observer = await observed();
    write(dir, "other-excludes", "*.gen\n");
    git(root, "config", "core.excludesFile", join(dir, "other-excludes"));
    write(root, "out.gen", "hello\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "out.gen", change: "added", content_digest: SHA["hello\n"], scope: "source" },
    ]);
  });

  test("core.excludesFile set in a file the global config includes does not hide new files", async () => {
    writeFileSync(globalConfig, "[include]\n\tpath = extra.inc\n");
    write(dir, "extra.inc", "");
    const observer = await observed();
    write(dir, "late-excludes", "*.gen\n");
    write(dir, "extra.inc", `[core]\n\texcludesFile = ${join(dir, "late-excludes")}\n`);
    write(root, "out.gen", "hello\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "out.gen", change: "added", content_digest: SHA["hello\n"], scope: "source" },
    ]);
  });

  test("a baseline file deleted in one delta and back, ignored, in the next is compared by bytes", async () => {
    write(root, "notes.txt", "hello\n");
    const observer = await observed();
    rmSync(join(root, "notes.txt"));
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "notes.txt", change: "deleted", content_digest: "deleted", scope: "source" },
    ]);
    write(root, "notes.txt", "x\n");
    appendFileSync(join(root, ".git/info/exclude"), "notes.txt\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "notes.txt", change: "modified", content_digest: SHA["x\n"], scope: "source" },
    ]);
    write(root, "notes.txt", "hello\n");
    expect(sourceScope(await observer.delta())).toEqual({
      changes: [],
      complete: true,
      unreadable: [],
    });
  });

  test("a baseline file made ambiguous by an NFD twin, then ignored, is still compared by bytes", async () => {
    write(root, "caf\u00e9.txt", "hello\n");
    const observer = await observed();
    write(root, "cafe\u0301.txt", "x\n");
    expect(sourceScope(await observer.delta())).toEqual({
      changes: [],
      complete: false,
      unreadable: ["caf\u00e9.txt"],
    });
    rmSync(join(root, "cafe\u0301.txt"));
    appendFileSync(join(root, ".git/info/exclude"), "caf*\n");
    write(root, "caf\u00e9.txt", "x\n");
    expect(sourceScope(await observer.delta())).toEqual({
      changes: [
        { path: "caf\u00e9.txt", change: "modified", content_digest: SHA["x\n"], scope: "source" },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("files that existed at baseline and become ignored are reported by their bytes, not as deleted", async () => {
    write(root, "notes.txt", "x\n");
    write(root, "draft.txt", "hello\n");
    const observer = await observed();
    appendFileSync(join(root, ".git/info/exclude"), "notes.txt\ndraft.txt\na.txt\n");
    git(root, "rm", "-q", "--cached", "a.txt"); // untracked now, and ignored
    write(root, "draft.txt", "hello world\n");
    expect(sourceScope(await observer.delta())).toEqual({
      changes: [
        {
          path: "draft.txt",
          change: "modified",
          content_digest: SHA["hello world\n"],
          scope: "source",
        },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a directory that becomes ignored: its new files are added, its old ones compared by bytes", async () => {
    write(root, "notes/a.txt", "x\n");
    write(root, "notes/old.log", "x\n"); // ignored at baseline already
    const observer = await observed();
    appendFileSync(join(root, ".git/info/exclude"), "notes/\n");
    write(root, "notes/b.txt", "kept\n");
    write(root, "notes/new.log", "x\n"); // the baseline's *.log hides it too
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "notes/b.txt", change: "added", content_digest: SHA["kept\n"], scope: "source" },
    ]);
  });

  test("an ignore change that hides nothing new adds no rows, even for new files the old rules hid", async () => {
    write(root, ".gitignore", "*.log\nbuild/\n");
    git(root, "add", ".gitignore");
    git(root, "commit", "-q", "-m", "ignore build");
    write(root, "build/old.js", "x\n");
    write(root, "debug.log", "x\n");
    const observer = await observed();
    appendFileSync(join(root, ".gitignore"), "*.tmp\ncache/\n");
    write(root, "build/old.js", "hello\n");
    write(root, "build/new.js", "x\n");
    write(root, "debug.log", "hello\n");
    write(root, "new.log", "x\n");
    write(root, "cache/a.log", "x\n");
    write(root, "cache/sub/b.log", "x\n");
    expect(sourceScope(await observer.delta())).toEqual({
      changes: [
        {
          path: ".gitignore",
          change: "modified",
          content_digest: SHA["*.log\nbuild/\n*.tmp\ncache/\n"],
          scope: "source",
        },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a nested repository's changed info/exclude does not hide its new files", async () => {
    const nested = join(root, "vendor/lib");
    mkdirSync(nested, { recursive: true });
    initRepo(nested, { "lib.txt": "nested\n" });
    const observer = await observed();
    write(root, "vendor/lib/new.js", "x\n");
    appendFileSync(join(nested, ".git/info/exclude"), "new.js\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "vendor/lib/new.js", change: "added", content_digest: SHA["x\n"], scope: "source" },
    ]);
  });

  test("a workspace below the top of the work tree: a rule added above it does not hide its new files", async () => {
    const observer = await observed(join(root, "src"));
    appendFileSync(join(root, ".gitignore"), "*.js\n");
    write(root, "src/new.js", "x\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "new.js", change: "added", content_digest: SHA["x\n"], scope: "source" },
    ]);
  });

  test("with directories older than the racy window, a changed directory still reveals a new .gitignore", async () => {
    write(root, "docs/readme.md", "kept\n");
    git(root, "add", "docs/readme.md");
    git(root, "commit", "-q", "-m", "docs");
    const stored = serializeSnapshot(await new WorkspaceObserver(root).baseline());
    // As if the baseline had been taken a minute later: no directory is racy any more, so
    // only directories whose lstat identity changed are read again.
    const state = stored.ignore_state as NonNullable<typeof stored.ignore_state>;
    state.taken_at_ms = Date.now() + 60_000;
    const observer = new WorkspaceObserver(root);
    observer.restoreBaseline(deserializeSnapshot(JSON.parse(JSON.stringify(stored))));
    write(root, "docs/.gitignore", "*\n");
    write(root, "docs/x.md", "x\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      { path: "docs/.gitignore", change: "added", content_digest: SHA["*\n"], scope: "source" },
      { path: "docs/x.md", change: "added", content_digest: SHA["x\n"], scope: "source" },
    ]);
  });

  test("a stored baseline (serialized to JSON and back) still catches an info/exclude change", async () => {
    const text = JSON.stringify(serializeSnapshot(await new WorkspaceObserver(root).baseline()));
    const observer = new WorkspaceObserver(root);
    observer.restoreBaseline(deserializeSnapshot(JSON.parse(text)));
    write(root, "override.js", "process.exit(0)\n");
    appendFileSync(join(root, ".git/info/exclude"), "override.js\n");
    expect(sourceScope(await observer.delta()).changes).toEqual([
      {
        path: "override.js",
        change: "added",
        content_digest: SHA["process.exit(0)\n"],
        scope: "source",
      },
    ]);
  });

  test("a git baseline without its ignore-rule record makes every delta incomplete, naming '.' and why", async () => {
    const { ignore_state, ...withoutRecord } = await new WorkspaceObserver(root).baseline();
    expect(ignore_state?.repos.map((r) => r.dir)).toEqual([""]);
    const observer = new WorkspaceObserver(root);
    observer.restoreBaseline(withoutRecord);
    write(root, "a.txt", "hello world\n");
    expect(sourceScope(await observer.delta())).toEqual({
      changes: [
        {
          path: "a.txt",
          change: "modified",
          content_digest: SHA["hello world\n"],
          scope: "source",
        },
      ],
      complete: false,
      unreadable: ["."],
      unreadable_reasons: {
        ".": "the baseline has no record of the ignore rules, so files hidden by rules changed since cannot be ruled out",
      },
    });
  });
});
