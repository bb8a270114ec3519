import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { keepTrees, releaseTrees, sourceTreeId, turnDiffs } from "../../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function repo(): { root: string; git: (...args: string[]) => string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-diffs-")));
  dirs.push(root);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
      cwd: root,
      encoding: "utf8",
    });
  git("init", "-q");
  return { root, git };
}

async function tree(root: string): Promise<string> {
  const made = await sourceTreeId(root);
  if (made.tree === null) throw new Error(made.reason);
  return made.tree;
}

describe("turnDiffs", () => {
  test("unified diffs between two source trees; no agent program runs (external diff, textconv); the index is untouched", async () => {
    const { root, git } = repo();
    writeFileSync(join(root, "a.txt"), "one\ntwo\n");
    writeFileSync(join(root, "gone.txt"), "bye\n");
    writeFileSync(join(root, ".gitattributes"), "* diff=evil\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    git("config", "diff.external", `touch ${join(root, "PWNED-external")}`);
    git("config", "diff.evil.textconv", `touch ${join(root, "PWNED-textconv")} && cat`);
    git("config", "diff.evil.command", `touch ${join(root, "PWNED-command")}`);
    git("config", "color.ui", "always");
    git("config", "diff.noprefix", "true");
    const before = await tree(root);
    writeFileSync(join(root, "a.txt"), "one\n2\n");
    rmSync(join(root, "gone.txt"));
    writeFileSync(join(root, "new.txt"), "hello\n");
    const after = await tree(root);
    const indexBefore = readFileSync(join(root, ".git/index"));

    const made = await turnDiffs(root, before, after);
    expect(made.reason).toBeNull();
    expect(made.diffs?.map((d) => [d.path, d.change, d.diff.kind])).toEqual([
      ["a.txt", "modified", "text"],
      ["gone.txt", "deleted", "text"],
      ["new.txt", "added", "text"],
    ]);
    const a = made.diffs?.[0]?.diff;
    expect(a).toEqual({
      kind: "text",
      unified: `diff --git a/a.txt b/a.txt\nindex ${git("rev-parse", `${before}:a.txt`).trim().slice(0, 7)}..${git("rev-parse", `${after}:a.txt`).trim().slice(0, 7)} 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n`,
      additions: 1,
      deletions: 1,
      truncated: false,
    });
    for (const name of ["PWNED-external", "PWNED-textconv", "PWNED-command"]) {
      expect(existsSync(join(root, name))).toBe(false);
    }
    expect(readFileSync(join(root, ".git/index")).equals(indexBefore)).toBe(true);
  });

  test("one batched git diff-tree -p for every text file: odd names, a type change and patch-like content each get their own part", async () => {
    const { root, git } = repo();
    const odd = ["sp ace.txt", "naïve.txt", 'q"uote\\.txt', "a b/c b/d.txt", "x b/x.txt"];
    mkdirSync(join(root, "a b/c b"), { recursive: true });
    mkdirSync(join(root, "x b"));
    for (const name of odd) writeFileSync(join(root, name), "old\n");
    writeFileSync(join(root, "link"), "was a file\n");
    writeFileSync(join(root, "patchy.txt"), "start\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    const before = await tree(root);
    for (const name of odd) writeFileSync(join(root, name), `new ${name}\n`);
    rmSync(join(root, "link"));
    execFileSync("ln", ["-s", "patchy.txt", join(root, "link")]);
    writeFileSync(join(root, "patchy.txt"), "start\ndiff --git a/link b/link\n");
    const after = await tree(root);
    const trace = join(root, "..", `${root.split("/").at(-1)}-trace`);
    dirs.push(trace);
    const made = await turnDiffs(root, before, after, { ...process.env, GIT_TRACE: trace });
    const texts = (made.diffs ?? []).map((d) =>
      d.diff.kind === "text"
        ? [d.path, d.diff.unified.match(/^[-+][^-+].*$/gm)]
        : [d.path, d.diff.kind],
    );
    expect(texts).toEqual([
      ["a b/c b/d.txt", ["-old", "+new a b/c b/d.txt"]],
      ["link", ["-was a file", "+patchy.txt"]],
      ["naïve.txt", ["-old", "+new naïve.txt"]],
      ["patchy.txt", ["+diff --git a/link b/link"]],
      ['q"uote\\.txt', ["-old", '+new q"uote\\.txt']],
      ["sp ace.txt", ["-old", "+new sp ace.txt"]],
      ["x b/x.txt", ["-old", "+new x b/x.txt"]],
    ]);
    // The type change is git's two parts (the file deleted, the link added) under one path.
    const link = made.diffs?.find((d) => d.path === "link")?.diff;
    expect(link?.kind === "text" && link.unified.split("\ndiff --git ").length).toBe(2);
    const patchCalls = readFileSync(trace, "utf8")
      .split("\n")
      .filter((line) => line.includes("trace: built-in: git") && line.includes(" -p "));
    expect(patchCalls).toHaveLength(1);
  });

  test("a workspace below the repository top: paths relative to it, files outside it left out", async () => {
    const { root, git } = repo();
    mkdirSync(join(root, "pkg"));
    writeFileSync(join(root, "pkg/x.txt"), "1\n");
    writeFileSync(join(root, "top.txt"), "1\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    const before = await tree(root);
    writeFileSync(join(root, "pkg/x.txt"), "2\n");
    writeFileSync(join(root, "top.txt"), "2\n");
    const after = await tree(root);
    const made = await turnDiffs(join(root, "pkg"), before, after);
    expect(made.diffs?.map((d) => d.path)).toEqual(["x.txt"]);
  });

  test("why there are no diffs: no trees, a tree not in the store, not a git work tree", async () => {
    const { root } = repo();
    expect(await turnDiffs(root, null, null)).toEqual({
      diffs: null,
      reason: "the turn recorded no git tree for its baseline or its end",
    });
    const missing = "0123456789012345678901234567890123456789";
    expect(await turnDiffs(root, missing, missing)).toEqual({
      diffs: null,
      reason: `the tree ${missing} is not in this repository's object store (pruned by git gc, or the turn happened in another clone)`,
    });
    const plain = realpathSync(mkdtempSync(join(tmpdir(), "turngate-plain-")));
    dirs.push(plain);
    expect(await turnDiffs(plain, missing, missing)).toEqual({
      diffs: null,
      reason: "not a git work tree: diffs are not available",
    });
  });

  test("keepTrees: a ref per tree under refs/turngate/trees/, so git gc --prune=now keeps it", async () => {
    const { root, git } = repo();
    writeFileSync(join(root, "a.txt"), "kept\n");
    const kept = await tree(root);
    expect(await keepTrees(root, [kept, kept, null])).toEqual([kept]);
    expect(git("for-each-ref", "--format=%(refname) %(objecttype)").trim()).toBe(
      `refs/turngate/trees/${kept} tree`,
    );
    git("gc", "-q", "--prune=now");
    expect(git("cat-file", "-t", kept).trim()).toBe("tree");
    // A tree not in the store fails the one transaction; the others are still kept.
    writeFileSync(join(root, "a.txt"), "second\n");
    const second = await tree(root);
    const absent = "1".repeat(40);
    expect(await keepTrees(root, [absent, second])).toEqual([second]);
    expect(git("for-each-ref", "--format=%(refname)").trim().split("\n")).toEqual(
      [`refs/turngate/trees/${kept}`, `refs/turngate/trees/${second}`].sort(),
    );
  });

  test("releaseTrees (turngate gc): only the named trees' refs go, in one transaction; a dry run and other refs are untouched", async () => {
    const { root, git } = repo();
    writeFileSync(join(root, "a.txt"), "one\n");
    const one = await tree(root);
    writeFileSync(join(root, "a.txt"), "two\n");
    const two = await tree(root);
    expect(await keepTrees(root, [one, two])).toEqual([one, two]);
    git("commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", "base");
    git("update-ref", "refs/heads/other", git("rev-parse", "HEAD").trim());
    const refs = () => git("for-each-ref", "--format=%(refname)").trim().split("\n");
    const before = refs();
    // Dry run: what would go, nothing gone. A name that is no tree id or has no ref is skipped.
    expect(await releaseTrees(root, [one, "not-a-tree", "2".repeat(40)], { dryRun: true })).toEqual(
      [`refs/turngate/trees/${one}`],
    );
    expect(refs()).toEqual(before);
    expect(await releaseTrees(root, [one])).toEqual([`refs/turngate/trees/${one}`]);
    expect(refs()).toEqual(before.filter((ref) => ref !== `refs/turngate/trees/${one}`));
    expect(refs()).toContain("refs/heads/other");
    // Not a repository: nothing to release.
    const plain = mkdtempSync(join(tmpdir(), "turngate-plain-"));
    dirs.push(plain);
    expect(await releaseTrees(plain, [two])).toEqual([]);
  });
});
