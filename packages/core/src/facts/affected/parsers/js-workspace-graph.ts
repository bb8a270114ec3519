/**
 * `js.workspace_graph.v1` (alias `nx.project_graph.v1`): a JS workspace/project graph →
 * one target per project whose root holds a changed path (harn-verification.md §1.3.1);
 * ours: Nx's `nx graph --file` form (`{graph: {nodes, dependencies}}`) and the project
 * dependencies for dependents.
 */
import { type Dict, display, isDict, sortCodePoints, trimmedText } from "../../harn-values.js";
import { pathUnder } from "../paths.js";
import type { ProjectNode } from "../project-graph.js";
import type { AffectedTarget } from "../target.js";
import { type AffectedParser, parseJsonStdout } from "./types.js";

function targetNames(value: unknown): string[] {
  if (isDict(value)) return sortCodePoints(Object.keys(value));
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const item of value) {
    const name = trimmedText(isDict(item) ? (item.name ?? item) : item);
    if (name !== "" && !out.includes(name)) out.push(name);
  }
  return sortCodePoints(out);
}

function depNames(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((d) => trimmedText(isDict(d) ? (d.target ?? d.name ?? d.project) : d))
    .filter((n) => n !== "");
}

/** Rows of the Nx graph form, or undefined when `data` is not one. */
function nxGraphRows(data: Dict): Dict[] | undefined {
  const graph = data.graph;
  if (!isDict(graph) || !isDict(graph.nodes)) return undefined;
  const nodes = graph.nodes;
  const deps = isDict(graph.dependencies) ? graph.dependencies : {};
  return sortCodePoints(Object.keys(nodes)).map((key) => {
    const node = isDict(nodes[key]) ? (nodes[key] as Dict) : {};
    const inner = isDict(node.data) ? node.data : {};
    return {
      root: inner.root ?? node.root,
      targets: inner.targets ?? node.targets,
      dependencies: deps[key],
      name: key,
    };
  });
}

/**
 * Rows: `data.graph.nodes` (Nx graph form, ours), else `raw = data.projects ??
 * data.workspaces ?? data` — a dict gives one row per key in sorted order with `name` =
 * the key; a list is used as is. Per row: root = `root ?? sourceRoot ?? source_root ??
 * ""`; files = changed paths under root (`""`/`.` → all); name = trimmed `name ?? id ??
 * root`; target `{id: "js:<name>", label, kind: "js-project", adapter_id, source:
 * "adapter", files, root (raw), target_names (sorted), reason: "direct"}`.
 *
 * Projects (ours): every named row, depending on the rows named by `dependencies` (names
 * or `{target}`, Nx form) or `implicitDependencies`. Throws `AffectedParseError` when
 * stdout is not JSON.
 */
export const parseJsWorkspaceGraph: AffectedParser = (stdout, ctx) => {
  const data = parseJsonStdout(stdout, "js.workspace_graph.v1");
  let rows: unknown[] = [];
  const nx = isDict(data) ? nxGraphRows(data) : undefined;
  if (nx !== undefined) rows = nx;
  else {
    const raw = isDict(data) ? (data.projects ?? data.workspaces ?? data) : data;
    if (isDict(raw)) {
      rows = sortCodePoints(Object.keys(raw)).map((key) => ({
        ...(isDict(raw[key]) ? (raw[key] as Dict) : {}),
        name: key,
      }));
    } else if (Array.isArray(raw)) rows = raw;
  }
  const targets: AffectedTarget[] = [];
  const named: { row: Dict; name: string; root: string }[] = [];
  for (const r of rows) {
    const row: Dict = isDict(r) ? r : {};
    const rootRaw = row.root ?? row.sourceRoot ?? row.source_root ?? "";
    const root = rootRaw === null ? "" : display(rootRaw);
    const name = trimmedText(row.name ?? row.id ?? rootRaw);
    if (name === "") continue;
    named.push({ row, name, root });
    const files = ctx.changedPaths.filter((p) => pathUnder(root, p));
    if (files.length === 0) continue;
    targets.push({
      id: `js:${name}`,
      label: name,
      kind: "js-project",
      adapter_id: ctx.adapterId,
      source: "adapter",
      files,
      root: rootRaw,
      target_names: targetNames(row.targets ?? row.tasks ?? []),
      reason: "direct",
    });
  }
  const names = new Set(named.map((n) => n.name));
  const projects: ProjectNode[] = named.map(({ row, name, root }) => ({
    id: `js:${name}`,
    root: root === "." ? "" : root,
    owns: "under" as const,
    deps: [...depNames(row.dependencies), ...depNames(row.implicitDependencies)]
      .filter((n) => n !== name && names.has(n))
      .map((n) => `js:${n}`),
    base: {
      id: `js:${name}`,
      label: name,
      kind: "js-project",
      adapter_id: ctx.adapterId,
      source: "adapter",
      root: row.root ?? row.sourceRoot ?? row.source_root ?? "",
      target_names: targetNames(row.targets ?? row.tasks ?? []),
    },
  }));
  return { targets, projects };
};
