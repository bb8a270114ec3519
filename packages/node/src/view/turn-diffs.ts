/**
 * Diffs of a turn against its baseline (issue 21): both source trees are git tree objects in
 * the repository's object store (`sourceTreeId`, a temporary index), so `git diff-tree`
 * between them gives every changed source file's unified diff without touching the work
 * tree or the user's index. No agent program runs: no external diff, no textconv, and every
 * git call has turngate's safety `-c` options (`runGit`).
 */
import { realpathSync } from "node:fs";
import { relative, sep } from "node:path";
import { TURN_VIEW_LIMITS, type TurnViewDiff, type TurnViewFileDiff } from "@turngate/core";
import { WorkspaceObserverError } from "../workspace/errors.js";
import { runGit } from "../workspace/listing/git.js";

/** Result of {@link turnDiffs}: the diffs, or why there are none (`diffs: null`). */
export type TurnDiffs =
  | { diffs: TurnViewFileDiff[]; reason: null }
  | { diffs: null; reason: string };

/** Ref namespace holding the trees a view diffs against, so `git gc` keeps them. */
export const KEPT_TREES_REF_PREFIX = "refs/turngate/trees/";

/** `-c` options that fix the diff's format whatever the user's configuration says. */
const DIFF_FORMAT = [
  "-c",
  "diff.noprefix=false",
  "-c",
  "diff.mnemonicPrefix=false",
  "-c",
  "diff.relative=false",
  "-c",
  "diff.external=",
  "-c",
  "core.quotePath=true",
  "-c",
  "color.ui=never",
];

const TREE_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

interface RawEntry {
  oldMode: string;
  newMode: string;
  oldId: string;
  newId: string;
  status: string;
  path: string;
}

/** Parse `git diff-tree -r -z --raw` output: `:old new oldid newid S\0path\0` entries. */
function parseRaw(out: Buffer): RawEntry[] {
  const parts = out.toString("utf8").split("\0");
  const entries: RawEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const head = parts[i] as string;
    const path = parts[i + 1] as string;
    const match = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(head);
    if (!match) continue;
    entries.push({
      oldMode: match[1] as string,
      newMode: match[2] as string,
      oldId: match[3] as string,
      newId: match[4] as string,
      status: match[5] as string,
      path,
    });
  }
  return entries;
}

/** Parse `git diff-tree -r -z --numstat`: `added\tdeleted\tpath\0`; binary files are `-\t-`. */
function parseNumstat(out: Buffer): Map<string, { additions: number; deletions: number } | null> {
  const counts = new Map<string, { additions: number; deletions: number } | null>();
  for (const entry of out.toString("utf8").split("\0")) {
    const match = /^(\d+|-)\t(\d+|-)\t([\s\S]*)$/.exec(entry);
    if (!match) continue;
    const path = match[3] as string;
    counts.set(
      path,
      match[1] === "-" ? null : { additions: Number(match[1]), deletions: Number(match[2]) },
    );
  }
  return counts;
}

/** Sizes in bytes of blob ids (`git cat-file --batch-check`); a missing object is absent. */
async function blobSizes(
  top: string,
  ids: string[],
  env: NodeJS.ProcessEnv,
): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (ids.length === 0) return sizes;
  const result = await runGit(["cat-file", "--batch-check"], top, {
    env,
    input: Buffer.from(`${ids.join("\n")}\n`),
  });
  for (const line of result.stdout.toString("utf8").split("\n")) {
    const match = /^([0-9a-f]+) blob (\d+)$/.exec(line);
    if (match) sizes.set(match[1] as string, Number(match[2]));
  }
  return sizes;
}

const ZERO_ID = /^0+$/;

/**
 * Split the output of one `git diff-tree -p` over many files into each file's part, keyed by
 * its repository path (git's `diff --git a/P b/P` header; with `core.quotePath=true` a path
 * with special bytes is C-quoted, `"a/P" "b/P"`, and decoded here). A file git prints as two
 * parts (a type change) keeps both, in order. A line starting `diff --git ` is always a
 * header: patch lines start with a space, `+`, `-`, `\`, `@@` or a header keyword.
 */
export function splitPatch(text: string): Map<string, string> {
  const parts = new Map<string, string>();
  const starts: number[] = [];
  if (text.startsWith("diff --git ")) starts.push(0);
  for (let at = text.indexOf("\ndiff --git "); at >= 0; at = text.indexOf("\ndiff --git ", at + 1))
    starts.push(at + 1);
  for (const [i, start] of starts.entries()) {
    const part = text.slice(start, starts[i + 1] ?? text.length);
    const header = part.slice("diff --git ".length, part.indexOf("\n") >>> 0);
    const path = headerPath(header);
    if (path === null) continue;
    parts.set(path, (parts.get(path) ?? "") + part);
  }
  return parts;
}

/** The path of a `diff --git` header's rest (`a/P b/P` or `"a/P" "b/P"`), or null. */
function headerPath(rest: string): string | null {
  if (rest.startsWith('"')) {
    const quoted = cUnquote(rest);
    return quoted?.startsWith("a/") ? quoted.slice(2) : null;
  }
  // `a/P b/P`: both sides are the same path (no renames), so P is half of what is left.
  const length = (rest.length - 5) / 2;
  if (!Number.isInteger(length) || !rest.startsWith("a/")) return null;
  const path = rest.slice(2, 2 + length);
  return rest === `a/${path} b/${path}` ? path : null;
}

const C_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 34,
  "\\": 92,
};

/** Decode git's C-quoted string at the start of `text` (`"…"`, `\ooo` octal bytes); null if malformed. */
function cUnquote(text: string): string | null {
  const bytes: number[] = [];
  for (let i = 1; i < text.length; i += 1) {
    const c = text[i] as string;
    if (c === '"') return Buffer.from(bytes).toString("utf8");
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const next = text[i + 1] ?? "";
    if (/^[0-7]{3}$/.test(text.slice(i + 1, i + 4))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    } else if (next in C_ESCAPES) {
      bytes.push(C_ESCAPES[next] as number);
      i += 1;
    } else return null;
  }
  return null;
}

/**
 * The unified diff of every source file that differs between two git trees (issue 21),
 * keyed by the path relative to `root` (the workspace root; files of the repository outside
 * it are left out).
 *
 * One `git diff-tree -r --raw` and one `--numstat` list the changes (no rename detection:
 * a rename is a deletion and an addition, as the ledger records it), `git cat-file
 * --batch-check` gives the sizes, and one `git diff-tree -p -U3 --no-color --no-ext-diff
 * --no-textconv` over every text file (issue 33 item 2: one batched call, not one per file),
 * with the format fixed against the user's configuration, gives the diffs (`splitPatch`).
 * Limits (`TURN_VIEW_LIMITS`): a side larger than `blobBytes` is `too_large` (not read);
 * a binary file (git's rule: a NUL in the first 8000 bytes, or a `binary` attribute) is
 * `binary` with its sizes; a submodule entry is `unavailable`; past `diffFiles` files the
 * rest are `unavailable`. Text diffs are returned whole here; `buildTurnView` cuts them.
 *
 * Input: the workspace root, the baseline and final tree ids (from `sourceTreeId`, or a
 * proof's `workspace`), the environment for git.
 * Output: `{diffs, reason: null}`, or `{diffs: null, reason}` when a tree is null, not a
 * tree id, not in the object store (pruned, or a proof from another clone), outside a git
 * work tree, or git fails. Never throws.
 */
export async function turnDiffs(
  root: string,
  baselineTree: string | null,
  finalTree: string | null,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TurnDiffs> {
  if (baselineTree === null || finalTree === null) {
    return { diffs: null, reason: "the turn recorded no git tree for its baseline or its end" };
  }
  if (!TREE_ID.test(baselineTree) || !TREE_ID.test(finalTree)) {
    return { diffs: null, reason: "not a git tree id" };
  }
  try {
    const located = await runGit(["rev-parse", "--show-toplevel"], root, { env });
    const top = located.stdout.toString("utf8").split("\n")[0] ?? "";
    if (located.code !== 0 || top === "") {
      return { diffs: null, reason: "not a git work tree: diffs are not available" };
    }
    // Both trees in one call: `<id>^{tree}` resolves only when the object is in the store
    // and is a tree (a commit would peel to its tree, so the id printed must be the same).
    const exists = await runGit(
      ["rev-parse", "--quiet", `${baselineTree}^{tree}`, `${finalTree}^{tree}`],
      top,
      { env },
    );
    const found = exists.stdout.toString("utf8").split("\n");
    for (const [i, tree] of [baselineTree, finalTree].entries()) {
      if (exists.code !== 0 || found[i] !== tree) {
        return {
          diffs: null,
          reason: `the tree ${tree} is not in this repository's object store (pruned by git gc, or the turn happened in another clone)`,
        };
      }
    }
    let prefix = relative(realpathSync(top), realpathSync(root)).split(sep).join("/");
    if (prefix !== "") prefix = `${prefix}/`;
    const base = [...DIFF_FORMAT, "diff-tree", "-r", "-z", "--no-renames"];
    const [raw, numstat] = await Promise.all([
      runGit([...base, "--raw", baselineTree, finalTree], top, { env }),
      runGit([...base, "--numstat", baselineTree, finalTree], top, { env }),
    ]);
    if (raw.code !== 0) {
      return { diffs: null, reason: `git diff-tree failed: ${raw.stderr || `exit ${raw.code}`}` };
    }
    const stats = parseNumstat(numstat.stdout);
    const entries = parseRaw(raw.stdout).filter((entry) => entry.path.startsWith(prefix));
    const ids = entries
      .flatMap((entry) => [entry.oldId, entry.newId])
      .filter((id) => !ZERO_ID.test(id));
    const sizes = await blobSizes(top, [...new Set(ids)], env);
    // First pass: what each entry shows without its patch; the text entries wait for one
    // batched `git diff-tree -p` over all of them.
    const pending: {
      path: string;
      change: TurnViewFileDiff["change"];
      diff: TurnViewDiff | RawEntry;
    }[] = [];
    for (const [index, entry] of entries.entries()) {
      const path = entry.path.slice(prefix.length);
      const change = entry.status === "A" ? "added" : entry.status === "D" ? "deleted" : "modified";
      const oldBytes = ZERO_ID.test(entry.oldId) ? null : (sizes.get(entry.oldId) ?? null);
      const newBytes = ZERO_ID.test(entry.newId) ? null : (sizes.get(entry.newId) ?? null);
      let diff: TurnViewDiff | RawEntry;
      if (index >= TURN_VIEW_LIMITS.diffFiles) {
        diff = {
          kind: "unavailable",
          reason: `more than ${TURN_VIEW_LIMITS.diffFiles} files changed: no diff past the ${TURN_VIEW_LIMITS.diffFiles}th (run git diff ${baselineTree} ${finalTree})`,
        };
      } else if (entry.oldMode === "160000" || entry.newMode === "160000") {
        diff = { kind: "unavailable", reason: "a submodule: its commit changed" };
      } else if (
        (oldBytes ?? 0) > TURN_VIEW_LIMITS.blobBytes ||
        (newBytes ?? 0) > TURN_VIEW_LIMITS.blobBytes
      ) {
        diff = {
          kind: "too_large",
          old_bytes: oldBytes,
          new_bytes: newBytes,
          limit_bytes: TURN_VIEW_LIMITS.blobBytes,
        };
      } else if (stats.get(entry.path) === null) {
        diff = { kind: "binary", old_bytes: oldBytes, new_bytes: newBytes };
      } else {
        diff = entry;
      }
      pending.push({ path, change, diff });
    }
    const texts = pending.flatMap((p) => ("kind" in p.diff ? [] : [p.diff.path]));
    let patches = new Map<string, string>();
    let failed: string | null = null;
    if (texts.length > 0) {
      const patch = await runGit(
        [
          ...DIFF_FORMAT,
          "diff-tree",
          "-r",
          "-p",
          "-U3",
          "--no-color",
          "--no-ext-diff",
          "--no-textconv",
          "--no-renames",
          "--src-prefix=a/",
          "--dst-prefix=b/",
          baselineTree,
          finalTree,
          "--",
          ...texts.map((path) => `:(literal)${path}`),
        ],
        top,
        { env },
      );
      if (patch.code === 0) patches = splitPatch(patch.stdout.toString("utf8"));
      else failed = `git diff-tree failed: ${patch.stderr || `exit ${patch.code}`}`;
    }
    const diffs: TurnViewFileDiff[] = pending.map(({ path, change, diff }) => {
      if ("kind" in diff) return { path, change, diff };
      const counts = stats.get(diff.path) ?? { additions: 0, deletions: 0 };
      const unified = patches.get(diff.path);
      return {
        path,
        change,
        diff:
          unified !== undefined
            ? { kind: "text", unified, ...counts, truncated: false }
            : {
                kind: "unavailable",
                reason: failed ?? "git diff-tree printed no patch for this file",
              },
      };
    });
    return { diffs, reason: null };
  } catch (error) {
    return { diffs: null, reason: `git cannot run (${(error as Error).message})` };
  }
}

/**
 * Keep the trees a turn's view diffs against (issue 21: `git diff <tree>` must still work
 * later): `git update-ref refs/turngate/trees/<id> <id>` for each tree id, so `git gc`
 * never prunes them (a tree that no ref reaches is pruned after `gc.pruneExpire`, two weeks
 * by default). Only refs under `refs/turngate/trees/` are written; the user's index, HEAD,
 * branches and tags are never touched. List them with `git for-each-ref refs/turngate/`;
 * drop them with `git update-ref -d`.
 *
 * Input: the workspace root, tree ids (nulls and duplicates skipped). Output: the ids kept
 * (a tree not in the store, or outside a git work tree, is skipped). Never throws.
 */
export async function keepTrees(
  root: string,
  trees: ReadonlyArray<string | null>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const kept: string[] = [];
  const ids = [...new Set(trees)].filter(
    (tree): tree is string => tree !== null && TREE_ID.test(tree),
  );
  if (ids.length === 0) return kept;
  // One transaction for all of them (the common case); when it fails (a tree not in the
  // store), one call per tree, so the others are still kept.
  try {
    const input = ids.map((tree) => `update ${KEPT_TREES_REF_PREFIX}${tree} ${tree}\n`).join("");
    const all = await runGit(["update-ref", "--stdin"], root, { env, input: Buffer.from(input) });
    if (all.code === 0) return ids;
  } catch {
    return kept; // git missing: nothing to keep
  }
  for (const tree of ids) {
    try {
      const result = await runGit(["update-ref", `${KEPT_TREES_REF_PREFIX}${tree}`, tree], root, {
        env,
      });
      if (result.code === 0) kept.push(tree);
    } catch {
      // git missing: nothing to keep
    }
  }
  return kept;
}

/**
 * Drop the refs {@link keepTrees} wrote for trees no stored view names any more (`turngate
 * gc`; docs/cli.md "turngate gc"): of the refs under `refs/turngate/trees/` of the
 * repository at `root`, those whose tree id is in `release` are deleted in one `git
 * update-ref --stdin` transaction (`dryRun`: none is). Only ids the caller names go, so the
 * trees kept for another state folder's views (hook sessions keep theirs outside the
 * workspace) stay. git's own gc may then prune the trees. Output: the deleted (or, dry run,
 * deletable) ref names, sorted; `[]` when `root` is not a git repository or git is missing.
 * Errors: `WorkspaceObserverError` `git_failed` when the deletion fails.
 */
export async function releaseTrees(
  root: string,
  release: Iterable<string>,
  options: { dryRun?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<string[]> {
  const env = options.env ?? process.env;
  const ids = new Set([...release].filter((tree) => TREE_ID.test(tree)));
  if (ids.size === 0) return [];
  let listed: Awaited<ReturnType<typeof runGit>>;
  try {
    listed = await runGit(["for-each-ref", "--format=%(refname)", KEPT_TREES_REF_PREFIX], root, {
      env,
    });
  } catch {
    return [];
  }
  if (listed.code !== 0) return [];
  const drop = listed.stdout
    .toString("utf8")
    .split("\n")
    .filter((ref) => ref.startsWith(KEPT_TREES_REF_PREFIX))
    .filter((ref) => ids.has(ref.slice(KEPT_TREES_REF_PREFIX.length)))
    .sort();
  if (drop.length === 0 || options.dryRun === true) return drop;
  const input = drop.map((ref) => `delete ${ref}\n`).join("");
  const result = await runGit(["update-ref", "--stdin"], root, {
    env,
    input: Buffer.from(input),
  });
  if (result.code !== 0) {
    throw new WorkspaceObserverError(
      "git_failed",
      `git update-ref could not delete turngate's kept trees in ${root} (exit ${result.code}): ${result.stderr}`,
    );
  }
  return drop;
}
