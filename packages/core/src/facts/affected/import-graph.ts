/**
 * What the code-index fallback needs of an import graph (harn-verification.md §1.3.2,
 * §6.1 `deps_get(importers)`), as a narrow view, and a plain-data form of it.
 */
import { isDict } from "../harn-values.js";

/**
 * `importers(path)`: the files that import `path` directly (workspace-relative, sorted),
 * or undefined when the index does not know the path. `isSource(path)`: whether the index
 * reads imports from files like `path` (TypeScript/JavaScript, Python, Go, Rust).
 */
export interface ImportGraphView {
  importers(path: string): readonly string[] | undefined;
  isSource(path: string): boolean;
}

/** Plain-data import graph: `importers` per file, and the files that are sources. */
export interface ImportGraphData {
  importers: Record<string, string[]>;
  sources: string[];
}

/**
 * A view over {@link ImportGraphData} (the bridge's and the test matrix's form). A file
 * is known when it is a source or has an `importers` entry. Bad shapes read as empty.
 */
export function importGraphFromData(data: unknown): ImportGraphView {
  const d = isDict(data) ? data : {};
  const importers = isDict(d.importers) ? d.importers : {};
  const sources = new Set(Array.isArray(d.sources) ? d.sources.map(String) : []);
  return {
    importers(path) {
      const list = Object.hasOwn(importers, path) ? importers[path] : undefined;
      if (Array.isArray(list)) return [...new Set(list.map(String))].sort();
      return sources.has(path) ? [] : undefined;
    },
    isSource: (path) => sources.has(path),
  };
}
