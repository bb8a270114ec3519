import { createHash } from "node:crypto";
import { join } from "node:path";
import { runGit } from "../workspace/listing/git.js";
import type { EntryState, WorkspaceSnapshot } from "../workspace/snapshot.js";
import { checkoutConversion } from "./checkout-conversion.js";
import { attributeRule, catFileBatch, parseCheckAttr } from "./git-batch.js";

/** One entry of `git ls-tree -r -z --full-tree`. */
interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  path: string;
}

/** Options of {@link treeSnapshotMismatch}. */
export interface TreeCheckOptions {
  /**
   * Check the bytes of these paths only (the turn's changed paths): every other blob is
   * taken to be the baseline tree's, already checked against the baseline snapshot. Absent:
   * the bytes of every blob are checked. The entry set and the modes are always checked in
   * full.
   */
  bytesOf?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

/**
 * Why the git tree `tree` is not exactly the source scope of `snapshot` (the bytes the
 * checks were judged on), or `undefined` when it is (docs/design.md §3 "Proof": the proof's
 * `workspace.final_tree`, and the baseline tree it is built on). The tree matches when:
 * - every source entry of `snapshot` (`entries`) is in `git ls-tree -r -z --full-tree
 *   <tree>` with the same mode class (`100644`/`100755` for a file without/with the owner's
 *   execute bit, `120000` for a symlink);
 * - each of those blobs (all of them, or only `options.bytesOf`) holds exactly the bytes
 *   judged: the SHA-256 of the blob's raw content, read by `git cat-file --batch` and its
 *   git id recomputed (an object whose stored bytes were replaced is caught), equals the
 *   entry's `content_digest` — so a blob git stored *converted* (`ident`, `text`/`eol`,
 *   `working-tree-encoding`, a clean filter) does not match;
 * - the tree holds nothing else: no file at an output location, no ignored or harness file,
 *   no path the snapshot does not hold; a gitlink (`160000`, a submodule or nested
 *   repository) matches only when the commit's tree, read in that repository, matches the
 *   snapshot's entries under its folder the same way (a gitlink with no checked file under
 *   it is taken as an absent, not checked out, submodule).
 * Input: the work tree's top level, a tree id, the judged snapshot (paths relative to that
 * top level), options. Output: `undefined`, or the first differing path and why, e.g.
 * `lib.js is stored filtered by .gitattributes (ident): the checked bytes differ from the
 * blob`. Cost: one `ls-tree` of the whole tree (about 12 ms for 20,000 files) plus one
 * `cat-file --batch` of the blobs whose bytes are checked. Never throws (a git failure is a
 * reason).
 */
export async function treeSnapshotMismatch(
  topLevel: string,
  tree: string,
  snapshot: WorkspaceSnapshot,
  options: TreeCheckOptions = {},
): Promise<string | undefined> {
  const env = options.env ?? process.env;
  const bytesOf = options.bytesOf === undefined ? undefined : new Set(options.bytesOf);
  try {
    return await mismatchIn(topLevel, "", tree, snapshot, bytesOf, env);
  } catch (error) {
    return `git cannot run (${(error as Error).message})`;
  }
}

async function listTree(
  cwd: string,
  treeish: string,
  env: NodeJS.ProcessEnv,
): Promise<TreeEntry[] | string> {
  const listed = await runGit(["ls-tree", "-r", "-z", "--full-tree", treeish], cwd, {
    env,
  });
  if (listed.code !== 0) {
    return `git ls-tree ${treeish} failed: ${listed.stderr.trim() || `exit ${listed.code}`}`;
  }
  const entries: TreeEntry[] = [];
  for (const record of listed.stdout.toString("utf8").split("\0")) {
    if (record === "") continue;
    const tab = record.indexOf("\t");
    const [mode = "", type = "", oid = ""] = record.slice(0, tab).split(" ");
    const path = record.slice(tab + 1);
    // Snapshot keys are NFC; only a name outside printable ASCII can differ.
    entries.push({
      mode,
      type,
      oid,
      path: /[^ -~]/.test(path) ? path.normalize("NFC") : path,
    });
  }
  return entries;
}

function modeClass(entry: EntryState): string {
  if (entry.kind === "symlink") return "120000";
  return entry.mode & 0o100 ? "100755" : "100644";
}

const MODE_NAMES: Record<string, string> = {
  "100644": "a file",
  "100755": "an executable file",
  "120000": "a symlink",
  "160000": "a submodule (gitlink)",
  "040000": "a folder",
};

function whyAbsentFromSnapshot(path: string, snapshot: WorkspaceSnapshot): string {
  const outside = snapshot.outside.get(path);
  if (outside?.scope === "output")
    return `${path} is at an output location: the checks never saw it`;
  if (outside?.scope === "ignored") return `${path} is ignored: the checks never saw it`;
  if (outside?.scope === "harness") return `${path} is a harness file: the checks never saw it`;
  if (snapshot.unreadable.includes(path)) return `${path} could not be read when it was judged`;
  return `${path} is not in the judged snapshot: the checks never saw it`;
}

/** The tree (or the submodule commit at `prefix`) against the entries under `prefix`. */
async function mismatchIn(
  cwd: string,
  prefix: string,
  treeish: string,
  snapshot: WorkspaceSnapshot,
  bytesOf: Set<string> | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const listed = await listTree(cwd, treeish, env);
  if (typeof listed === "string") return prefix === "" ? listed : `${prefix}: ${listed}`;
  const seen = new Set<string>();
  const gitlinks: TreeEntry[] = [];
  const blobs: TreeEntry[] = [];
  for (const item of listed) {
    const path = prefix + item.path;
    if (item.mode === "160000") {
      gitlinks.push({ ...item, path });
      continue;
    }
    const entry = snapshot.entries.get(path);
    if (entry === undefined) return whyAbsentFromSnapshot(path, snapshot);
    seen.add(path);
    const want = modeClass(entry);
    if (item.mode !== want) {
      return `${path} is ${MODE_NAMES[item.mode] ?? `mode ${item.mode}`} in the tree, but ${MODE_NAMES[want]} was checked`;
    }
    if (bytesOf === undefined || bytesOf.has(path)) blobs.push({ ...item, path });
  }
  for (const link of gitlinks) {
    const under = `${link.path}/`;
    const checked = [...snapshot.entries.keys()].filter((key) => key.startsWith(under));
    if (checked.length === 0) continue;
    const inner = await mismatchIn(
      join(cwd, link.path.slice(prefix.length)),
      under,
      link.oid,
      snapshot,
      bytesOf,
      env,
    );
    if (inner !== undefined) {
      return `${link.path} is a submodule (gitlink ${link.oid.slice(0, 12)}) whose commit does not hold the checked bytes: ${inner}`;
    }
    for (const key of checked) seen.add(key);
  }
  for (const path of snapshot.entries.keys()) {
    if (path.startsWith(prefix) && !seen.has(path)) {
      return `${path} was checked but is not in the tree`;
    }
  }
  if (blobs.length > 0) {
    const bytesWhy = await blobBytesMismatch(cwd, prefix, blobs, snapshot, env);
    if (bytesWhy !== undefined) return bytesWhy;
  }
  // A blob that holds the checked bytes can still check out as other bytes (.gitattributes
  // `eol=crlf`, `ident`, …): read the tree's own attributes, for every file when any
  // .gitattributes is new or changed (or on the full check), else for the changed files.
  const attributeFiles = listed.filter(
    (item) => item.path === ".gitattributes" || item.path.endsWith("/.gitattributes"),
  );
  if (prefix === "" && attributeFiles.length > 0) {
    const all = bytesOf === undefined || attributeFiles.some((item) => bytesOf.has(item.path));
    const paths = listed
      .filter((item) => item.mode !== "160000" && item.mode !== "120000")
      .map((item) => item.path)
      .filter((path) => all || bytesOf?.has(path));
    const converted = await checkoutConversion(cwd, treeish, paths, env);
    if (typeof converted === "string") return converted;
    if (converted !== undefined) {
      return `${converted.path} is converted on checkout by .gitattributes (${converted.rules}): a checkout of this tree does not give the bytes that were checked`;
    }
  }
  return undefined;
}

/** The first of `blobs` whose stored bytes are not the judged ones, and why; undefined when none. */
async function blobBytesMismatch(
  cwd: string,
  prefix: string,
  blobs: readonly TreeEntry[],
  snapshot: WorkspaceSnapshot,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const objects = await catFileBatch(
    cwd,
    blobs.map((b) => b.oid),
    env,
  );
  if (typeof objects === "string") return objects;
  for (const [i, blob] of blobs.entries()) {
    const object = objects[i];
    if (object === undefined || object.type !== "blob") {
      return `${blob.path}: the blob ${blob.oid} cannot be read`;
    }
    const { content } = object;
    const algorithm = blob.oid.length === 64 ? "sha256" : "sha1";
    const id = createHash(algorithm)
      .update(`blob ${content.length}\0`)
      .update(content)
      .digest("hex");
    if (id !== blob.oid)
      return `${blob.path}: the stored object ${blob.oid} does not hold its bytes`;
    const digest = createHash("sha256").update(content).digest("hex");
    if (digest !== snapshot.entries.get(blob.path)?.content_digest) {
      if (prefix !== "") return `${blob.path} differs`;
      const rules = await conversionAttributes(cwd, blob.path.slice(prefix.length), env);
      return rules === ""
        ? `${blob.path}: the checked bytes differ from the blob (the file changed after it was judged, or git converted it)`
        : `${blob.path} is stored filtered by .gitattributes (${rules}): the checked bytes differ from the blob`;
    }
  }
  return undefined;
}

/** The conversion attributes set on `path` (`ident`, `text=auto`, …), for a reason text. */
async function conversionAttributes(
  cwd: string,
  path: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const names = ["ident", "text", "eol", "crlf", "working-tree-encoding", "filter"];
  try {
    const result = await runGit(["check-attr", "-z", ...names, "--", path], cwd, { env });
    return parseCheckAttr(result.stdout)
      .map(attributeRule)
      .filter((rule): rule is string => rule !== null)
      .join(", ");
  } catch {
    return "";
  }
}
