/**
 * `go.list.v1` (ours): `go list -json ./...` output (a stream of JSON objects, or one JSON
 * list) → one target per Go package that holds a changed file, with its test files, and
 * the package import graph (including test imports) for dependents.
 */

import { TurngateValidationError } from "../../../errors.js";
import { MAX_JSON_DEPTH } from "../../../ledger/json.js";
import { type Dict, isDict, trimmedText } from "../../harn-values.js";
import { cleanPath, isAbsoluteText, relativeToRoot } from "../paths.js";
import { directProjectTargets, type ProjectNode } from "../project-graph.js";
import { AffectedParseError, type AffectedParser } from "./types.js";

/**
 * Splits concatenated JSON values (`{…}\n{…}`, what `go list -json` prints) into parsed
 * values. Throws `TurngateValidationError` (path `text`) when `text` is not a string, and
 * `AffectedParseError` naming the offset of the first text that is not JSON or of a value
 * nested deeper than `MAX_JSON_DEPTH` (512) levels (issue #11: one depth limit where input
 * enters).
 */
export function parseJsonStream(text: string): unknown[] {
  if (typeof text !== "string") {
    throw new TurngateValidationError("JSON stream", [
      { path: "text", message: `expected a string, got ${text === null ? "null" : typeof text}` },
    ]);
  }
  const out: unknown[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    const open = text[i];
    if (open !== "{" && open !== "[") {
      throw new AffectedParseError(`go.list.v1: stdout is not a JSON stream (offset ${i})`);
    }
    let depth = 0;
    let inString = false;
    let j = i;
    for (; j < n; j++) {
      const ch = text[j];
      if (inString) {
        if (ch === "\\") j++;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === "{" || ch === "[") {
        if (++depth > MAX_JSON_DEPTH) {
          throw new AffectedParseError(
            `go.list.v1: the JSON value at offset ${i} nests deeper than ${MAX_JSON_DEPTH} levels`,
          );
        }
      } else if (ch === "}" || ch === "]") {
        depth--;
        if (depth === 0) break;
      }
    }
    if (depth !== 0 || j >= n) {
      throw new AffectedParseError(`go.list.v1: stdout ends inside a JSON value (offset ${i})`);
    }
    try {
      out.push(JSON.parse(text.slice(i, j + 1)));
    } catch (error) {
      throw new AffectedParseError(
        `go.list.v1: bad JSON at offset ${i} (${(error as Error).message})`,
      );
    }
    i = j + 1;
  }
  return out;
}

const list = (v: unknown): string[] =>
  Array.isArray(v) ? v.map((x) => trimmedText(x)).filter((x) => x !== "") : [];

/**
 * Packages: every object with an `ImportPath` that is not `Standard` and whose `Dir`
 * lies in the workspace (made relative to `ctx.root`; a `Dir` that stays absolute is
 * outside and skipped). A package owns the files directly in its folder and under its
 * `testdata/` (Go packages do not nest). Target `{id: "go:<ImportPath>", label:
 * ImportPath, kind: "go-package", adapter_id, source: "adapter", files, root, name,
 * test_files: TestGoFiles + XTestGoFiles as workspace paths, target_names: the test
 * files' names, reason: "direct"}`. It depends on the listed packages in its `Imports`,
 * `TestImports` and `XTestImports`. Throws `AffectedParseError` for text that is not a
 * JSON stream; an empty stdout gives no targets.
 */
export const parseGoList: AffectedParser = (stdout, ctx) => {
  const values = parseJsonStream(stdout ?? "");
  const flat = values.length === 1 && Array.isArray(values[0]) ? (values[0] as unknown[]) : values;
  const pkgs: { pkg: Dict; path: string; root: string }[] = [];
  for (const v of flat) {
    if (!isDict(v) || v.Standard === true) continue;
    const path = trimmedText(v.ImportPath ?? "");
    if (path === "") continue;
    const root = relativeToRoot(cleanPath(v.Dir ?? ""), ctx.root);
    if (isAbsoluteText(root)) continue;
    pkgs.push({ pkg: v, path, root: root === "." ? "" : root });
  }
  const known = new Set(pkgs.map((p) => p.path));
  const join = (root: string, f: string) => (root === "" ? f : `${root}/${f}`);
  const projects: ProjectNode[] = pkgs.map(({ pkg, path, root }) => {
    const tests = [...list(pkg.TestGoFiles), ...list(pkg.XTestGoFiles)];
    const deps: string[] = [];
    for (const imp of [...list(pkg.Imports), ...list(pkg.TestImports), ...list(pkg.XTestImports)]) {
      if (imp !== path && known.has(imp) && !deps.includes(`go:${imp}`)) deps.push(`go:${imp}`);
    }
    return {
      id: `go:${path}`,
      root,
      owns: "dir" as const,
      deps,
      base: {
        id: `go:${path}`,
        label: path,
        kind: "go-package",
        adapter_id: ctx.adapterId,
        source: "adapter",
        root,
        name: trimmedText(pkg.Name ?? ""),
        test_files: tests.map((f) => join(root, f)),
        target_names: tests,
      },
    };
  });
  return { targets: directProjectTargets(projects, ctx.changedPaths), projects };
};
