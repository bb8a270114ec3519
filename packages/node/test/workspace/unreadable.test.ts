import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { WorkspaceObserver } from "../../src/workspace/index.js";
import { initRepo, makeTempDir, removeDir, SHA, sourceScope, write } from "./helpers.js";
import { permissionTrickUnavailable, withPermissionsEnforced } from "./unprivileged.js";

let dir: string;
let root: string;

beforeEach(() => {
  dir = makeTempDir();
  chmodSync(dir, 0o755);
  root = join(dir, "ws");
  mkdirSync(root);
});

afterEach(() => {
  execFileSync("chmod", ["-R", "u+rwX", dir]);
  removeDir(dir);
});

const noPermissionTrick = permissionTrickUnavailable();

describe("WorkspaceObserver: paths it cannot read", () => {
  test("a FIFO in a walked workspace is unreadable and makes the delta incomplete", async () => {
    write(root, "a.txt", "hello\n");
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    execFileSync("mkfifo", [join(root, "pipe")]);
    write(root, "b.txt", "x\n");
    expect(await observer.delta()).toEqual({
      changes: [{ path: "b.txt", change: "added", content_digest: SHA["x\n"], scope: "source" }],
      complete: false,
      unreadable: ["pipe"],
    });
  });

  test("an untracked FIFO in a git work tree, which git does not list, is found and reported unreadable (issue 10)", async () => {
    initRepo(root, { "a.txt": "hello\n" });
    execFileSync("mkfifo", [join(root, "pipe")]);
    const snapshot = await new WorkspaceObserver(root).baseline();
    expect([...snapshot.entries.keys()]).toEqual(["a.txt"]);
    expect(snapshot.unreadable).toEqual(["pipe"]);
  });

  test.skipIf(noPermissionTrick !== undefined)(
    "a file without read permission in a git work tree is reported unreadable",
    async () => {
      initRepo(root, { "a.txt": "hello\n", "secret.txt": "kept\n" });
      const delta = await withPermissionsEnforced(dir, dir, async () => {
        const observer = new WorkspaceObserver(root);
        const base = await observer.baseline();
        expect(base.unreadable).toEqual([]);
        expect(base.entries.get("secret.txt")?.content_digest).toBe(SHA["kept\n"]);
        write(root, "secret.txt", "hello\n");
        chmodSync(join(root, "secret.txt"), 0);
        write(root, "a.txt", "hello world\n");
        return observer.delta();
      });
      expect(delta).toEqual({
        changes: [
          {
            path: "a.txt",
            change: "modified",
            content_digest: SHA["hello world\n"],
            scope: "source",
          },
        ],
        complete: false,
        unreadable: ["secret.txt"],
      });
    },
  );

  test.skipIf(noPermissionTrick !== undefined)(
    "a baseline file unreadable in one delta and readable but ignored in the next is compared by bytes",
    async () => {
      initRepo(root, { "a.txt": "hello\n" });
      write(root, "notes.txt", "kept\n");
      const [first, second] = await withPermissionsEnforced(dir, dir, async () => {
        const observer = new WorkspaceObserver(root);
        await observer.baseline();
        chmodSync(join(root, "notes.txt"), 0);
        const first = sourceScope(await observer.delta());
        chmodSync(join(root, "notes.txt"), 0o644);
        appendFileSync(join(root, ".git/info/exclude"), "notes.txt\n");
        write(root, "notes.txt", "hello\n");
        return [first, sourceScope(await observer.delta())];
      });
      expect(first).toEqual({ changes: [], complete: false, unreadable: ["notes.txt"] });
      expect(second).toEqual({
        changes: [
          {
            path: "notes.txt",
            change: "modified",
            content_digest: SHA["hello\n"],
            scope: "source",
          },
        ],
        complete: true,
        unreadable: [],
      });
    },
  );

  test.skipIf(noPermissionTrick !== undefined)(
    "an unreadable directory in a walked workspace is reported unreadable; once readable its files are reported",
    async () => {
      write(root, "locked/inner.txt", "x\n");
      write(root, "a.txt", "hello\n");
      chmodSync(join(root, "locked"), 0);
      const result = await withPermissionsEnforced(dir, dir, async () => {
        const observer = new WorkspaceObserver(root);
        const base = await observer.baseline();
        chmodSync(join(root, "locked"), 0o755);
        return { base, delta: await observer.delta() };
      });
      expect(result.base.unreadable).toEqual(["locked"]);
      expect([...result.base.entries.keys()]).toEqual(["a.txt"]);
      expect(result.delta).toEqual({
        changes: [
          {
            path: "locked/inner.txt",
            change: "added",
            content_digest: SHA["x\n"],
            scope: "source",
          },
        ],
        complete: true,
        unreadable: [],
      });
    },
  );

  test.skipIf(noPermissionTrick !== undefined)(
    "a file unreadable at baseline and readable later is reported as modified",
    async () => {
      write(root, "a.txt", "hello\n");
      chmodSync(join(root, "a.txt"), 0);
      const result = await withPermissionsEnforced(dir, dir, async () => {
        const observer = new WorkspaceObserver(root);
        const base = await observer.baseline();
        chmodSync(join(root, "a.txt"), 0o644);
        return { base, delta: await observer.delta() };
      });
      expect(result.base.unreadable).toEqual(["a.txt"]);
      expect(result.delta).toEqual({
        changes: [
          { path: "a.txt", change: "modified", content_digest: SHA["hello\n"], scope: "source" },
        ],
        complete: true,
        unreadable: [],
      });
    },
  );
});
