import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  gitFilterOverrides,
  type SourceTree,
  sourceTreeId,
  writeTree,
} from "../proofs/source-tree.js";
import { runGit } from "../workspace/listing/git.js";
import { treeIdFromChanges } from "./tree-id-from-changes.js";

const SAFE_GIT = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.untrackedCache=false",
];

async function topLevelOf(
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<{ topLevel: string; reason?: undefined } | { topLevel: null; reason: string }> {
  try {
    const located = await runGit([...SAFE_GIT, "rev-parse", "--show-toplevel"], root, { env });
    const topLevel = located.stdout.toString("utf8").split("\n")[0] ?? "";
    if (located.code !== 0 || topLevel === "")
      return { topLevel: null, reason: "not a git work tree" };
    return { topLevel };
  } catch (error) {
    return { topLevel: null, reason: `git cannot run (${(error as Error).message})` };
  }
}

/** A changed source path, as the workspace delta gives it. */
export interface SourceTreeChange {
  path: string;
  change: "added" | "modified" | "deleted";
}

/**
 * The git tree id of the source scope now, computed from the baseline's tree and the
 * turn's observed source changes (issue 20 item 1; the result-cache key's `tree`), never
 * reading or touching the user's index. Fast path (`treeIdFromChanges`): the changed
 * files' blob ids by `git hash-object --stdin-paths`, the baseline's trees along the
 * changed paths by one `git cat-file --batch`, and the new trees' ids hashed in-process in
 * git's tree format — nothing is written. When a changed path is not a regular file (a
 * symlink, a folder) or anything fails, the index path: a temporary index
 * (`GIT_INDEX_FILE` in a new temporary folder) filled with `git read-tree <baselineTree>`,
 * `git update-index --add --remove -z --stdin` over the changed paths, `git write-tree`.
 * Both equal `sourceTreeId(root)` when the changes are the complete source-scope delta
 * since that baseline tree (tests check both), at the cost of hashing the changed files
 * only — `sourceTreeId` hashes every file. Filters, fsmonitor and hooks are disabled as in
 * `sourceTreeId`.
 * Falls back to `sourceTreeId` when `root` is not the work tree's top level.
 * With `options.write`, the changed blobs and the new trees are written to the object store
 * (as `sourceTreeId` writes them), and where the fast path gives up the full `sourceTreeId`
 * is taken instead of the index path (which reads the baseline's trees unchecked): use it for
 * a tree that is recorded and diffed later (a proof's `final_tree`).
 * Every fall back to `sourceTreeId` starts its index from `baselineTree` (never HEAD, which
 * the agent may have moved) and marks the result `hashedAll: true`: every file was read,
 * so a caller checking the result against a snapshot checks every blob's bytes.
 * Input: the workspace root, the baseline tree id, the source changes (paths relative to
 * root). Output: `{tree, reason: null}` or `{tree: null, reason}`, with `hashedAll`. Never
 * throws.
 */
export async function sourceTreeFromChanges(
  root: string,
  baselineTree: string,
  changes: readonly SourceTreeChange[],
  env: NodeJS.ProcessEnv = process.env,
  options: { write?: boolean } = {},
): Promise<SourceTree & { hashedAll?: true }> {
  const whole = async () => ({
    ...(await sourceTreeId(root, env, { from: baselineTree })),
    hashedAll: true as const,
  });
  if (changes.length === 0) {
    const located = await topLevelOf(root, env);
    if (located.topLevel === null) return { tree: null, reason: located.reason };
    if (resolve(located.topLevel) !== resolve(root)) return whole();
    return { tree: baselineTree, reason: null };
  }
  // The fast path: no index at all (blobs, the baseline's trees along the changed paths,
  // new trees bottom-up). It gives up on anything but regular files.
  const [located, filters] = await Promise.all([
    topLevelOf(root, env),
    gitFilterOverrides(root, env).catch(() => undefined),
  ]);
  if (located.topLevel === null) return { tree: null, reason: located.reason };
  if (resolve(located.topLevel) !== resolve(root)) return whole();
  if (filters !== undefined) {
    const fast = await treeIdFromChanges(
      root,
      baselineTree,
      changes,
      [...SAFE_GIT, ...filters],
      env,
      options.write === true,
    );
    if (fast === null) return whole();
    if (fast !== undefined) return { tree: fast, reason: null };
  }
  // The index path reads the baseline's trees without checking their bytes: a recorded
  // tree is never built on objects that were not checked.
  if (options.write === true) return whole();
  const tmp = await mkdtemp(join(tmpdir(), "turngate-key-tree-"));
  try {
    const gitEnv = { ...env, GIT_INDEX_FILE: join(tmp, "index") };
    const topLevel = located.topLevel;
    const read = await runGit([...SAFE_GIT, "read-tree", baselineTree], root, { env: gitEnv });
    if (read.code !== 0) {
      return {
        tree: null,
        reason: `git read-tree ${baselineTree} failed: ${read.stderr || `exit ${read.code}`}`,
      };
    }
    const args = [...SAFE_GIT, ...(filters ?? (await gitFilterOverrides(root, gitEnv)))];
    const input = Buffer.from(changes.map((c) => `${c.path}\0`).join(""), "utf8");
    const updated = await runGit(
      [...args, "update-index", "--add", "--remove", "-z", "--stdin"],
      topLevel,
      {
        env: gitEnv,
        input,
      },
    );
    if (updated.code !== 0) {
      return {
        tree: null,
        reason: `git update-index failed: ${updated.stderr || `exit ${updated.code}`}`,
      };
    }
    return await writeTree(args, topLevel, gitEnv);
  } catch (error) {
    return { tree: null, reason: `git cannot run (${(error as Error).message})` };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
