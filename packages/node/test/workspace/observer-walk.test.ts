import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { WorkspaceObserver } from "../../src/workspace/index.js";
import { makeTempDir, removeDir, SHA, write } from "./helpers.js";

let dir: string;
let root: string;

beforeEach(() => {
  dir = makeTempDir();
  root = join(dir, "ws");
  mkdirSync(root);
  write(root, "a.txt", "hello\n");
});

afterEach(() => removeDir(dir));

describe("WorkspaceObserver outside git (directory walk)", () => {
  test("auto-detection walks a plain directory and lists every file", async () => {
    write(root, "deep/er/b.txt", "x\n");
    const base = await new WorkspaceObserver(root).baseline();
    expect(base.git).toBe(false);
    expect([...base.entries.keys()].sort()).toEqual(["a.txt", "deep/er/b.txt"]);
    expect(base.entries.get("deep/er/b.txt")?.content_digest).toBe(SHA["x\n"]);
  });

  test("useGit: false walks even inside a git work tree, including git-ignored files", async () => {
    execFileSync("git", ["init", "-q", root]);
    write(root, ".gitignore", "*.log\n");
    write(root, "debug.log", "x\n");
    const base = await new WorkspaceObserver(root, { useGit: false }).baseline();
    expect(base.git).toBe(false);
    expect([...base.entries.keys()].sort()).toEqual([".gitignore", "a.txt", "debug.log"]);
  });

  test("add, modify, delete and rename are reported with exact digests", async () => {
    write(root, "old.txt", "x\n");
    write(root, "gone.txt", "x\n");
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    write(root, "a.txt", "hello world\n");
    write(root, "new/file.txt", "kept\n");
    execFileSync("rm", [join(root, "gone.txt")]);
    execFileSync("mv", [join(root, "old.txt"), join(root, "renamed.txt")]);
    expect(await observer.delta()).toEqual({
      changes: [
        {
          path: "a.txt",
          change: "modified",
          content_digest: SHA["hello world\n"],
          scope: "source",
        },
        { path: "gone.txt", change: "deleted", content_digest: "deleted", scope: "source" },
        { path: "new/file.txt", change: "added", content_digest: SHA["kept\n"], scope: "source" },
        { path: "old.txt", change: "deleted", content_digest: "deleted", scope: "source" },
        { path: "renamed.txt", change: "added", content_digest: SHA["x\n"], scope: "source" },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("configured ignores use gitignore syntax: directory patterns, globs and negation", async () => {
    const observer = new WorkspaceObserver(root, {
      ignores: ["node_modules/", "*.log", "!keep.log", "/top-only.txt"],
    });
    await observer.baseline();
    write(root, "node_modules/pkg/index.js", "x\n");
    write(root, "pkg/node_modules/dep.js", "x\n");
    write(root, "err.log", "x\n");
    write(root, "keep.log", "x\n");
    write(root, "top-only.txt", "x\n");
    write(root, "sub/top-only.txt", "x\n");
    expect((await observer.delta()).changes).toEqual([
      { path: "keep.log", change: "added", content_digest: SHA["x\n"], scope: "source" },
      { path: "sub/top-only.txt", change: "added", content_digest: SHA["x\n"], scope: "source" },
    ]);
  });

  test(".git is skipped at any depth, .turngate/.a3s/.a3s-code only in the root (the root's .git/config is a harness row)", async () => {
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    write(root, ".git/config", "x\n");
    write(root, ".turngate/baseline.json", "x\n");
    write(root, ".a3s/x", "x\n");
    write(root, ".a3s-code/x", "x\n");
    write(root, "pkg/.git/HEAD", "x\n");
    write(root, "pkg/.a3s-code/x", "x\n");
    write(root, "src/.a3s/impl.js", "hello\n");
    write(root, "src/.turngate/y.js", "kept\n");
    expect(await observer.delta()).toEqual({
      changes: [
        { path: ".git/config", change: "added", content_digest: SHA["x\n"], scope: "harness" },
        { path: "pkg/.a3s-code/x", change: "added", content_digest: SHA["x\n"], scope: "source" },
        {
          path: "src/.a3s/impl.js",
          change: "added",
          content_digest: SHA["hello\n"],
          scope: "source",
        },
        {
          path: "src/.turngate/y.js",
          change: "added",
          content_digest: SHA["kept\n"],
          scope: "source",
        },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("there is no entry cap: 4,200 files (A3S stopped at 4,096) are all observed", async () => {
    // Hard links to one file: creating 4,200 inodes is slow on loaded CI disks.
    writeFileSync(join(dir, "seed.txt"), "x\n");
    for (let d = 0; d < 4; d++) mkdirSync(join(root, `many/d${d}`), { recursive: true });
    for (let i = 0; i < 4200; i++)
      linkSync(join(dir, "seed.txt"), join(root, `many/d${i % 4}/f${i}.txt`));
    const observer = new WorkspaceObserver(root);
    const base = await observer.baseline();
    expect(base.entries.size).toBe(4201);
    expect(base.unreadable).toEqual([]);
    unlinkSync(join(root, "many/d3/f4199.txt"));
    write(root, "many/d3/f4199.txt", "hello\n");
    expect(await observer.delta()).toEqual({
      changes: [
        {
          path: "many/d3/f4199.txt",
          change: "modified",
          content_digest: SHA["hello\n"],
          scope: "source",
        },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a symlinked directory is recorded as a link and not walked", async () => {
    write(dir, "elsewhere/inner.txt", "x\n");
    symlinkSync("../elsewhere", join(root, "linked-dir"));
    const base = await new WorkspaceObserver(root).baseline();
    expect([...base.entries.keys()].sort()).toEqual(["a.txt", "linked-dir"]);
    expect(base.entries.get("linked-dir")?.kind).toBe("symlink");
  });

  test("non-ASCII and spaced names are keyed NFC", async () => {
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    write(root, "Ordner mit Leerzeichen/u\u0308ber.txt", "x\n");
    expect((await observer.delta()).changes).toEqual([
      {
        path: "Ordner mit Leerzeichen/\u00fcber.txt",
        change: "added",
        content_digest: SHA["x\n"],
        scope: "source",
      },
    ]);
  });
});
