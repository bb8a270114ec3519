import {
  chmodSync,
  linkSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { DELETED_CONTENT_DIGEST } from "@turngate/core";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  deserializeSnapshot,
  serializeSnapshot,
  WorkspaceObserver,
} from "../../src/workspace/index.js";
import { git, initRepo, makeTempDir, removeDir, SHA, write } from "./helpers.js";

let dir: string;
let root: string;

beforeEach(() => {
  dir = makeTempDir();
  root = join(dir, "repo");
  mkdirSync(root);
  initRepo(root, { "a.txt": "hello\n", "src/keep.txt": "kept\n" });
});

afterEach(() => removeDir(dir));

async function observed(): Promise<WorkspaceObserver> {
  const observer = new WorkspaceObserver(root);
  await observer.baseline();
  return observer;
}

describe("WorkspaceObserver in a git work tree", () => {
  test("baseline lists tracked files with sha256 digests and lstat identity", async () => {
    const observer = new WorkspaceObserver(root);
    const base = await observer.baseline();
    const st = statSync(join(root, "a.txt"));
    expect(base.git).toBe(true);
    expect(base.root).toBe(root);
    expect([...base.entries.keys()].sort()).toEqual(["a.txt", "src/keep.txt"]);
    expect(base.entries.get("a.txt")).toEqual({
      kind: "file",
      content_digest: SHA["hello\n"],
      size: 6,
      mtime_ms: st.mtimeMs,
      ctime_ms: st.ctimeMs,
      ino: st.ino,
      mode: st.mode,
    });
    expect(base.unreadable).toEqual([]);
  });

  test("a snapshot lists its entries in the same order whichever changed (a changed entry keeps its place), on both paths", async () => {
    for (const native of ["1", "0"]) {
      const previous = process.env.TURNGATE_NATIVE;
      process.env.TURNGATE_NATIVE = native;
      try {
        for (const name of ["b.txt", "c.txt", "src/z.txt"]) write(root, name, `${name}\n`);
        const base = await new WorkspaceObserver(root).baseline();
        // As if the baseline had been taken a minute later: no entry is racy, so the
        // unchanged ones come from the stat cache and only the changed ones are hashed.
        const stored = serializeSnapshot(base);
        stored.taken_at_ms = Date.now() + 60_000;
        const observer = new WorkspaceObserver(root);
        observer.restoreBaseline(deserializeSnapshot(JSON.parse(JSON.stringify(stored))));
        const order = [...base.entries.keys()];
        expect([...order].sort()).toEqual(["a.txt", "b.txt", "c.txt", "src/keep.txt", "src/z.txt"]);
        write(root, "a.txt", "x\n");
        write(root, "c.txt", "changed too\n");
        const snapshot = await observer.snapshot();
        expect([...snapshot.entries.keys()]).toEqual(order);
        expect(snapshot.entries.get("a.txt")?.content_digest).toBe(SHA["x\n"]);
        // A file removed: the others keep their order, and no place is left pending.
        rmSync(join(root, "b.txt"));
        const after = await observer.snapshot();
        expect([...after.entries.keys()]).toEqual(order.filter((p) => p !== "b.txt"));
        expect([...after.entries.values()].every((e) => e.content_digest.length === 64)).toBe(true);
        // A new file (stat'ed after the cached ones) has the same place on its first
        // snapshot as on the next.
        write(root, "b2.txt", "x\n");
        const added = [...(await observer.snapshot()).entries.keys()];
        expect([...added].sort()).toEqual([...order.filter((p) => p !== "b.txt"), "b2.txt"].sort());
        expect([...(await observer.snapshot()).entries.keys()]).toEqual(added);
      } finally {
        if (previous === undefined) delete process.env.TURNGATE_NATIVE;
        else process.env.TURNGATE_NATIVE = previous;
      }
      rmSync(join(root, "c.txt"), { force: true });
      rmSync(join(root, "b2.txt"), { force: true });
    }
  });

  test("an untracked new file is added with the sha256 of its bytes", async () => {
    const observer = await observed();
    write(root, "new.txt", "hello world\n");
    expect(await observer.delta()).toEqual({
      changes: [
        { path: "new.txt", change: "added", content_digest: SHA["hello world\n"], scope: "source" },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a modified tracked file is reported with its new digest", async () => {
    const observer = await observed();
    write(root, "a.txt", "hello world\n");
    expect((await observer.delta()).changes).toEqual([
      { path: "a.txt", change: "modified", content_digest: SHA["hello world\n"], scope: "source" },
    ]);
  });

  test("a tracked file deleted from disk is reported with the deleted marker", async () => {
    const observer = await observed();
    unlinkSync(join(root, "a.txt"));
    expect(DELETED_CONTENT_DIGEST).toBe("deleted");
    expect(await observer.delta()).toEqual({
      changes: [{ path: "a.txt", change: "deleted", content_digest: "deleted", scope: "source" }],
      complete: true,
      unreadable: [],
    });
  });

  test("a rename is a delete plus an add", async () => {
    const observer = await observed();
    renameSync(join(root, "a.txt"), join(root, "src/b.txt"));
    expect((await observer.delta()).changes).toEqual([
      { path: "a.txt", change: "deleted", content_digest: "deleted", scope: "source" },
      { path: "src/b.txt", change: "added", content_digest: SHA["hello\n"], scope: "source" },
    ]);
  });

  test("git mv (staged rename) is also a delete plus an add", async () => {
    const observer = await observed();
    git(root, "mv", "a.txt", "moved.txt");
    expect((await observer.delta()).changes).toEqual([
      { path: "a.txt", change: "deleted", content_digest: "deleted", scope: "source" },
      { path: "moved.txt", change: "added", content_digest: SHA["hello\n"], scope: "source" },
    ]);
  });

  test("chmod is a modification with the unchanged content digest", async () => {
    const observer = await observed();
    chmodSync(join(root, "a.txt"), 0o755);
    expect((await observer.delta()).changes).toEqual([
      { path: "a.txt", change: "modified", content_digest: SHA["hello\n"], scope: "source" },
    ]);
  });

  test("touching a file without changing its bytes is not a change", async () => {
    const observer = await observed();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, "a.txt"), later, later);
    expect((await observer.delta()).changes).toEqual([]);
  });

  test("a symlink inside the root is hashed as its link text, never followed", async () => {
    const observer = await observed();
    write(root, "target.txt", "x\n");
    symlinkSync("target.txt", join(root, "link"));
    const delta = await observer.delta();
    expect(delta.changes).toEqual([
      { path: "link", change: "added", content_digest: SHA["target.txt"], scope: "source" },
      { path: "target.txt", change: "added", content_digest: SHA["x\n"], scope: "source" },
    ]);
    const snap = await observer.snapshot();
    expect(snap.entries.get("link")?.kind).toBe("symlink");
    expect(snap.entries.get("link")?.size).toBe("target.txt".length);
    // Changing the target's bytes changes the target entry only.
    write(root, "target.txt", "hello\n");
    expect((await observer.delta()).changes).toEqual([
      { path: "link", change: "added", content_digest: SHA["target.txt"], scope: "source" },
      { path: "target.txt", change: "added", content_digest: SHA["hello\n"], scope: "source" },
    ]);
  });

  test("a symlink pointing outside the root is recorded and its target is never read", async () => {
    write(dir, "outside.txt", "hello\n");
    const observer = await observed();
    symlinkSync("../outside.txt", join(root, "out-link"));
    expect((await observer.delta()).changes).toEqual([
      { path: "out-link", change: "added", content_digest: SHA["../outside.txt"], scope: "source" },
    ]);
    // The outside file is unreadable and then changed: the observation does not notice,
    // because only the link text is observed.
    chmodSync(join(dir, "outside.txt"), 0);
    writeFileSync(join(dir, "outside.txt"), "changed outside\n");
    expect(await observer.delta()).toEqual({
      changes: [
        {
          path: "out-link",
          change: "added",
          content_digest: SHA["../outside.txt"],
          scope: "source",
        },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a tracked directory replaced by a symlink is not read through", async () => {
    write(dir, "elsewhere/keep.txt", "hello\n");
    const observer = await observed();
    rmSync(join(root, "src"), { recursive: true });
    symlinkSync("../elsewhere", join(root, "src"));
    // git still lists src/keep.txt from its index; resolving it would read ../elsewhere.
    expect(await observer.delta()).toEqual({
      changes: [
        { path: "src", change: "added", content_digest: SHA["../elsewhere"], scope: "source" },
        { path: "src/keep.txt", change: "deleted", content_digest: "deleted", scope: "source" },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("retargeting a symlink is a modification with the new link-text digest", async () => {
    symlinkSync("target.txt", join(root, "link"));
    git(root, "add", "link");
    git(root, "commit", "-q", "-m", "link");
    const observer = await observed();
    unlinkSync(join(root, "link"));
    symlinkSync("../outside.txt", join(root, "link"));
    expect((await observer.delta()).changes).toEqual([
      { path: "link", change: "modified", content_digest: SHA["../outside.txt"], scope: "source" },
    ]);
  });

  test("binary content is hashed byte for byte", async () => {
    const observer = await observed();
    write(
      root,
      "bin.dat",
      Uint8Array.from({ length: 256 }, (_, i) => i),
    );
    expect((await observer.delta()).changes).toEqual([
      { path: "bin.dat", change: "added", content_digest: SHA.bytes0to255, scope: "source" },
    ]);
  });

  test("large files (over the 256 KiB synchronous limit) are streamed and hashed exactly", async () => {
    const observer = await observed();
    write(root, "big/a.bin", "a".repeat(300_000));
    write(
      root,
      "big/b.bin",
      Uint8Array.from({ length: 1_048_579 }, (_, i) => i % 251),
    );
    expect((await observer.delta()).changes).toEqual([
      { path: "big/a.bin", change: "added", content_digest: SHA.a300000, scope: "source" },
      { path: "big/b.bin", change: "added", content_digest: SHA.mod251x1MiBplus3, scope: "source" },
    ]);
  });

  test("CRLF content is hashed as stored, with no newline conversion", async () => {
    git(root, "config", "core.autocrlf", "true");
    const observer = await observed();
    write(root, "crlf.txt", "line1\r\nline2\r\n");
    expect((await observer.delta()).changes).toEqual([
      {
        path: "crlf.txt",
        change: "added",
        content_digest: SHA["line1\r\nline2\r\n"],
        scope: "source",
      },
    ]);
  });

  test("names with spaces and non-ASCII are keyed relative, '/'-separated and NFC", async () => {
    const observer = await observed();
    const nfd = "cafe\u0301";
    write(root, `dir with space/${nfd}.txt`, "x\n");
    write(root, "naïve ü.txt", "hello\n");
    const delta = await observer.delta();
    expect(delta.changes).toEqual([
      {
        path: "dir with space/café.txt",
        change: "added",
        content_digest: SHA["x\n"],
        scope: "source",
      },
      { path: "naïve ü.txt", change: "added", content_digest: SHA["hello\n"], scope: "source" },
    ]);
    expect(delta.changes[0]?.path).toBe("dir with space/caf\u00e9.txt");
    // A later rewrite of the NFD-named file is still found (it is read by its disk name).
    write(root, `dir with space/${nfd}.txt`, "hello world\n");
    expect((await observer.delta()).changes[0]).toEqual({
      path: "dir with space/café.txt",
      change: "added",
      content_digest: SHA["hello world\n"],
      scope: "source",
    });
  });

  test("two names that are equal after NFC make the observation incomplete", async () => {
    const observer = await observed();
    write(root, "caf\u00e9.txt", "x\n");
    write(root, "cafe\u0301.txt", "hello\n");
    expect(await observer.delta()).toEqual({
      changes: [],
      complete: false,
      unreadable: ["café.txt"],
    });
  });

  test("files ignored by .gitignore, .git/info/exclude or the global excludes are outside the source scope, recorded as ignored", async () => {
    const globalExcludes = join(dir, "global-excludes");
    writeFileSync(globalExcludes, "*.global\n");
    const globalConfig = join(dir, "gitconfig");
    writeFileSync(globalConfig, `[core]\n\texcludesFile = ${globalExcludes}\n`);
    const saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = globalConfig;
    try {
      write(root, ".gitignore", "*.log\nbuild/\n");
      write(root, ".git/info/exclude", "*.local\n");
      git(root, "add", ".gitignore");
      git(root, "commit", "-q", "-m", "ignore");
      const observer = await observed();
      write(root, "debug.log", "x\n");
      write(root, "build/out.js", "x\n");
      write(root, "settings.local", "x\n");
      write(root, "cache.global", "x\n");
      write(root, "visible.txt", "x\n");
      const delta = await observer.delta();
      expect(delta.changes).toEqual([
        { path: "build/out.js", change: "added", content_digest: SHA["x\n"], scope: "ignored" },
        { path: "cache.global", change: "added", content_digest: SHA["x\n"], scope: "ignored" },
        { path: "debug.log", change: "added", content_digest: SHA["x\n"], scope: "ignored" },
        { path: "settings.local", change: "added", content_digest: SHA["x\n"], scope: "ignored" },
        { path: "visible.txt", change: "added", content_digest: SHA["x\n"], scope: "source" },
      ]);
      expect([...(await observer.snapshot()).entries.keys()]).not.toContain("debug.log");
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
  });

  test("a tracked file that matches .gitignore is still observed (git tracks it)", async () => {
    write(root, ".gitignore", "*.log\n");
    write(root, "tracked.log", "tracked\n");
    git(root, "add", "-f", ".gitignore", "tracked.log");
    git(root, "commit", "-q", "-m", "tracked log");
    const observer = await observed();
    write(root, "tracked.log", "hello\n");
    expect((await observer.delta()).changes).toEqual([
      { path: "tracked.log", change: "modified", content_digest: SHA["hello\n"], scope: "source" },
    ]);
  });

  test("configured ignores apply in git mode too", async () => {
    const observer = new WorkspaceObserver(root, { ignores: ["generated/", "*.tmp", "lib/"] });
    await observer.baseline();
    // An untracked nested repository, which git lists as the directory "vendor/lib/".
    mkdirSync(join(root, "vendor/lib"), { recursive: true });
    initRepo(join(root, "vendor/lib"), { "lib.txt": "nested\n" });
    write(root, "generated/a.js", "x\n");
    write(root, "scratch.tmp", "x\n");
    write(root, "src/new.ts", "x\n");
    expect((await observer.delta()).changes).toEqual([
      { path: "src/new.ts", change: "added", content_digest: SHA["x\n"], scope: "source" },
    ]);
  });

  test("root harness directories are never listed; foreign files of the root's .git/ and .turngate/ and of a nested repository's .git/ are harness rows", async () => {
    const nested = join(root, "vendor/lib");
    mkdirSync(nested, { recursive: true });
    initRepo(nested, { "lib.txt": "nested\n" });
    const observer = await observed();
    write(root, ".turngate/logs/x.log", "x\n");
    write(root, ".a3s/state.json", "x\n");
    write(root, ".a3s-code/state.json", "x\n");
    write(root, ".git/turngate-probe", "x\n");
    write(root, "vendor/lib/.git/turngate-probe", "x\n");
    expect(await observer.delta()).toEqual({
      changes: [
        {
          path: ".git/turngate-probe",
          change: "added",
          content_digest: SHA["x\n"],
          scope: "harness",
        },
        {
          path: ".turngate/logs/x.log",
          change: "added",
          content_digest: SHA["x\n"],
          scope: "harness",
        },
        {
          path: "vendor/lib/.git/turngate-probe",
          change: "added",
          content_digest: SHA["x\n"],
          scope: "harness",
        },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("nested .a3s, .a3s-code and .turngate directories are ordinary content and observed", async () => {
    const observer = await observed();
    write(root, "src/.a3s/impl.js", "x\n");
    write(root, "src/.turngate/y.js", "hello\n");
    write(root, "pkg/.a3s-code/state.json", "kept\n");
    expect(await observer.delta()).toEqual({
      changes: [
        {
          path: "pkg/.a3s-code/state.json",
          change: "added",
          content_digest: SHA["kept\n"],
          scope: "source",
        },
        { path: "src/.a3s/impl.js", change: "added", content_digest: SHA["x\n"], scope: "source" },
        {
          path: "src/.turngate/y.js",
          change: "added",
          content_digest: SHA["hello\n"],
          scope: "source",
        },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a nested repository's own .turngate and .a3s directories are observed (not the root's)", async () => {
    const nested = join(root, "vendor/lib");
    mkdirSync(nested, { recursive: true });
    initRepo(nested, { "lib.txt": "nested\n" });
    const observer = await observed();
    write(root, "vendor/lib/.turngate/y.js", "x\n");
    write(root, "vendor/lib/.a3s/z.js", "hello\n");
    expect((await observer.delta()).changes).toEqual([
      {
        path: "vendor/lib/.a3s/z.js",
        change: "added",
        content_digest: SHA["hello\n"],
        scope: "source",
      },
      {
        path: "vendor/lib/.turngate/y.js",
        change: "added",
        content_digest: SHA["x\n"],
        scope: "source",
      },
    ]);
  });

  test("a same-size rewrite within the same second is seen", async () => {
    write(root, "same.txt", "aaaa");
    git(root, "add", "same.txt");
    git(root, "commit", "-q", "-m", "same");
    // Whole-second mtimes, as on filesystems with 1 s timestamps.
    const second = Math.floor(Date.now() / 1000);
    utimesSync(join(root, "same.txt"), second, second);
    const observer = await observed();
    const before = statSync(join(root, "same.txt"));
    writeFileSync(join(root, "same.txt"), "bbbb");
    // Put mtime back to the same second: size and mtime match the cached stat.
    utimesSync(join(root, "same.txt"), second, second);
    const after = statSync(join(root, "same.txt"));
    expect(after.size).toBe(before.size);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.mtimeMs).toBe(second * 1000);
    expect((await observer.delta()).changes).toEqual([
      { path: "same.txt", change: "modified", content_digest: SHA.bbbb, scope: "source" },
    ]);
  });

  test("a hard link rewritten through another name is seen", async () => {
    const observer = await observed();
    linkSync(join(root, "a.txt"), join(dir, "alias.txt"));
    writeFileSync(join(dir, "alias.txt"), "HELLO\n");
    expect((await observer.delta()).changes).toEqual([
      { path: "a.txt", change: "modified", content_digest: SHA["HELLO\n"], scope: "source" },
    ]);
  });

  test("the baseline does not move: delta() is always against the first baseline", async () => {
    const observer = await observed();
    write(root, "new.txt", "x\n");
    await observer.delta();
    rmSync(join(root, "new.txt"));
    expect((await observer.delta()).changes).toEqual([]);
    write(root, "a.txt", "hello world\n");
    const first = await observer.delta();
    const second = await observer.delta();
    expect(second).toEqual(first);
    expect(first.changes).toEqual([
      { path: "a.txt", change: "modified", content_digest: SHA["hello world\n"], scope: "source" },
    ]);
  });

  test("an untracked nested repository is listed through its own git listing", async () => {
    const nested = join(root, "vendor/lib");
    mkdirSync(nested, { recursive: true });
    initRepo(nested, { "lib.txt": "nested\n", ".gitignore": "*.o\n" });
    const observer = await observed();
    write(root, "vendor/lib/lib.txt", "x\n");
    write(root, "vendor/lib/obj.o", "x\n");
    write(root, "vendor/lib/more.txt", "x\n");
    expect((await observer.delta()).changes).toEqual([
      {
        path: "vendor/lib/lib.txt",
        change: "modified",
        content_digest: SHA["x\n"],
        scope: "source",
      },
      { path: "vendor/lib/more.txt", change: "added", content_digest: SHA["x\n"], scope: "source" },
      { path: "vendor/lib/obj.o", change: "added", content_digest: SHA["x\n"], scope: "ignored" },
    ]);
    expect((await observer.snapshot()).entries.has("vendor/lib/.gitignore")).toBe(true);
  });

  test("a tracked submodule's files are listed through the submodule's own git listing", async () => {
    const upstream = join(dir, "upstream");
    mkdirSync(upstream);
    initRepo(upstream, { "s.txt": "nested\n", ".gitignore": "*.o\n" });
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", upstream, "sub");
    git(root, "commit", "-q", "-m", "submodule");
    const observer = new WorkspaceObserver(root);
    const base = await observer.baseline();
    expect([...base.entries.keys()].sort()).toEqual([
      ".gitmodules",
      "a.txt",
      "src/keep.txt",
      "sub/.gitignore",
      "sub/s.txt",
    ]);
    write(root, "sub/s.txt", "x\n");
    write(root, "sub/build.o", "x\n");
    expect((await observer.delta()).changes).toEqual([
      { path: "sub/build.o", change: "added", content_digest: SHA["x\n"], scope: "ignored" },
      { path: "sub/s.txt", change: "modified", content_digest: SHA["x\n"], scope: "source" },
    ]);
  });

  test("a workspace root below the top of the work tree lists only its own subtree", async () => {
    const observer = new WorkspaceObserver(join(root, "src"));
    const base = await observer.baseline();
    expect([...base.entries.keys()]).toEqual(["keep.txt"]);
    write(root, "outside-sub.txt", "x\n");
    write(root, "src/inside.txt", "x\n");
    expect((await observer.delta()).changes).toEqual([
      { path: "inside.txt", change: "added", content_digest: SHA["x\n"], scope: "source" },
    ]);
  });

  test("useGit: true outside a work tree fails with git_failed naming useGit", async () => {
    const plain = join(dir, "plain");
    mkdirSync(plain);
    const observer = new WorkspaceObserver(plain, { useGit: true });
    await expect(observer.baseline()).rejects.toMatchObject({
      name: "WorkspaceObserverError",
      code: "git_failed",
      field: "useGit",
    });
  });
});
