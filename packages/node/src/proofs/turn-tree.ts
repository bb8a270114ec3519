import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { sourceTreeFromChanges } from "../cache/tree-from-changes.js";
import type { WorkspaceDelta } from "../workspace/diff/diff.js";
import type { WorkspaceSnapshot } from "../workspace/snapshot.js";
import { type SourceTree, sourceTreeId } from "./source-tree.js";
import { treeSnapshotMismatch } from "./tree-check.js";

/** Input of {@link turnSourceTree}. */
export interface TurnTreeInput {
  /** The workspace root (the git work tree's top level, else the full tree is taken). */
  root: string;
  /** The git tree id of the source scope at the baseline (the session's `baselineTree`). */
  baselineTree: string;
  /** The turn's delta against that baseline (the one the effect digest was built from). */
  delta: WorkspaceDelta;
  /**
   * The observation the delta came from (its `unlisted_by_git`): the snapshot the checks
   * were bound to, which the tree is checked against.
   */
  snapshot: WorkspaceSnapshot;
  /** True when the observer has configured `ignores` (files git lists but turngate skips). */
  configuredIgnores: boolean;
  env?: NodeJS.ProcessEnv;
}

/** A turn's source tree, and how it was computed. */
export type TurnTree = SourceTree & {
  /**
   * `changes`: by `sourceTreeFromChanges` from the baseline tree and the delta (which itself
   * hashes every file when a baseline tree object fails its check or a changed path is not
   * a regular file); `full`: every file hashed (`sourceTreeId`) for {@link fullReason}.
   */
  from: "changes" | "full";
  /** With `full`: why the changes alone could not give git's tree. */
  fullReason?: string;
};

/**
 * `{tree: null, reason: "final_tree: <why>"}` when `tree` is not exactly the judged
 * snapshot's source scope (`treeSnapshotMismatch`), else `tree` unchanged. `bytesOf`: the
 * paths whose blob bytes are read (absent: all).
 */
async function checked(
  input: TurnTreeInput,
  tree: TurnTree,
  bytesOf: readonly string[] | undefined,
  env: NodeJS.ProcessEnv,
): Promise<TurnTree> {
  if (tree.tree === null) return tree;
  const mismatch = await treeSnapshotMismatch(input.root, tree.tree, input.snapshot, {
    ...(bytesOf !== undefined ? { bytesOf } : {}),
    env,
  });
  return mismatch === undefined ? tree : { ...tree, tree: null, reason: `final_tree: ${mismatch}` };
}

/** Files whose change alters how git reads other, unchanged files. */
const GIT_RULE_FILES = new Set([".gitignore", ".gitattributes", ".gitmodules"]);

/**
 * Why the delta alone cannot give the tree `git add -A` would (the source scope as git
 * sees it), or undefined when it can. Reasons: the observation is incomplete; a harness
 * file changed (`.git/config` can change how every file is read); a `.gitignore`,
 * `.gitattributes` or `.gitmodules` changed; files exist that git's listing did not produce
 * (`unlisted_by_git`: ignore rules changed) or the observation did not say; configured
 * ignores hide files git lists; a changed path lies inside a nested repository (git records
 * it as one gitlink). Reads only the folders on the changed paths (`lstat` of `<dir>/.git`).
 */
async function fullTreeReason(input: TurnTreeInput): Promise<string | undefined> {
  const { delta, snapshot } = input;
  if (!delta.complete) return "the observation is incomplete";
  if (input.configuredIgnores) return "configured ignores hide files git lists";
  if (snapshot.unlisted_by_git === undefined)
    return "the observation did not compare git's listing";
  if (snapshot.unlisted_by_git.length > 0) return "ignore rules changed during the turn";
  const folders = new Set<string>();
  for (const change of delta.changes) {
    if (change.scope === "harness") return `a harness file changed (${change.path})`;
    // An output location holds files git may list or ignore: only git can say which.
    if (change.scope === "output") return `a file at an output location changed (${change.path})`;
    const name = change.path.slice(change.path.lastIndexOf("/") + 1);
    if (GIT_RULE_FILES.has(name)) return `${change.path} changed`;
    const parts = change.path.split("/");
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join("/"));
  }
  const nested = await Promise.all(
    [...folders].map((folder) =>
      lstat(join(input.root, folder, ".git")).then(
        () => folder,
        () => undefined,
      ),
    ),
  );
  const repo = nested.find((folder) => folder !== undefined);
  if (repo !== undefined) return `a change lies inside the nested repository ${repo}/`;
  return undefined;
}

/**
 * The git tree id of the source scope at the end of a turn, for the proof's
 * `workspace.final_tree` (docs/design.md §3 "Proof", issue 33 item 2): the baseline tree plus the
 * turn's source changes (`sourceTreeFromChanges` with `write`: only the changed
 * files are hashed, the baseline's trees along the changed paths are checked against their
 * ids, and the new blobs and trees are written to the object store), which equals
 * `sourceTreeId(root)` whenever the delta is git's whole delta. Where it may not be (see the
 * reasons in {@link TurnTree.fullReason}, a file at an output location among them), every
 * file is hashed by `sourceTreeId`.
 * A change of scope `ignored` removes its path: git leaves ignored untracked files out.
 * The full path's index starts from `baselineTree`, never HEAD (which the agent can move).
 * Then the tree is checked against the judged snapshot (`treeSnapshotMismatch`, attack
 * round findings 04, 05, 06, 08): the same entries, mode classes and raw bytes, nothing
 * else. On the fast path the entry set and modes are checked in full (one `ls-tree`) but
 * only the changed paths' blobs are read: every other blob is the baseline tree's, which was
 * checked against the baseline snapshot when it was recorded (`Session.start`; a turn's
 * recorded tree is the next turn's baseline tree only after this check). On any mismatch
 * the tree is `null` with `reason` `final_tree: <first differing path and why>`.
 * Output: the tree and how it was computed. Never throws.
 */
export async function turnSourceTree(input: TurnTreeInput): Promise<TurnTree> {
  const env = input.env ?? process.env;
  const reason = await fullTreeReason(input);
  if (reason !== undefined) {
    const full = await sourceTreeId(input.root, env, { from: input.baselineTree });
    return checked(input, { ...full, from: "full", fullReason: reason }, undefined, env);
  }
  // An ignored path is an untracked file git leaves out (tracked files are never in the
  // ignored scope): removed from the tree, in case the baseline tree had it.
  const changes = input.delta.changes.map((change) => ({
    path: change.path,
    change: change.scope === "ignored" ? ("deleted" as const) : change.change,
  }));
  const tree = await sourceTreeFromChanges(input.root, input.baselineTree, changes, env, {
    write: true,
  });
  const { hashedAll, ...result } = tree;
  const bytesOf = hashedAll ? undefined : input.delta.changes.map((change) => change.path);
  return checked(input, { ...result, from: "changes" }, bytesOf, env);
}
