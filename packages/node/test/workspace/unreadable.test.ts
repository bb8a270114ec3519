import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { RACY_WINDOW_MS, WorkspaceObserver } from "../../src/workspace/index.js";
import {
  SPECIAL_FILE_REASON,
  UNREADABLE_FOLDER_REASON,
  UNREADABLE_IGNORED_FOLDER_REASON,
} from "../../src/workspace/scope/index.js";
import { git, initRepo, makeTempDir, removeDir, SHA, sourceScope, write } from "./helpers.js";
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
    "git mode: a folder the agent writes into and then makes unreadable makes the delta incomplete, naming it, on both paths",
    async () => {
      const roots = [false, true].map((native) => join(dir, `ws-${native}`));
      for (const ws of roots) {
        mkdirSync(ws);
        initRepo(ws, { "src/a.txt": "a\n" });
      }
      const deltas = await withPermissionsEnforced(dir, dir, async () => {
        const out = [];
        for (const [i, native] of [false, true].entries()) {
          const ws = roots[i] as string;
          const observer = new WorkspaceObserver(ws, { native });
          await observer.baseline();
          // git ls-files skips an unreadable folder without a word (the review's attack).
          write(ws, "src/hidden/evil.js", "module.exports = () => true;\n");
          chmodSync(join(ws, "src/hidden"), 0);
          out.push(await observer.delta());
        }
        return out;
      });
      for (const delta of deltas) {
        expect(delta).toEqual({
          changes: [],
          complete: false,
          unreadable: ["src/hidden"],
          unreadable_reasons: { "src/hidden": UNREADABLE_FOLDER_REASON },
        });
      }
    },
  );

  test.skipIf(noPermissionTrick !== undefined)(
    "git mode: a folder unreadable at baseline stays reported while it is; once readable, its files are added",
    async () => {
      initRepo(root, { "a.txt": "a\n" });
      write(root, "locked/inner.txt", "x\n");
      chmodSync(join(root, "locked"), 0o300); // -wx: its entries cannot be listed
      const result = await withPermissionsEnforced(dir, dir, async () => {
        // Older than the racy window (the chown above changed its ctime): the delta's scan
        // does not read the folder again, so only the baseline's record keeps it reported.
        await new Promise((r) => setTimeout(r, RACY_WINDOW_MS + 100));
        const observer = new WorkspaceObserver(root);
        const base = await observer.baseline();
        const still = await observer.delta();
        chmodSync(join(root, "locked"), 0o755);
        return { base, still, after: await observer.delta() };
      });
      expect(result.base.unreadable).toEqual(["locked"]);
      expect(result.base.unreadable_reasons).toEqual({ locked: UNREADABLE_FOLDER_REASON });
      expect(result.still).toEqual({
        changes: [],
        complete: false,
        unreadable: ["locked"],
        unreadable_reasons: { locked: UNREADABLE_FOLDER_REASON },
      });
      expect(sourceScope(result.after)).toEqual({
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

// The second review of the unreadable-folder rule (issue 17): ways around it, each on both paths.
const settle = () => new Promise((r) => setTimeout(r, RACY_WINDOW_MS + 100));
const FOLDER = UNREADABLE_FOLDER_REASON;
/** The row of `src/a.js` rewritten to `hello\n`. */
const EDITED_A = {
  path: "src/a.js",
  change: "modified",
  content_digest: SHA["hello\n"],
  scope: "source",
} as const;
for (const native of [false, true]) {
  /**
   * As `nobody`: optionally waits out the racy window (the chown that hands the tree over
   * changes every ctime), takes a baseline, runs the agent's `turn`, and returns the
   * baseline and the delta.
   */
  const observeTurn = (turn: () => void, options: { settled?: boolean } = {}) =>
    withPermissionsEnforced(dir, dir, async () => {
      if (options.settled === true) await settle();
      const observer = new WorkspaceObserver(root, { native });
      const base = await observer.baseline();
      turn();
      return { base, delta: await observer.delta() };
    });

  describe.skipIf(noPermissionTrick !== undefined)(
    `unreadable folders the scan must not miss (native ${native})`,
    () => {
      test("a nested repository the turn creates is scanned whole: its unreadable folder and FIFO are reported", async () => {
        initRepo(root, { "src/a.js": "a\n" });
        const { delta } = await observeTurn(() => {
          mkdirSync(join(root, "src/n"), { recursive: true });
          git(join(root, "src/n"), "init", "-q");
          write(root, "src/n/hidden/evil.js", "evil\n");
          chmodSync(join(root, "src/n/hidden"), 0);
          execFileSync("mkfifo", [join(root, "src/n/p")]);
        });
        expect(sourceScope(delta)).toEqual({
          changes: [],
          complete: false,
          unreadable: ["src/n/hidden", "src/n/p"],
          unreadable_reasons: { "src/n/hidden": FOLDER, "src/n/p": SPECIAL_FILE_REASON },
        });
      });

      test("a recorded folder whose parent can be read but not entered (chmod 644) is reported", async () => {
        initRepo(root, { "src/a.js": "a\n" });
        mkdirSync(join(root, "src/gen/types"), { recursive: true });
        const { delta } = await observeTurn(
          () => {
            write(root, "src/gen/types/evil.js", "evil\n");
            chmodSync(join(root, "src/gen"), 0o644);
          },
          { settled: true },
        );
        expect(sourceScope(delta)).toEqual({
          changes: [],
          complete: false,
          unreadable: ["src/gen/types"],
          unreadable_reasons: { "src/gen/types": FOLDER },
        });
      });

      test("a baseline's unreadable folder whose parent then loses x stays reported (no EACCES thrown)", async () => {
        initRepo(root, { "src/a.js": "a\n" });
        write(root, "src/gen/locked/old.js", "o\n");
        chmodSync(join(root, "src/gen/locked"), 0o300);
        const { delta } = await observeTurn(() => chmodSync(join(root, "src/gen"), 0o644), {
          settled: true,
        });
        expect(sourceScope(delta)).toEqual({
          changes: [],
          complete: false,
          unreadable: ["src/gen/locked"],
          unreadable_reasons: { "src/gen/locked": FOLDER },
        });
      });

      test("a user's r-- folder with a subfolder gives an incomplete delta, not an error", async () => {
        initRepo(root, { "src/a.js": "a\n" });
        write(root, "docs/img/x.txt", "x\n");
        chmodSync(join(root, "docs"), 0o644);
        const { base, delta } = await observeTurn(() => write(root, "src/a.js", "hello\n"), {
          settled: true,
        });
        expect(base.unreadable).toEqual(["docs/img"]);
        expect(sourceScope(delta)).toEqual({
          changes: [EDITED_A],
          complete: false,
          unreadable: ["docs/img"],
          unreadable_reasons: { "docs/img": FOLDER },
        });
      });

      test("an ignored folder that cannot be read makes the delta incomplete, with its reason", async () => {
        initRepo(root, { "src/a.js": "a\n", ".gitignore": "secret/\n" });
        write(root, "secret/x", "x\n");
        chmodSync(join(root, "secret"), 0);
        const { delta } = await observeTurn(() => write(root, "src/a.js", "hello\n"));
        expect(delta).toEqual({
          changes: [EDITED_A],
          complete: false,
          unreadable: ["secret"],
          unreadable_reasons: { secret: UNREADABLE_IGNORED_FOLDER_REASON },
        });
      });

      test("folder names that look like pathspec magic are judged as names by git check-ignore", async () => {
        initRepo(root, { "src/a.js": "a\n", ".gitignore": "dist\n" });
        mkdirSync(join(root, "vendor/lib"), { recursive: true });
        initRepo(join(root, "vendor/lib"), { "lib.txt": "l\n" });
        const { delta } = await observeTurn(() => {
          // `:(top)dist` would be read as `dist` (ignored); `:(bogus)` made check-ignore fail.
          write(root, ":(top)dist/hidden/evil.js", "evil\n");
          chmodSync(join(root, ":(top)dist/hidden"), 0);
          execFileSync("mkfifo", [join(root, ":(top)dist/p")]);
          mkdirSync(join(root, "vendor/lib/:(bogus)"));
          write(root, "vendor/lib/hidden/evil.js", "evil\n");
          chmodSync(join(root, "vendor/lib/hidden"), 0);
        });
        expect(sourceScope(delta)).toEqual({
          changes: [],
          complete: false,
          unreadable: [":(top)dist/hidden", ":(top)dist/p", "vendor/lib/hidden"],
          unreadable_reasons: {
            ":(top)dist/hidden": FOLDER,
            ":(top)dist/p": SPECIAL_FILE_REASON,
            "vendor/lib/hidden": FOLDER,
          },
        });
      });
    },
  );
}
