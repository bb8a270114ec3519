import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGit } from "../workspace/listing/git.js";
import { attributeRule, catFileBatch, parseCheckAttr } from "./git-batch.js";

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
    const read = await runGit(["read-tree", tree], cwd, { env: indexEnv });
    if (read.code !== 0) {
      return `git read-tree ${tree} failed: ${read.stderr.trim() || `exit ${read.code}`}`;
    }
    const attrs = await runGit(
      ["check-attr", "--cached", "-z", "--stdin", ...CHECKOUT_ATTRIBUTES],
      cwd,
      { env: indexEnv, input: Buffer.from(`${paths.join("\0")}\0`, "utf8") },
    );
    if (attrs.code !== 0) {
      return `git check-attr failed: ${attrs.stderr.trim() || `exit ${attrs.code}`}`;
    }
    const rules = new Map<string, string[]>();
    for (const attribute of parseCheckAttr(attrs.stdout)) {
      const rule = attributeRule(attribute);
      if (rule === null || !converts(attribute.name, attribute.value)) continue;
      rules.set(attribute.path, [...(rules.get(attribute.path) ?? []), rule]);
    }
    // `ident` rewrites only a blob that holds the keyword: read those blobs.
    const identOnly = paths.filter((path) => rules.get(path)?.join() === "ident");
    const keyword = new Set<string>();
    if (identOnly.length > 0) {
      const blobs = await catFileBatch(
        cwd,
        identOnly.map((path) => `${tree}:${path}`),
        env,
      );
      if (typeof blobs === "string") return blobs;
      for (const [i, path] of identOnly.entries()) {
        const blob = blobs[i];
        if (blob === undefined) return `${path}: its blob cannot be read`;
        if (/\$Id[$:]/.test(blob.content.toString("latin1"))) keyword.add(path);
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

/** Whether attribute `name`, set to `value` (as `check-attr` prints it), rewrites on checkout. */
function converts(name: string, value: string): boolean {
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
