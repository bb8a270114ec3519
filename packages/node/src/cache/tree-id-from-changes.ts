import { createHash } from "node:crypto";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { runGit } from "../workspace/listing/git.js";

/** One tree entry: mode (octal text as git writes it), object id, name. */
interface Entry {
  mode: string;
  oid: string;
}

/**
 * The id of the tree `baselineTree` with `changes` applied, computed without any index and
 * without writing objects: the changed files' blob ids come from `git hash-object
 * --stdin-paths` (with the repository's text conversion, filters disabled by `gitArgs`),
 * the baseline's trees along the changed paths are read with one `git cat-file --batch`,
 * and the new trees' ids are hashed here bottom-up in git's tree format and order. Only regular files are handled: a changed
 * path that is a symlink, a folder or anything else, a name git's formats cannot carry
 * (newline), or any git failure returns `undefined` and the caller uses the index path;
 * a baseline tree object whose bytes do not hash to the id its parent names (the object
 * store was altered) returns `null`, and the caller computes the full `sourceTreeId`.
 * With `write`, the objects are written too: the blobs by `git hash-object -w`, the new
 * trees bottom-up by one `git mktree -z --batch` (which checks that every entry's object
 * exists), and its ids must equal the ones hashed here, else `undefined`.
 * Input: the top level, the baseline tree id, changes, the `-c` arguments, git's env.
 * Output: the tree id, `undefined` (use the index path) or `null` (use the full tree). Never throws.
 */
export async function treeIdFromChanges(
  topLevel: string,
  baselineTree: string,
  changes: readonly { path: string; change: "added" | "modified" | "deleted" }[],
  gitArgs: readonly string[],
  env: NodeJS.ProcessEnv,
  write = false,
): Promise<string | null | undefined> {
  try {
    const oidBytes = baselineTree.length === 64 ? 32 : 20;
    for (const change of changes) {
      if (change.path.includes("\n") || change.path === "" || change.path.startsWith("/"))
        return undefined;
    }
    // Every folder on a changed path: the baseline's entries of each are read while the
    // changed files are looked at and hashed.
    const dirs = new Set<string>([""]);
    for (const { path } of changes) {
      const parts = path.split("/");
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    }
    const order = [...dirs];
    const reading = runGit([...gitArgs, "cat-file", "--batch"], topLevel, {
      env,
      input: Buffer.from(
        order.map((d) => (d === "" ? `${baselineTree}\n` : `${baselineTree}:${d}\n`)).join(""),
        "utf8",
      ),
    });
    const stats = await Promise.all(
      changes.map((change) =>
        change.change === "deleted"
          ? Promise.resolve(null)
          : lstat(join(topLevel, change.path)).catch(() => null),
      ),
    );
    const files: { path: string; mode: string }[] = [];
    const deleted: string[] = [];
    for (const [i, change] of changes.entries()) {
      const stat = stats[i];
      if (stat === null || stat === undefined) {
        // A change said to exist that cannot be found under its key (a name stored in
        // another Unicode form on disk) is never taken for a deletion: the index path.
        if (change.change !== "deleted") {
          await reading.catch(() => undefined);
          return undefined;
        }
        deleted.push(change.path);
        continue;
      }
      // A file where a folder of the baseline (or of another changed path) was: the
      // bottom-up pass would drop the emptied folder's name, which is now the file's.
      if (dirs.has(change.path)) {
        await reading.catch(() => undefined);
        return undefined;
      }
      if (!stat.isFile()) {
        await reading.catch(() => undefined);
        return undefined;
      }
      files.push({ path: change.path, mode: stat.mode & 0o100 ? "100755" : "100644" });
    }
    const hashed = files.length
      ? await runGit(
          [...gitArgs, "hash-object", ...(write ? ["-w"] : []), "--stdin-paths"],
          topLevel,
          {
            env,
            input: Buffer.from(files.map((f) => `${f.path}\n`).join(""), "utf8"),
          },
        )
      : { code: 0, stdout: Buffer.alloc(0), stderr: "" };
    const read = await reading;
    const oids = hashed.stdout
      .toString("utf8")
      .split("\n")
      .filter((l) => l !== "");
    if (hashed.code !== 0 || oids.length !== files.length) return undefined;
    if (read.code !== 0) return undefined;
    const trees = new Map<string, Map<string, Entry>>();
    const algorithm = oidBytes === 32 ? "sha256" : "sha1";
    const leaf = (path: string) => {
      const slash = path.lastIndexOf("/");
      return { dir: slash < 0 ? "" : path.slice(0, slash), name: path.slice(slash + 1) };
    };
    let at = 0;
    const out = read.stdout;
    // Each tree read is checked against the id its (already checked) parent names, root
    // first: an object in the store whose bytes were replaced is not trusted here.
    for (const dir of order) {
      const expected =
        dir === "" ? baselineTree : trees.get(leaf(dir).dir)?.get(leaf(dir).name)?.oid;
      const nl = out.indexOf(10, at);
      if (nl < 0) return undefined;
      const header = out.subarray(at, nl).toString("utf8");
      at = nl + 1;
      const entries = new Map<string, Entry>();
      trees.set(dir, entries);
      if (header.endsWith(" missing")) {
        if (expected !== undefined) return null;
        continue;
      }
      const [oid, type, sizeText] = header.split(" ");
      const size = Number(sizeText);
      if (type !== "tree") return undefined; // a file where a folder is now: the index path
      const body = out.subarray(at, at + size);
      at += size + 1;
      const actual = createHash(algorithm)
        .update(Buffer.from(`tree ${size}\0`, "latin1"))
        .update(body)
        .digest("hex");
      if (oid !== expected || actual !== expected) return null;
      let p = 0;
      while (p < body.length) {
        const space = body.indexOf(32, p);
        const nul = body.indexOf(0, space);
        if (space < 0 || nul < 0) return undefined;
        const mode = body.subarray(p, space).toString("latin1");
        const nameBytes = body.subarray(space + 1, nul);
        const name = nameBytes.toString("utf8");
        if (!Buffer.from(name, "utf8").equals(nameBytes)) return undefined;
        entries.set(name, {
          mode,
          oid: body.subarray(nul + 1, nul + 1 + oidBytes).toString("hex"),
        });
        p = nul + 1 + oidBytes;
      }
    }
    for (const path of deleted) {
      const { dir, name } = leaf(path);
      trees.get(dir)?.delete(name);
    }
    for (const file of files) {
      const { dir, name } = leaf(file.path);
      const was = trees.get(dir)?.get(name)?.mode;
      if (was === "40000" || was === "040000") return undefined;
    }
    files.forEach((file, i) => {
      const { dir, name } = leaf(file.path);
      trees.get(dir)?.set(name, { mode: file.mode, oid: oids[i] as string });
    });
    const depth = (d: string) => (d === "" ? 0 : d.split("/").length);
    const maxDepth = Math.max(...order.map(depth));
    let root: string | undefined;
    const written: { id: string; entries: Map<string, Entry> }[] = [];
    for (let level = maxDepth; level >= 0; level--) {
      for (const d of order.filter((x) => depth(x) === level)) {
        const entries = trees.get(d) ?? new Map<string, Entry>();
        if (d !== "" && entries.size === 0) {
          trees.get(leaf(d).dir)?.delete(leaf(d).name);
          continue;
        }
        const id = treeObjectId(entries, algorithm);
        written.push({ id, entries });
        if (d === "") root = id;
        else trees.get(leaf(d).dir)?.set(leaf(d).name, { mode: "40000", oid: id });
      }
    }
    if (write && !(await writeTrees(topLevel, written, gitArgs, env))) return undefined;
    return root;
  } catch {
    return undefined;
  }
}

/**
 * Writes `trees` (children before parents) to the object store with one
 * `git mktree -z --batch`, which refuses an entry whose object does not exist. Output: true
 * when git wrote every tree and printed exactly the ids hashed here. Never throws.
 */
async function writeTrees(
  topLevel: string,
  trees: readonly { id: string; entries: Map<string, Entry> }[],
  gitArgs: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const type = (mode: string) =>
    mode === "40000" || mode === "040000" ? "tree" : mode === "160000" ? "commit" : "blob";
  const parts: string[] = [];
  for (const tree of trees) {
    for (const [name, e] of tree.entries)
      parts.push(`${e.mode} ${type(e.mode)} ${e.oid}\t${name}\0`);
    parts.push("\0");
  }
  try {
    const made = await runGit([...gitArgs, "mktree", "-z", "--batch"], topLevel, {
      env,
      input: Buffer.from(parts.join(""), "utf8"),
    });
    const ids = made.stdout
      .toString("utf8")
      .split("\n")
      .filter((l) => l !== "");
    return (
      made.code === 0 && ids.length === trees.length && ids.every((id, i) => id === trees[i]?.id)
    );
  } catch {
    return false;
  }
}

/**
 * The object id of a git tree with `entries` (name → mode and id), computed as git does
 * without writing it: `tree <size>\0` then each entry `<mode> <name>\0<raw id>` in git's
 * order (names compared as bytes, a tree's name as if it ended with `/`).
 */
function treeObjectId(entries: Map<string, Entry>, algorithm: "sha1" | "sha256"): string {
  const isTree = (mode: string) => mode === "40000" || mode === "040000";
  const sorted = [...entries].map(([name, e]) => ({
    key: Buffer.from(isTree(e.mode) ? `${name}/` : name, "utf8"),
    name,
    e,
  }));
  sorted.sort((a, b) => Buffer.compare(a.key, b.key));
  const parts: Buffer[] = [];
  for (const { name, e } of sorted) {
    parts.push(
      Buffer.from(`${isTree(e.mode) ? "40000" : e.mode} ${name}\0`, "utf8"),
      Buffer.from(e.oid, "hex"),
    );
  }
  const body = Buffer.concat(parts);
  return createHash(algorithm)
    .update(Buffer.from(`tree ${body.length}\0`, "latin1"))
    .update(body)
    .digest("hex");
}
