/**
 * Git tree ids of the source scope (issue 10 "Record … the git tree ids"): written through a
 * temporary index so the user's index is never touched, with no agent program run inside
 * the git calls (a planted fsmonitor hook and clean filter stay silent), `null` with a
 * reason outside git, and `proofMatchesCommit` matching a proof to a commit. Real
 * temporary git repositories.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { proofMatchesCommit, sourceTreeId } from "../../src/proofs/source-tree.js";
import { Session } from "../../src/session/session.js";
import { tempDir } from "../runner/helpers.js";
import { useGitRepos } from "../session/git-repo.js";

const repo = useGitRepos();
const git = (root: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd: root,
    encoding: "utf8",
  }).trim();

describe("sourceTreeId", () => {
  test("the tree of tracked + untracked-not-ignored files as they are now is the tree that git add -A and a commit record; the user's index is untouched", async () => {
    const r = await repo({ "a.txt": "a\n", ".gitignore": "*.log\n", "sub/b.txt": "b\n" });
    const base = await sourceTreeId(r.root);
    expect(base).toEqual({ tree: git(r.root, "rev-parse", "HEAD^{tree}"), reason: null });

    r.write("a.txt", "changed\n");
    r.write("new.txt", "untracked\n");
    r.write("debug.log", "ignored\n");
    git(r.root, "add", "sub/b.txt"); // an index the user has in some state
    const status = git(r.root, "status", "--porcelain"); // (may refresh the index itself)
    const index = join(r.root, ".git", "index");
    const before = { bytes: readFileSync(index), mtime: statSync(index).mtimeMs };
    const now = await sourceTreeId(r.root);
    expect(readFileSync(index)).toEqual(before.bytes);
    expect(statSync(index).mtimeMs).toBe(before.mtime);
    expect(git(r.root, "status", "--porcelain")).toBe(status);
    expect(now.tree).not.toBe(base.tree);

    git(r.root, "add", "-A");
    git(r.root, "commit", "-q", "--no-gpg-sign", "-m", "turn");
    expect(now).toEqual({ tree: git(r.root, "rev-parse", "HEAD^{tree}"), reason: null });
    expect(git(r.root, "ls-tree", "-r", "--name-only", "HEAD")).toBe(
      ".gitignore\na.txt\nnew.txt\nsub/b.txt",
    );
  });

  test("a same-size rewrite with its mtime set back is seen: no stat cache is trusted", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const past = new Date("2020-01-01T00:00:00Z");
    utimesSync(join(r.root, "a.txt"), past, past);
    git(r.root, "update-index", "--refresh"); // the user's index caches that stat
    r.write("a.txt", "new\n");
    utimesSync(join(r.root, "a.txt"), past, past);
    const now = await sourceTreeId(r.root);
    const blob = git(r.root, "ls-tree", now.tree as string, "a.txt").split(/\s+/)[2] as string;
    expect(git(r.root, "cat-file", "blob", blob)).toBe("new");
  });

  test("a planted fsmonitor hook and clean filter never run; the filtered file is recorded as its bytes", async () => {
    const r = await repo({ "a.txt": "a\n" });
    const marker = join(r.root, "..", `${r.root.split("/").pop()}-marker`);
    const hook = join(r.root, ".git", "evil.sh");
    writeFileSync(hook, `#!/bin/sh\necho ran >> ${marker}\ncat\n`);
    chmodSync(hook, 0o755);
    git(r.root, "config", "core.fsmonitor", hook);
    git(r.root, "config", "filter.evil.clean", hook);
    git(r.root, "config", "filter.evil.required", "true");
    r.write(".gitattributes", "*.txt filter=evil\n");
    r.write("a.txt", "agent bytes\n");
    const result = await sourceTreeId(r.root);
    expect(existsSync(marker)).toBe(false);
    expect(result.reason).toBeNull();
    const blob = git(r.root, "ls-tree", result.tree as string, "a.txt").split(/\s+/)[2] as string;
    expect(git(r.root, "cat-file", "blob", blob)).toBe("agent bytes");
  });

  test("a repository without commits: an empty work tree is the empty tree; untracked files, from a subfolder too, are in it", async () => {
    const dir = await tempDir("unborn");
    try {
      git(dir.path, "init", "-q");
      expect(await sourceTreeId(dir.path)).toEqual({
        tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        reason: null,
      });
      execFileSync("mkdir", ["sub"], { cwd: dir.path });
      writeFileSync(join(dir.path, "sub", "b.txt"), "b\n");
      writeFileSync(join(dir.path, "a.txt"), "a\n");
      const fromSub = await sourceTreeId(join(dir.path, "sub"));
      const fromRoot = await sourceTreeId(dir.path);
      expect(existsSync(join(dir.path, ".git", "index"))).toBe(false); // the user's index: untouched
      git(dir.path, "add", "-A");
      const expected = git(dir.path, "write-tree");
      expect(fromRoot).toEqual({ tree: expected, reason: null });
      expect(fromSub).toEqual({ tree: expected, reason: null });
      expect(git(dir.path, "ls-tree", "-r", "--name-only", expected)).toBe("a.txt\nsub/b.txt");
    } finally {
      await dir.cleanup();
    }
  });

  test("outside a git work tree: null with the reason", async () => {
    const dir = await tempDir("plain");
    try {
      expect(await sourceTreeId(dir.path)).toEqual({ tree: null, reason: "not a git work tree" });
    } finally {
      await dir.cleanup();
    }
  });
});

describe("the proof records the root and the trees; proofMatchesCommit", () => {
  test("a verified turn's proof names the baseline tree and the final tree, which matches the commit of the change", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const baseTree = git(r.root, "rev-parse", "HEAD^{tree}");
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const check = { id: "c", kind: "test", description: "d", command: "true", required: true };
    await session.verifyCommands("host:test", [check], { bind: true });
    expect((await session.decide()).kind).toBe("allow");
    const proof = session.proof();
    expect(proof.trust).toBe("unsandboxed");
    expect(proof.workspace).toMatchObject({
      root: r.root,
      baseline_tree: baseTree,
      tree_reason: null,
    });

    expect(await proofMatchesCommit(proof, r.root, "HEAD")).toEqual({
      matches: false,
      commitTree: baseTree,
      finalTree: proof.workspace?.final_tree,
      reason: `the proof's final tree ${proof.workspace?.final_tree} is not the tree ${baseTree} of HEAD`,
    });
    git(r.root, "commit", "-q", "--no-gpg-sign", "-am", "turn");
    expect(await proofMatchesCommit(proof, r.root, "HEAD")).toEqual({
      matches: true,
      commitTree: git(r.root, "rev-parse", "HEAD^{tree}"),
      finalTree: git(r.root, "rev-parse", "HEAD^{tree}"),
    });
    expect(await proofMatchesCommit(proof, r.root, "no-such-branch")).toMatchObject({
      matches: false,
      commitTree: null,
      reason: `no-such-branch is not a commit in ${r.root}`,
    });
    expect((await proofMatchesCommit(proof, r.root, "--output=x")).reason).toBe(
      "not a revision: --output=x",
    );
    const { workspace: _w, ...older } = proof;
    expect((await proofMatchesCommit(older, r.root, "HEAD")).reason).toBe(
      "the proof names no final tree, so no commit can match it (the proof predates recorded trees)",
    );
  });
});
