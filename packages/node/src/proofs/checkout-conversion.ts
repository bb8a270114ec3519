import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGit } from "../workspace/listing/git.js";

/** `-c` settings on every git call here (no program the agent planted runs; as tree-check.ts). */
const SAFE_GIT = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.untrackedCache=false",
];

/** The attributes whose checkout step rewrites a blob's bytes in the work tree. */
const CHECKOUT_ATTRIBUTES = ["ident", "eol", "working-tree-encoding", "filter"] as const;

/** A path of a tree that a checkout does not write as its blob's bytes, and the rules why. */
export interface CheckoutConversion {
  path: string;
  /** The attributes as `.gitattributes` set them, e.g. `eol=crlf` or `ident`. */
  rules: string;
}

/**
 * The first of `paths` (relative to the top level `cwd`) whose blob in `tree` a checkout
 * would not write byte for byte (docs/design.md §3 "Proof": `final_tree` must check out as
 * the bytes the checks saw). The attributes are read from the `.gitattributes` files of
 * `tree` itself (a temporary index: `git read-tree` then `git check-attr --cached`), as a
 * clone of a commit with that tree reads them: `ident` set on a blob holding a `$Id$`
 * keyword (expanded), `eol=crlf` (line endings rewritten), a `working-tree-encoding` other
 * than UTF-8 (re-encoded), any `filter` (a smudge step). Conservative beyond `ident`: a blob
 * these rules would leave as it is (already CRLF, binary) is still named. The repository's
 * own `info/attributes` is read too (git offers no way to skip it), which can only name
 * more paths. Output: the conversion, or undefined; a string when git fails (the reason).
 * Never throws.
 */
export async function checkoutConversion(
  cwd: string,
  tree: string,
  paths: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<CheckoutConversion | string | undefined> {
  if (paths.length === 0) return undefined;
  let dir: string | undefined;
  try {
    dir = await mkdtemp(join(tmpdir(), "turngate-attr-"));
    const indexEnv = { ...env, GIT_INDEX_FILE: join(dir, "index") };
    const read = await runGit([...SAFE_GIT, "read-tree", tree], cwd, { env: indexEnv });
    if (read.code !== 0) {
      return `git read-tree ${tree} failed: ${read.stderr.trim() || `exit ${read.code}`}`;
    }
    const attrs = await runGit(
      [...SAFE_GIT, "check-attr", "--cached", "-z", "--stdin", ...CHECKOUT_ATTRIBUTES],
      cwd,
      { env: indexEnv, input: Buffer.from(`${paths.join("\0")}\0`, "utf8") },
    );
    if (attrs.code !== 0) {
      return `git check-attr failed: ${attrs.stderr.trim() || `exit ${attrs.code}`}`;
    }
    const fields = attrs.stdout.toString("utf8").split("\0");
    const rules = new Map<string, string[]>();
    for (let i = 0; i + 2 < fields.length; i += 3) {
      const [path, name, value] = [fields[i] ?? "", fields[i + 1] ?? "", fields[i + 2] ?? ""];
      if (!converts(name, value)) continue;
      const list = rules.get(path) ?? [];
      list.push(value === "set" ? name : `${name}=${value}`);
      rules.set(path, list);
    }
    // `ident` rewrites only a blob that holds the keyword: read those blobs.
    const identOnly = paths.filter((path) => rules.get(path)?.join() === "ident");
    const keyword = new Set<string>();
    if (identOnly.length > 0) {
      const blobs = await runGit([...SAFE_GIT, "cat-file", "--batch"], cwd, {
        env,
        input: Buffer.from(identOnly.map((path) => `${tree}:${path}\n`).join(""), "utf8"),
      });
      if (blobs.code !== 0)
        return `git cat-file failed: ${blobs.stderr.trim() || `exit ${blobs.code}`}`;
      let at = 0;
      for (const path of identOnly) {
        const nl = blobs.stdout.indexOf(10, at);
        const size = Number(blobs.stdout.subarray(at, nl).toString("utf8").split(" ")[2]);
        if (nl < 0 || !Number.isInteger(size)) return `${path}: its blob cannot be read`;
        const content = blobs.stdout.subarray(nl + 1, nl + 1 + size);
        if (/\$Id[$:]/.test(content.toString("latin1"))) keyword.add(path);
        at = nl + 1 + size + 1;
      }
    }
    for (const path of paths) {
      const found = rules.get(path);
      if (found === undefined) continue;
      if (found.join() === "ident" && !keyword.has(path)) continue;
      return { path, rules: found.join(", ") };
    }
    return undefined;
  } catch (error) {
    return `git cannot run (${(error as Error).message})`;
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

/** Whether attribute `name` with `value` (as `check-attr` prints it) rewrites on checkout. */
function converts(name: string, value: string): boolean {
  if (value === "unspecified" || value === "unset") return false;
  switch (name) {
    case "ident":
      return value === "set";
    case "eol":
      return value === "crlf";
    case "working-tree-encoding":
      return !/^utf-?8$/i.test(value);
    case "filter":
      return true;
    default:
      return false;
  }
}
