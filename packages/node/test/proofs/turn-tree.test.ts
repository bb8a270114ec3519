import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, test } from "vitest";
import { sourceTreeId, turnSourceTree, WorkspaceObserver } from "../../src/index.js";
import { git, temp } from "../temp-git.js";

// docs/design.md §3 "Proof": the proof's final tree comes from the baseline tree plus the turn's
// changes, and equals the tree `git add -A` in a fresh index gives (sourceTreeId, every
// file hashed) — the oracle in every test here.

function write(root: string, path: string, text: string): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A committed repository with a few folders, an ignore rule and an executable. */
function repo(): string {
  const root = temp("turngate-turn-tree-");
  write(root, "a.txt", "a\n");
  write(root, "src/b.ts", "b\n");
  write(root, "src/deep/c.ts", "c\n");
  write(root, "gone/sub/x.txt", "x\n");
  write(root, "run.sh", "echo\n");
  write(root, ".gitignore", "ignored/\n*.log\n");
  write(root, "untracked.txt", "u\n");
  git(root, "init", "-q");
  git(root, "add", "-A", ":!untracked.txt");
  git(root, "commit", "-q", "--no-gpg-sign", "-m", "base");
  return root;
}

/** Baseline, `change`, then the turn's tree from the changes and the oracle's tree. */
async function turn(root: string, change: (root: string) => void, ignores: string[] = []) {
  const observer = new WorkspaceObserver(root, { ignores });
  const baseline = await observer.baseline();
  const baselineTree = (await sourceTreeId(root)).tree as string;
  change(root);
  const snapshot = await observer.snapshot();
  const delta = WorkspaceObserver.diff(baseline, snapshot);
  const result = await turnSourceTree({
    root,
    baselineTree,
    delta,
    snapshot,
    configuredIgnores: observer.configuredIgnores,
  });
  const oracle = (await sourceTreeId(root)).tree;
  return { result, oracle, baselineTree };
}

describe("turnSourceTree: the turn's tree from the baseline tree and the changes", () => {
  test("modified, added in a new folder, deleted down to an empty folder, untracked, chmod: only the changed files are hashed, and the objects are written", async () => {
    const root = repo();
    const { result, oracle, baselineTree } = await turn(root, (r) => {
      write(r, "a.txt", "changed\n");
      write(r, "new/a b/ü/f i.txt", "n\n");
      rmSync(join(r, "gone"), { recursive: true });
      unlinkSync(join(r, "src/b.ts"));
      write(r, "untracked.txt", "u2\n");
      chmodSync(join(r, "run.sh"), 0o755);
      write(r, "ignored/x", "ignored\n");
      write(r, "debug.log", "ignored too\n");
    });
    expect(result).toEqual({ tree: oracle, reason: null, from: "changes" });
    expect(oracle).not.toBe(baselineTree);
    // The tree and everything it names are in the object store (diffs read them later).
    expect(
      git(
        root,
        "-c",
        "core.quotepath=false",
        "ls-tree",
        "-r",
        "--name-only",
        oracle as string,
      ).split("\n"),
    ).toEqual([
      ".gitignore",
      "a.txt",
      "new/a b/ü/f i.txt",
      "run.sh",
      "src/deep/c.ts",
      "untracked.txt",
    ]);
    expect(git(root, "show", `${oracle}:a.txt`)).toBe("changed");
  });

  test("attack round: a folder replaced by a file, a name stored decomposed (NFD), an ignored file at an output location: the tree is git's own", async () => {
    const cases: Array<[string, (r: string) => void]> = [
      [
        "folder replaced by a file",
        (r) => {
          rmSync(join(r, "gone"), { recursive: true });
          write(r, "gone", "now a file\n");
        },
      ],
      ["NFD name", (r) => write(r, "cafe\u0301.js", "module.exports = 1;\n")],
      [
        "ignored file at an output location",
        (r) => {
          write(r, ".gitignore", "ignored/\n*.log\n__pycache__/\n");
          git(r, "add", ".gitignore");
          git(r, "commit", "-q", "--no-gpg-sign", "-m", "ignore pycache");
        },
      ],
    ];
    for (const [name, change] of cases) {
      const root = repo();
      if (name === "ignored file at an output location") {
        change(root);
        const { result, oracle } = await turn(root, (r) => write(r, "__pycache__/calc.pyc", "x"));
        expect(result.tree, name).toBe(oracle);
        continue;
      }
      const { result, oracle } = await turn(root, change);
      expect(result.tree, name).toBe(oracle);
      expect(result.tree, name).not.toBeNull();
    }
  });

  test("a change to an ignored file alone leaves the baseline tree", async () => {
    const root = repo();
    write(root, "ignored/x", "0\n");
    const { result, baselineTree } = await turn(root, (r) => write(r, "ignored/x", "1\n"));
    expect(result).toEqual({ tree: baselineTree, reason: null, from: "changes" });
  });

  test("falls back to hashing every file, with the reason, where the changes cannot give git's tree", async () => {
    const cases: Array<[string, (r: string) => void, string, string[]?]> = [
      [".gitignore changed", (r) => write(r, ".gitignore", "ignored/\n"), ".gitignore changed"],
      ["a symlink", (r) => symlinkSync("a.txt", join(r, "link")), "a symlink takes the full tree"],
      [
        "nested repository",
        (r) => write(r, "vendor/lib/x.txt", "x2\n"),
        "a change lies inside the nested repository vendor/lib/",
      ],
      [
        "configured ignores",
        (r) => write(r, "a.txt", "2\n"),
        "configured ignores hide files git lists",
        ["src/deep/**"],
      ],
    ];
    const REFUSED: Record<string, (root: string) => string> = {
      "nested repository": (root) =>
        `final_tree: vendor/lib is a submodule (gitlink ${git(join(root, "vendor/lib"), "rev-parse", "HEAD").slice(0, 12)}) whose commit does not hold the checked bytes: vendor/lib/x.txt differs`,
      "configured ignores": () =>
        "final_tree: src/deep/c.ts is not in the judged snapshot: the checks never saw it",
    };
    for (const [name, change, reason, ignores] of cases) {
      const root = repo();
      if (name === "nested repository") {
        // A repository inside the workspace, committed before the baseline: git records it
        // as one gitlink, so the files changed inside it say nothing of the outer tree.
        write(root, "vendor/lib/x.txt", "x\n");
        git(join(root, "vendor/lib"), "init", "-q");
        git(join(root, "vendor/lib"), "add", "-A");
        git(join(root, "vendor/lib"), "commit", "-q", "--no-gpg-sign", "-m", "lib");
      }
      const { result, oracle } = await turn(root, change, ignores);
      const refused = REFUSED[name];
      if (refused !== undefined) {
        // docs/design.md §3 "Proof": git's tree is not the bytes the checks saw, so none is
        // recorded (the nested repository is one gitlink to its old commit; configured
        // ignores leave files out of the judged snapshot that git's tree holds).
        expect(result, name).toEqual({
          tree: null,
          reason: refused(root),
          from: "full",
          fullReason: reason,
        });
        continue;
      }
      expect(result.tree, name).toBe(oracle);
      if (reason === "a symlink takes the full tree") {
        // The fast path gives up on a symlink; with `write` the full tree is taken.
        expect(result.from, name).toBe("changes");
      } else {
        expect(result, name).toEqual({
          tree: oracle,
          reason: null,
          from: "full",
          fullReason: reason,
        });
      }
    }
  });

  test("a baseline tree object altered in the store is never built on: the full tree is taken", async () => {
    const root = repo();
    const observer = new WorkspaceObserver(root);
    const baseline = await observer.baseline();
    const baselineTree = (await sourceTreeId(root)).tree as string;
    // src/'s tree object gets the bytes of a tree that names another blob for b.ts.
    const srcTree = git(root, "rev-parse", `${baselineTree}:src`);
    const evilBlob = git(root, "hash-object", "-w", "--stdin");
    const deep = git(root, "rev-parse", `${baselineTree}:src/deep`);
    const forged = execFileSync("git", ["mktree"], {
      cwd: root,
      input: `100644 blob ${evilBlob}\tb.ts\n040000 tree ${deep}\tdeep\n`,
    })
      .toString()
      .trim();
    const objectPath = (id: string) => join(root, ".git/objects", id.slice(0, 2), id.slice(2));
    const forgedBytes = execFileSync("cat", [objectPath(forged)]);
    chmodSync(objectPath(srcTree), 0o644);
    writeFileSync(objectPath(srcTree), forgedBytes);
    write(root, "src/deep/c.ts", "c2\n");
    const snapshot = await observer.snapshot();
    const result = await turnSourceTree({
      root,
      baselineTree,
      delta: WorkspaceObserver.diff(baseline, snapshot),
      snapshot,
      configuredIgnores: false,
    });
    // Never a tree derived from the altered object (it would name the empty blob for
    // src/b.ts): the full hash, or no tree when git itself refuses the store.
    expect(evilBlob).toBe("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    if (result.tree !== null) {
      expect(git(root, "ls-tree", "-r", result.tree, "src/b.ts")).toContain(
        git(root, "hash-object", "src/b.ts"),
      );
    }
  });

  const op = fc.oneof(
    fc.record({
      kind: fc.constant("write" as const),
      path: fc.constantFrom(
        "a.txt",
        "src/b.ts",
        "src/deep/c.ts",
        "n/e/w.txt",
        "untracked.txt",
        "ignored/y",
        "z.log",
        "gone/sub/x.txt",
      ),
      text: fc.string({ maxLength: 4 }),
    }),
    fc.record({
      kind: fc.constant("delete" as const),
      path: fc.constantFrom(
        "a.txt",
        "src/b.ts",
        "src/deep/c.ts",
        "gone/sub/x.txt",
        "untracked.txt",
        "run.sh",
      ),
    }),
    fc.record({ kind: fc.constant("chmod" as const), path: fc.constantFrom("a.txt", "run.sh") }),
  );
  fcTest.prop([fc.array(op, { maxLength: 6 })], { numRuns: process.env.CI ? 40 : 12 })(
    "random turns: the tree from the changes equals git's own",
    async (ops) => {
      const root = repo();
      const { result, oracle } = await turn(root, (r) => {
        for (const o of ops) {
          const at = join(r, o.path);
          if (o.kind === "write") write(r, o.path, o.text);
          else if (o.kind === "delete") rmSync(at, { force: true });
          else {
            try {
              chmodSync(at, 0o755);
            } catch {
              // gone already
            }
          }
        }
      });
      expect(result.tree).toBe(oracle);
      expect(result.from).toBe("changes");
      rmSync(root, { recursive: true, force: true });
    },
  );
});
