import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TurnProof } from "@turngate/core";
import { runGit } from "../workspace/listing/git.js";

/** The git tree id of a workspace's source scope, or why there is none. */
export type SourceTree = { tree: string; reason: null } | { tree: null; reason: string };

/**
 * `-c` settings on every git call here, so no program the agent planted runs inside
 * turngate's own git calls: no fsmonitor hook, no hooks, no untracked cache.
 */
const SAFE_GIT = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.untrackedCache=false",
];

/**
 * The git tree id of the source scope of the work tree holding `root` (tracked files plus
 * untracked files that are not ignored, as their bytes are now), written without touching
 * the user's index (issue 10 "Record … the git tree ids"):
 * 1. `git rev-parse --show-toplevel --verify --quiet HEAD^{tree}` (one call: the top level,
 *    then HEAD's tree when there is one; the configuration's filters are read meanwhile);
 * 2. `GIT_INDEX_FILE` names an index in a new temporary folder, filled by `git read-tree
 *    <options.from>` when given (a turn's baseline tree: never the HEAD or index the agent
 *    may have committed to or altered, attack 08), else `git read-tree HEAD` (left empty in a
 *    repository without commits). It holds no stat data, so every
 *    file is hashed from its bytes: a cached stat would let a same-size rewrite with a reset
 *    mtime pass as unchanged, as it can in the user's own index;
 * 3. `git add -A` (whole work tree) and `git write-tree` on that index.
 * Source scope here is git's: HEAD's files as they are now plus untracked files that are
 * not ignored; a file staged but not committed that an ignore rule matches is left out.
 * Every call runs with fsmonitor, hooks and the untracked cache disabled, and every clean,
 * smudge and process filter the configuration names is emptied (`-c filter.X.clean=` …):
 * no program of the agent runs, and a filtered file (e.g. git-lfs) is recorded as its bytes
 * on disk, so its tree then differs from the commit's. Blob and tree objects are written
 * to the repository's object store (as `git add` does); the user's index, HEAD and refs
 * are never changed. The temporary folder is always removed.
 *
 * Input: a directory, git's environment, and `options.from`: a tree id to start the index
 * from instead of HEAD. Output: `{tree, reason: null}`, or `{tree: null, reason}` outside a
 * git work tree, when git is missing, or when `git read-tree`/`add`/`write-tree` fails (its
 * stderr). The result is git's view; a proof's tree is then checked against the judged bytes
 * (`treeSnapshotMismatch`). Never throws.
 */
export async function sourceTreeId(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  options: { from?: string } = {},
): Promise<SourceTree> {
  // One rev-parse for both questions: `--show-toplevel` prints the top level before
  // `--verify` looks at HEAD, so the top level is there even when HEAD has no tree (exit 1,
  // a repository without commits); outside a work tree nothing is printed (exit 128). The
  // filters are read at the same time (from `root`: the same configuration as from the top
  // level; thrown away when `root` is in no work tree).
  const filtersRead = gitFilterOverrides(root, env);
  filtersRead.catch(() => undefined); // awaited below, or not needed
  let where: { topLevel: string; headTree: boolean };
  try {
    const located = await runGit(
      [...SAFE_GIT, "rev-parse", "--show-toplevel", "--verify", "--quiet", "HEAD^{tree}"],
      root,
      { env },
    );
    const [topLevel, tree] = located.stdout.toString("utf8").split("\n");
    if (!topLevel) return { tree: null, reason: "not a git work tree" };
    where = { topLevel, headTree: located.code === 0 && /^[0-9a-f]+$/.test(tree ?? "") };
  } catch (error) {
    return { tree: null, reason: `git cannot run (${(error as Error).message})` };
  }
  const tmp = await mkdtemp(join(tmpdir(), "turngate-tree-"));
  try {
    const index = join(tmp, "index");
    const gitEnv = { ...env, GIT_INDEX_FILE: index };
    const filters = await filtersRead;
    const start = options.from ?? (where.headTree ? "HEAD" : undefined);
    if (start !== undefined) {
      const read = await runGit([...SAFE_GIT, "read-tree", start], where.topLevel, {
        env: gitEnv,
      });
      if (read.code !== 0) {
        return {
          tree: null,
          reason: `git read-tree ${start} failed: ${read.stderr || `exit ${read.code}`}`,
        };
      }
    }
    const args = [...SAFE_GIT, ...filters];
    const added = await runGit([...args, "add", "-A"], where.topLevel, { env: gitEnv });
    if (added.code !== 0) {
      return { tree: null, reason: `git add -A failed: ${added.stderr || `exit ${added.code}`}` };
    }
    return await writeTree(args, where.topLevel, gitEnv);
  } catch (error) {
    return { tree: null, reason: `git cannot run (${(error as Error).message})` };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * `git write-tree` of the index `gitEnv` names (`GIT_INDEX_FILE`, a temporary index), with
 * `args` (turngate's safety `-c` options and filter overrides) before the subcommand, run in
 * `topLevel`. Output: `{tree: <40 or 64 hex id>, reason: null}`, or `{tree: null, reason:
 * "git write-tree failed: …"}` when git fails or prints something that is not a tree id.
 * Throws only what `runGit` throws (git cannot be started).
 */
export async function writeTree(
  args: readonly string[],
  topLevel: string,
  gitEnv: NodeJS.ProcessEnv,
): Promise<SourceTree> {
  const written = await runGit([...args, "write-tree"], topLevel, { env: gitEnv });
  const tree = written.stdout.toString("utf8").trim();
  if (written.code !== 0 || !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(tree)) {
    return {
      tree: null,
      reason: `git write-tree failed: ${written.stderr || `exit ${written.code}`}`,
    };
  }
  return { tree, reason: null };
}

/**
 * `-c filter.<name>.<clean|smudge|process>=` and `-c filter.<name>.required=false` for
 * every filter the repository's configuration names, so no clean/smudge program runs in
 * turngate's git calls. Input: a directory in the work tree and git's environment.
 * Output: the `-c` arguments (`[]` when none).
 */
export async function gitFilterOverrides(cwd: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const listed = await runGit(
    [...SAFE_GIT, "config", "--name-only", "--get-regexp", "^filter\\."],
    cwd,
    { env },
  );
  const names = new Set<string>();
  for (const key of listed.stdout.toString("utf8").split("\n")) {
    const match = /^filter\.(.+)\.(?:clean|smudge|process|required)$/i.exec(key.trim());
    if (match?.[1]) names.add(match[1]);
  }
  const args: string[] = [];
  for (const name of names) {
    for (const part of ["clean", "smudge", "process"]) args.push("-c", `filter.${name}.${part}=`);
    args.push("-c", `filter.${name}.required=false`);
  }
  return args;
}

/** Result of {@link proofMatchesCommit}. */
export interface CommitMatch {
  /** True when the commit's tree id equals the proof's `workspace.final_tree`. */
  matches: boolean;
  /** The commit's tree id, `null` when the commit cannot be resolved. */
  commitTree: string | null;
  /** The proof's final tree id, `null` when the proof records none. */
  finalTree: string | null;
  /** Why they do not match (absent when they match). */
  reason?: string;
}

/**
 * Whether a proof's final source tree is exactly the tree of `commit` (issue 10: CI
 * matches a proof to the commit it is asked to trust). Run `git rev-parse --verify
 * <commit>^{tree}` in `root` and compare with `proof.workspace.final_tree`.
 *
 * Input: a parsed (and, for trust, authenticated) proof, the repository directory and a
 * revision (`HEAD`, a sha, a branch; one starting with `-` is refused).
 * Output: {@link CommitMatch}; never throws.
 */
export async function proofMatchesCommit(
  proof: TurnProof,
  root: string,
  commit: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CommitMatch> {
  const finalTree = proof.workspace?.final_tree ?? null;
  if (commit.startsWith("-") || commit.trim() === "") {
    return { matches: false, commitTree: null, finalTree, reason: `not a revision: ${commit}` };
  }
  let commitTree: string | null = null;
  try {
    const result = await runGit(
      [...SAFE_GIT, "rev-parse", "--verify", "--quiet", `${commit}^{tree}`],
      root,
      { env },
    );
    const out = result.stdout.toString("utf8").trim();
    if (result.code === 0 && out !== "") commitTree = out;
  } catch {
    commitTree = null;
  }
  if (commitTree === null) {
    return {
      matches: false,
      commitTree,
      finalTree,
      reason: `${commit} is not a commit in ${root}`,
    };
  }
  if (finalTree === null) {
    const why = proof.workspace?.tree_reason ?? "the proof predates recorded trees";
    return {
      matches: false,
      commitTree,
      finalTree,
      reason: `the proof names no final tree, so no commit can match it (${why})`,
    };
  }
  if (finalTree !== commitTree) {
    return {
      matches: false,
      commitTree,
      finalTree,
      reason: `the proof's final tree ${finalTree} is not the tree ${commitTree} of ${commit}`,
    };
  }
  return { matches: true, commitTree, finalTree };
}
