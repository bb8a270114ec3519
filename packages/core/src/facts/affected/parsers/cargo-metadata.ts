/**
 * `cargo.metadata.v1`: `cargo metadata --format-version 1` output → one target per
 * package whose root holds a changed path (harn-verification.md §1.3.1), plus the
 * workspace graph from each package's path dependencies (ours).
 */
import { type Dict, isDict, trimmedText } from "../../harn-values.js";
import { cleanPath, dirnameOf, isAbsoluteText, pathUnder, relativeToRoot } from "../paths.js";
import type { ProjectNode } from "../project-graph.js";
import type { AffectedTarget } from "../target.js";
import { type AffectedParser, parseJsonStdout } from "./types.js";

function targetNames(pkg: Dict): string[] {
  const out: string[] = [];
  for (const t of Array.isArray(pkg.targets) ? pkg.targets : []) {
    const name = trimmedText(isDict(t) ? (t.name ?? t) : t);
    if (name !== "" && !out.includes(name)) out.push(name);
  }
  return out;
}

/**
 * For each `package` of `data.packages`: manifest = the clean `manifest_path`, made
 * workspace-relative when it is absolute and under `ctx.root` (our change: real `cargo
 * metadata` prints absolute paths, §7 item 6); root = its folder; files = changed paths
 * under root (skip the package when none); target `{id: "cargo:<name>", label: name,
 * kind: "cargo-package", adapter_id, source: "adapter", files, manifest_path (raw),
 * target_names (unique, input order), root, reason: "direct"}`.
 *
 * Projects (ours): the workspace members (`workspace_members` ids when given, else the
 * packages whose manifest lies under the root), each depending on the members named by its
 * `dependencies` (any kind: normal, dev, build). Throws `AffectedParseError` when stdout is
 * not JSON.
 */
export const parseCargoMetadata: AffectedParser = (stdout, ctx) => {
  const data = parseJsonStdout(stdout, "cargo.metadata.v1");
  const packages = isDict(data) && Array.isArray(data.packages) ? data.packages : [];
  const members =
    isDict(data) && Array.isArray(data.workspace_members)
      ? new Set(data.workspace_members.map((m) => String(m)))
      : undefined;
  const targets: AffectedTarget[] = [];
  const rows: { pkg: Dict; name: string; root: string; member: boolean }[] = [];
  for (const raw of packages) {
    const pkg: Dict = isDict(raw) ? raw : {};
    const manifest = relativeToRoot(cleanPath(pkg.manifest_path ?? ""), ctx.root);
    const root = dirnameOf(manifest);
    const name = trimmedText(pkg.name ?? "");
    const member =
      members !== undefined
        ? members.has(String(pkg.id))
        : manifest !== "" && !isAbsoluteText(manifest);
    if (name !== "") rows.push({ pkg, name, root, member });
    const files = ctx.changedPaths.filter((p) => pathUnder(root, p));
    if (files.length === 0 || name === "") continue;
    targets.push({
      id: `cargo:${name}`,
      label: name,
      kind: "cargo-package",
      adapter_id: ctx.adapterId,
      source: "adapter",
      files,
      manifest_path: pkg.manifest_path,
      target_names: targetNames(pkg),
      root,
      reason: "direct",
    });
  }
  const memberNames = new Set(rows.filter((r) => r.member).map((r) => r.name));
  const projects: ProjectNode[] = rows
    .filter((r) => r.member)
    .map((r) => ({
      id: `cargo:${r.name}`,
      root: r.root,
      owns: "under" as const,
      deps: (Array.isArray(r.pkg.dependencies) ? r.pkg.dependencies : [])
        .map((d) => trimmedText(isDict(d) ? d.name : d))
        .filter((n) => n !== r.name && memberNames.has(n))
        .map((n) => `cargo:${n}`),
      base: {
        id: `cargo:${r.name}`,
        label: r.name,
        kind: "cargo-package",
        adapter_id: ctx.adapterId,
        source: "adapter",
        manifest_path: r.pkg.manifest_path,
        target_names: targetNames(r.pkg),
        root: r.root,
      },
    }));
  return { targets, projects };
};
