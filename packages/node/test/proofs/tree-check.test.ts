import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  sourceTreeId,
  treeSnapshotMismatch,
  turnSourceTree,
  WorkspaceObserver,
  type WorkspaceObserverOptions,
} from "../../src/index.js";
import { git, temp } from "../temp-git.js";

// docs/design.md §3 "Proof": the proof's `final_tree` is checked against the snapshot the
// checks were bound to (treeSnapshotMismatch): attack round findings 04, 05, 06 and 08 each
// record a tree that is not the judged bytes; each is refused here with its reason, and the
// honest turn in the same set-up records the tree of a clean commit of its bytes.

function write(root: string, path: string, text: string): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A repository with `files` committed. */
function repo(files: Record<string, string>): string {
  const root = temp("turngate-tree-check-");
  for (const [path, text] of Object.entries(files)) write(root, path, text);
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  git(root, "commit", "-q", "--no-gpg-sign", "-m", "base");
  return root;
}

/**
 * A turn as the session takes it: the baseline and its tree (checked in full against the
 * baseline, as `Session.start` does), `change`, the judged observation, then the turn's tree.
 */
async function turn(
  root: string,
  change: (root: string) => void,
  options: WorkspaceObserverOptions = {},
) {
  const observer = new WorkspaceObserver(root, options);
  const baseline = await observer.baseline();
  const baselineTree = (await sourceTreeId(root)).tree as string;
  const baselineMismatch = await treeSnapshotMismatch(root, baselineTree, baseline);
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
  return { result, baselineTree, baselineMismatch, snapshot };
}

/** The tree of a clean commit of the work tree as it is now (`git add -A`, `git commit`). */
function committedTree(root: string): string {
  git(root, "add", "-A");
  git(root, "commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", "turn");
  return git(root, "rev-parse", "HEAD^{tree}");
}

const PYTHON = {
  "calc.py": "def add(a, b):\n    return a + b\n",
  "test_calc.py": "from calc import add\nassert add(2, 2) == 4\n",
};

describe("final_tree is checked against the judged bytes (attack round 04, 05, 06, 08)", () => {
  test("04: a file at an output location is in git's tree but never judged: no final tree", async () => {
    const root = repo(PYTHON);
    const { result } = await turn(root, (r) => {
      write(r, "calc.py", 'def add(a, b):\n    """Sum."""\n    return a + b\n');
      write(r, "__pycache__/calc.cpython-311.pyc", "bytecode of a broken add");
    });
    expect(result).toEqual({
      tree: null,
      reason:
        "final_tree: __pycache__/calc.cpython-311.pyc is at an output location: the checks never saw it",
      from: "full",
      fullReason: "a file at an output location changed (__pycache__/calc.cpython-311.pyc)",
    });
  });

  test("04 control: the same edit without the output file records the clean commit's tree", async () => {
    const root = repo(PYTHON);
    const { result } = await turn(root, (r) =>
      write(r, "calc.py", 'def add(a, b):\n    """Sum."""\n    return a + b\n'),
    );
    expect(result).toEqual({ tree: committedTree(root), reason: null, from: "changes" });
  });

  test("05: a blob stored filtered by ident is not the bytes checked: no final tree", async () => {
    const root = repo({ "lib.js": "exports.add = (a, b) => a + b;\n" });
    const { result } = await turn(root, (r) => {
      write(r, ".gitattributes", "*.js ident\n");
      write(r, "lib.js", "exports.add = (a, b) => { /*$Id: */ return a + b; /* $ */ };\n");
    });
    expect(result).toEqual({
      tree: null,
      reason:
        "final_tree: lib.js is stored filtered by .gitattributes (ident): the checked bytes differ from the blob",
      from: "full",
      fullReason: ".gitattributes changed",
    });
  });

  test("05: a baseline whose tree holds a converted blob gives no baseline tree, so no turn builds on it", async () => {
    const root = repo({ ".gitattributes": "*.txt text eol=crlf\n", "a.txt": "x\n" });
    // The work tree holds CRLF; git stores the blob with LF.
    write(root, "a.txt", "x\r\n");
    const { baselineMismatch } = await turn(root, () => undefined);
    expect(baselineMismatch).toBe(
      "a.txt is stored filtered by .gitattributes (text, eol=crlf): the checked bytes differ from the blob",
    );
  });

  test("05 control: ident on a file without an Id keyword records the clean commit's tree", async () => {
    const root = repo({ "lib.js": "exports.add = (a, b) => a + b;\n" });
    const { result } = await turn(root, (r) => {
      write(r, ".gitattributes", "*.js ident\n");
      write(r, "lib.js", "exports.add = (a, b) => a + b; // sum\n");
    });
    expect(result).toEqual({
      tree: committedTree(root),
      reason: null,
      from: "full",
      fullReason: ".gitattributes changed",
    });
  });

  test("checkout conversion (attack round 43): eol=crlf on a file stored and checked with LF endings gives no final tree, since a checkout writes CRLF", async () => {
    const root = repo({ "run.sh": "echo 0\n" });
    const { result } = await turn(root, (r) => {
      write(r, ".gitattributes", "run.sh text eol=crlf\n");
      write(r, "run.sh", 'x=1\n[ "$x" = 1 ] || exit 1\necho PASS\n');
    });
    expect(result).toEqual({
      tree: null,
      reason:
        "final_tree: run.sh is converted on checkout by .gitattributes (eol=crlf): a checkout of this tree does not give the bytes that were checked",
      from: "full",
      fullReason: ".gitattributes changed",
    });
  });

  test("checkout conversion (attack round 43): ident on a file holding an unexpanded $Id$ keyword gives no final tree, since a checkout expands it", async () => {
    const root = repo({ "lib.js": "exports.v = 1;\n" });
    const { result } = await turn(root, (r) => {
      write(r, ".gitattributes", "*.js ident\n");
      write(r, "lib.js", "// $Id$\nexports.v = 2;\n");
    });
    expect(result).toEqual({
      tree: null,
      reason:
        "final_tree: lib.js is converted on checkout by .gitattributes (ident): a checkout of this tree does not give the bytes that were checked",
      from: "full",
      fullReason: ".gitattributes changed",
    });
  });

  test("checkout conversion control: eol=lf and text=auto leave the checked LF bytes as they are, so the final tree is the clean commit's", async () => {
    const root = repo({ "run.sh": "echo 0\n" });
    const { result } = await turn(root, (r) => {
      write(r, ".gitattributes", "*.sh text eol=lf\n* text=auto\n");
      write(r, "run.sh", "echo 1\n");
    });
    expect(result).toEqual({
      tree: committedTree(root),
      reason: null,
      from: "full",
      fullReason: ".gitattributes changed",
    });
  });

  /** A repository with the submodule `vendor` (one file, add.js, committed in it). */
  function withSubmodule(): { root: string; up: string } {
    const up = repo({ "add.js": "module.exports = (a, b) => a - b;\n" });
    const root = repo({ "test.js": "require('./vendor/add.js');\n" });
    git(root, "-c", "protocol.file.allow=always", "submodule", "-q", "add", up, "vendor");
    git(root, "commit", "-q", "--no-gpg-sign", "-m", "submodule");
    return { root, up };
  }

  test("06: a change inside a submodule's work tree is not the gitlink's commit: no final tree", async () => {
    const { root } = withSubmodule();
    const gitlink = git(root, "rev-parse", "HEAD:vendor").slice(0, 12);
    const { result, baselineMismatch } = await turn(root, (r) =>
      write(r, "vendor/add.js", "module.exports = (a, b) => a + b;\n"),
    );
    expect(baselineMismatch).toBeUndefined();
    expect(result).toEqual({
      tree: null,
      reason: `final_tree: vendor is a submodule (gitlink ${gitlink}) whose commit does not hold the checked bytes: vendor/add.js differs`,
      from: "full",
      fullReason: "a change lies inside the nested repository vendor/",
    });
  });

  test("06 control: a change beside an unchanged submodule records the clean commit's tree", async () => {
    const { root } = withSubmodule();
    const { result } = await turn(root, (r) => write(r, "README.md", "# calc\n"));
    expect(result).toEqual({ tree: committedTree(root), reason: null, from: "changes" });
  });

  const SETTINGS = {
    ".gitignore": "__pycache__/\nlocal_settings.py\n",
    "calc.py":
      "try:\n    from local_settings import OFFSET\nexcept ImportError:\n    OFFSET = 0\n\ndef add(a, b):\n    return a + b + OFFSET\n",
  };

  test("08: the full tree starts from the baseline tree, not the HEAD the agent committed an ignored file to", async () => {
    const root = repo(SETTINGS);
    const { result, snapshot } = await turn(root, (r) => {
      write(r, "calc.py", SETTINGS["calc.py"].replace("def add(a, b):", "def add(a, b):  # sum"));
      symlinkSync("calc.py", join(r, "calc_link.py"));
      write(r, "local_settings.py", "OFFSET = 1\n");
      // The agent commits it all, the ignored file forced in, without the user's index.
      const index = join(temp("turngate-agent-index-"), "index");
      const env = { ...process.env, GIT_INDEX_FILE: index };
      for (const args of [
        ["read-tree", "HEAD"],
        ["add", "-A"],
        ["add", "-f", "local_settings.py"],
      ]) {
        gitEnv(r, env, ...args);
      }
      const tree = gitEnv(r, env, "write-tree");
      const commit = gitEnv(r, env, "commit-tree", tree, "-p", "HEAD", "-m", "tidy");
      git(r, "update-ref", "HEAD", commit);
    });
    // The HEAD-based tree holds the ignored file; the check names it.
    const fromHead = (await sourceTreeId(root)).tree as string;
    expect(await treeSnapshotMismatch(root, fromHead, snapshot)).toBe(
      "local_settings.py is ignored: the checks never saw it",
    );
    // The turn's tree leaves it out: the judged bytes, as a clean commit of them (the
    // ignored file not forced in) records them.
    expect(result.tree).not.toBeNull();
    expect(git(root, "ls-tree", "-r", "--name-only", result.tree as string).split("\n")).toEqual([
      ".gitignore",
      "calc.py",
      "calc_link.py",
    ]);
    git(root, "reset", "-q", "--soft", "HEAD~1");
    expect(result.tree).toBe(committedTree(root));
  });
});

/** `git <args>` in `cwd` with `env` (the agent's own index); its stdout, trimmed. */
function gitEnv(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    env,
    stdio: "pipe",
  })
    .toString()
    .trim();
}
