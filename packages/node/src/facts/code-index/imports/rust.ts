/**
 * Module references of a Rust file within its crate: `mod name;` declarations (a file
 * module, not an inline `mod name { … }`) and `use crate::…` / `use super::…` /
 * `use self::…` paths (also inside `pub use` and braces: only the leading path is kept).
 */

/** `mods`: declared file modules; `uses`: paths as segments, first `crate`, `super` or `self`. */
export interface RustRefs {
  mods: string[];
  uses: string[][];
}

/** Reads `source`. Never throws. */
export function rustRefs(source: string): RustRefs {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, "");
  const mods: string[] = [];
  for (const m of text.matchAll(
    /(?:^|[;}\s])(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][\w]*)\s*;/g,
  )) {
    mods.push(m[1] as string);
  }
  const uses: string[][] = [];
  for (const m of text.matchAll(/\buse\s+((?:crate|super|self)(?:\s*::\s*[A-Za-z_][\w]*)*)/g)) {
    uses.push((m[1] as string).split("::").map((s) => s.trim()));
  }
  for (const m of text.matchAll(/\b(crate(?:::[A-Za-z_][\w]*)+)/g)) {
    uses.push((m[1] as string).split("::"));
  }
  return { mods: [...new Set(mods)], uses };
}
