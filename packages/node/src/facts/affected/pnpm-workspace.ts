/**
 * Reads a pnpm workspace for the `pnpm.workspace.v1` parser: `pnpm-workspace.yaml`'s
 * `packages` globs expanded to the folders holding a `package.json`, each with its
 * parsed manifest. No command runs.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";

/** Folders never searched for packages. */
const SKIP_DIRS = new Set(["node_modules", ".git", ".turngate", "dist", "target", ".turbo"]);
/** How deep below the root packages are looked for (pnpm globs rarely go past 4). */
const MAX_DEPTH = 6;

/** A pnpm glob (`packages/*`, `apps/**`, `tools/cli`) as an anchored RegExp over folder paths. */
function globRegExp(glob: string): RegExp {
  let g = glob.trim().replace(/^\.\//, "").replace(/\/+$/, "");
  if (g === "" || g === ".") g = "";
  let out = "";
  for (let i = 0; i < g.length; i++) {
    const c = g[i] as string;
    if (c === "*" && g[i + 1] === "*") {
      out += ".*";
      i++;
      if (g[i + 1] === "/") i++;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${out}$`);
}

async function packageFolders(
  root: string,
  rel: string,
  depth: number,
  out: string[],
): Promise<void> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
  } catch {
    return;
  }
  if (entries.some((e) => e.isFile() && e.name === "package.json")) out.push(rel);
  if (depth >= MAX_DEPTH) return;
  for (const e of entries) {
    if (!e.isDirectory() || SKIP_DIRS.has(e.name)) continue;
    await packageFolders(root, rel === "" ? e.name : `${rel}/${e.name}`, depth + 1, out);
  }
}

/**
 * The workspace's packages as `pnpm.workspace.v1` input JSON: `{packages: [{root,
 * manifest}]}`, sorted by root. Packages are the folders (up to 6 levels deep, skipping
 * `node_modules`, `.git`, `dist`, …) with a `package.json` that match a `packages` glob
 * and no `!` glob; the root package only when a glob names `.`. Resolves to `null` when
 * `<root>/pnpm-workspace.yaml` does not exist. Rejects with an `Error` naming the file
 * when the YAML or a manifest does not parse.
 */
export async function readPnpmWorkspace(
  root: string,
): Promise<{ packages: { root: string; manifest: unknown }[] } | null> {
  let text: string;
  try {
    text = await readFile(join(root, "pnpm-workspace.yaml"), "utf8");
  } catch {
    return null;
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new Error(`pnpm-workspace.yaml does not parse: ${(error as Error).message}`);
  }
  const globs =
    typeof doc === "object" &&
    doc !== null &&
    Array.isArray((doc as { packages?: unknown }).packages)
      ? ((doc as { packages: unknown[] }).packages.filter((g) => typeof g === "string") as string[])
      : [];
  const include = globs.filter((g) => !g.startsWith("!")).map(globRegExp);
  const exclude = globs.filter((g) => g.startsWith("!")).map((g) => globRegExp(g.slice(1)));
  const folders: string[] = [];
  await packageFolders(root, "", 0, folders);
  const chosen = folders
    .filter((f) => include.some((re) => re.test(f)) && !exclude.some((re) => re.test(f)))
    .sort();
  const packages = [];
  for (const f of chosen) {
    const file = join(root, f, "package.json");
    try {
      packages.push({ root: f, manifest: JSON.parse(await readFile(file, "utf8")) as unknown });
    } catch (error) {
      throw new Error(
        `${f === "" ? "" : `${f}/`}package.json does not parse: ${(error as Error).message}`,
      );
    }
  }
  return { packages };
}
