/**
 * Project graphs that workspace parsers read (pnpm, Nx/JS, Cargo, `go list`): one node per
 * project with its root and the projects it depends on, so dependents can be found
 * transitively with the chain that reaches them (our change, docs/design.md §4).
 */
import type { Dict } from "../harn-values.js";
import { pathUnder } from "./paths.js";
import type { AffectedTarget } from "./target.js";

/**
 * One project. `id` is its target id (`pnpm:a`, `cargo:core`, `go:example.com/m/a`, …);
 * `root` workspace-relative (`""` = the whole workspace); `deps` the ids of projects it
 * depends on (workspace-internal only); `base` the target fields besides `files`, `reason`
 * and `via`; `owns` `"under"` (a file under the root belongs to it; the deepest root
 * wins) or `"dir"` (only files directly in the root folder, or in its `testdata/`: Go
 * packages).
 */
export interface ProjectNode {
  id: string;
  root: string;
  deps: string[];
  base: Omit<AffectedTarget, "files" | "reason" | "via"> & Dict;
  owns: "under" | "dir";
}

function owns(node: ProjectNode, path: string): boolean {
  if (node.owns === "under") return pathUnder(node.root, path);
  const prefix = node.root === "" || node.root === "." ? "" : `${node.root}/`;
  if (!path.startsWith(prefix)) return false;
  const rest = path.slice(prefix.length);
  return !rest.includes("/") || rest.startsWith("testdata/");
}

/**
 * The project that owns `path`: among the nodes whose root holds it, the one with the
 * longest root (nested packages own their own files). Undefined when none does.
 */
export function owningProject(
  nodes: readonly ProjectNode[],
  path: string,
): ProjectNode | undefined {
  let best: ProjectNode | undefined;
  for (const n of nodes) {
    if (!owns(n, path)) continue;
    if (best === undefined || n.root.length > best.root.length) best = n;
  }
  return best;
}

/**
 * Targets for the projects that own the changed `paths` (`reason: "direct"`, `files` =
 * the paths each owns, in input order), in the order of `nodes`.
 */
export function directProjectTargets(
  nodes: readonly ProjectNode[],
  paths: readonly string[],
): AffectedTarget[] {
  const files = new Map<string, string[]>();
  for (const p of paths) {
    const owner = owningProject(nodes, p);
    if (owner === undefined) continue;
    const list = files.get(owner.id) ?? [];
    list.push(p);
    files.set(owner.id, list);
  }
  const out: AffectedTarget[] = [];
  for (const n of nodes) {
    const f = files.get(n.id);
    if (f !== undefined) out.push({ ...n.base, files: f, reason: "direct" } as AffectedTarget);
  }
  return out;
}

/**
 * Breadth-first walk of the reverse edges from the `start` ids: every project that
 * depends on one of them, directly or through others. Returns, per reached id in walk
 * order, `via` — the ids from the start project to the one it depends on (shortest
 * chain; ties by `start` order then `nodes` order) — and the start id it came from.
 */
export function dependentsOf(
  nodes: readonly ProjectNode[],
  start: readonly string[],
): { id: string; via: string[]; from: string }[] {
  const importers = new Map<string, string[]>();
  for (const n of nodes) {
    for (const d of n.deps) {
      const list = importers.get(d) ?? [];
      if (!list.includes(n.id)) list.push(n.id);
      importers.set(d, list);
    }
  }
  const seen = new Set(start);
  const out: { id: string; via: string[]; from: string }[] = [];
  const queue: { id: string; chain: string[]; from: string }[] = start.map((id) => ({
    id,
    chain: [id],
    from: id,
  }));
  for (let i = 0; i < queue.length; i++) {
    const cur = queue[i] as { id: string; chain: string[]; from: string };
    for (const next of importers.get(cur.id) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      out.push({ id: next, via: cur.chain, from: cur.from });
      queue.push({ id: next, chain: [...cur.chain, next], from: cur.from });
    }
  }
  return out;
}
