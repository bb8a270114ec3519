/**
 * Import paths of a Go file from its import declarations (`import "x"`, `import alias
 * "x"`, `import ( … )` blocks). Stops at the first declaration after the imports, as the
 * Go grammar allows imports only there. Never throws.
 */
export function goImports(source: string): string[] {
  const out: string[] = [];
  const text = source.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, "");
  const re = /\bimport\s*(\(([^)]*)\)|(?:[\w.]+\s+)?"([^"]+)")/g;
  for (const m of text.matchAll(re)) {
    if (m[3] !== undefined) out.push(m[3]);
    else if (m[2] !== undefined) {
      for (const s of m[2].matchAll(/"([^"]+)"/g)) out.push(s[1] as string);
    }
  }
  return [...new Set(out)];
}
