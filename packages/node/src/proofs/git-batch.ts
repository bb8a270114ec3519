/**
 * The two batch readers the proof's tree check uses (docs/design.md §3 "Proof"): objects by
 * `git cat-file --batch`, attributes by `git check-attr -z`. One process each for any
 * number of names; `runGit` adds turngate's git safety options.
 */
import { runGit } from "../workspace/listing/git.js";

/** One object `cat-file --batch` printed: its type and raw bytes, or missing. */
export type BatchObject = { type: string; content: Buffer } | undefined;

/**
 * The objects named by `specs` (object ids, or `<tree>:<path>`), in order, read with one
 * `git cat-file --batch` in `cwd`: `{type, content}` each, `undefined` for a name git
 * reports missing. Output: the objects, or a string saying why git failed. Never throws
 * beyond `runGit`'s spawn errors.
 */
export async function catFileBatch(
  cwd: string,
  specs: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<BatchObject[] | string> {
  const read = await runGit(["cat-file", "--batch"], cwd, {
    env,
    input: Buffer.from(specs.map((spec) => `${spec}\n`).join(""), "utf8"),
  });
  if (read.code !== 0) return `git cat-file failed: ${read.stderr.trim() || `exit ${read.code}`}`;
  const out = read.stdout;
  const objects: BatchObject[] = [];
  let at = 0;
  for (const _spec of specs) {
    const nl = out.indexOf(10, at);
    if (nl < 0) return "git cat-file printed less than was asked for";
    const header = out.subarray(at, nl).toString("utf8").split(" ");
    const size = Number(header[2]);
    if (header[1] === "missing" || !Number.isInteger(size)) {
      objects.push(undefined);
      at = nl + 1;
      continue;
    }
    objects.push({ type: header[1] ?? "", content: out.subarray(nl + 1, nl + 1 + size) });
    at = nl + 1 + size + 1;
  }
  return objects;
}

/** One attribute `check-attr -z` printed for a path: `set`, `unset`, `unspecified` or a value. */
export interface CheckedAttribute {
  path: string;
  name: string;
  value: string;
}

/**
 * Parse `git check-attr -z` output (`<path>\0<attribute>\0<value>\0` per line). Pure.
 */
export function parseCheckAttr(stdout: Buffer): CheckedAttribute[] {
  const fields = stdout.toString("utf8").split("\0");
  const out: CheckedAttribute[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    out.push({ path: fields[i] ?? "", name: fields[i + 1] ?? "", value: fields[i + 2] ?? "" });
  }
  return out;
}

/** `name` or `name=value` for an attribute that is set to something, else null. Pure. */
export function attributeRule(attribute: CheckedAttribute): string | null {
  if (attribute.value === "unspecified" || attribute.value === "unset") return null;
  return attribute.value === "set" ? attribute.name : `${attribute.name}=${attribute.value}`;
}
