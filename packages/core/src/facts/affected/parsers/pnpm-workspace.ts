/**
 * `pnpm.workspace.v1` (ours): the packages of a pnpm workspace with their `package.json`
 * → one target per package that holds a changed path, and the workspace dependency graph.
 * The host reads `pnpm-workspace.yaml` and the manifests (no command runs); this parser
 * only maps.
 */
import { type Dict, isDict, sortCodePoints, trimmedText } from "../../harn-values.js";
import { cleanPath, relativeToRoot } from "../paths.js";
import { directProjectTargets, type ProjectNode } from "../project-graph.js";
import { AffectedParseError, type AffectedParser, parseJsonStdout } from "./types.js";

/** The `package.json` dependency fields that link workspace packages. */
export const PNPM_DEPENDENCY_FIELDS = [
  "dependencies",
  "devDependencies",
  "peerDependencies",
  "optionalDependencies",
] as const;

/**
 * Input JSON: `{packages: [{root, manifest}]}` — `root` the package folder relative to
 * the workspace root (`""` for the root package; absolute under `ctx.root` is accepted),
 * `manifest` the parsed `package.json`. Target per package: `{id: "pnpm:<name>" (a
 * nameless package: "pnpm:<root>"), label: name, kind: "pnpm-package", adapter_id,
 * source: "adapter", files (changed paths it owns; a nested package owns its own), root,
 * target_names: sorted script names, reason: "direct"}`. A package depends on every
 * workspace package named in its dependency fields ({@link PNPM_DEPENDENCY_FIELDS}),
 * whatever the version range. Throws `AffectedParseError` for non-JSON, a missing
 * `packages` list, or an entry without a string `root`.
 */
export const parsePnpmWorkspace: AffectedParser = (stdout, ctx) => {
  const data = parseJsonStdout(stdout, "pnpm.workspace.v1");
  if (!isDict(data) || !Array.isArray(data.packages)) {
    throw new AffectedParseError("pnpm.workspace.v1: expected {packages: [{root, manifest}]}");
  }
  const rows = data.packages.map((entry, i) => {
    if (!isDict(entry) || typeof entry.root !== "string") {
      throw new AffectedParseError(`pnpm.workspace.v1: packages.${i}.root must be a string`);
    }
    const manifest: Dict = isDict(entry.manifest) ? entry.manifest : {};
    const root = relativeToRoot(cleanPath(entry.root), ctx.root).replace(/\/+$/, "");
    const name = trimmedText(manifest.name ?? "");
    return { root: root === "." ? "" : root, name, manifest };
  });
  const idOf = (r: { root: string; name: string }) => `pnpm:${r.name !== "" ? r.name : r.root}`;
  const byName = new Map(rows.filter((r) => r.name !== "").map((r) => [r.name, idOf(r)]));
  const projects: ProjectNode[] = rows.map((r) => {
    const deps: string[] = [];
    for (const field of PNPM_DEPENDENCY_FIELDS) {
      const block = r.manifest[field];
      if (!isDict(block)) continue;
      for (const dep of Object.keys(block)) {
        const id = byName.get(dep);
        if (id !== undefined && dep !== r.name && !deps.includes(id)) deps.push(id);
      }
    }
    const scripts = isDict(r.manifest.scripts)
      ? sortCodePoints(Object.keys(r.manifest.scripts))
      : [];
    return {
      id: idOf(r),
      root: r.root,
      owns: "under" as const,
      deps,
      base: {
        id: idOf(r),
        label: r.name !== "" ? r.name : r.root,
        kind: "pnpm-package",
        adapter_id: ctx.adapterId,
        source: "adapter",
        root: r.root,
        target_names: scripts,
      },
    };
  });
  return { targets: directProjectTargets(projects, ctx.changedPaths), projects };
};
