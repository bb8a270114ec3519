/**
 * Import statements of a Python file: `import a.b [as c], d` and `from [.]*mod import
 * names` (parenthesised lists over several lines included). A line scan, not a parser:
 * imports inside strings or `if TYPE_CHECKING:` blocks count too (conservative).
 */

/** One import: the dotted module (`""` for `from . import x`), its relative level, the names. */
export interface PyImport {
  module: string;
  level: number;
  names: string[];
}

/** Reads `source`. Never throws. */
export function pythonImports(source: string): PyImport[] {
  const out: PyImport[] = [];
  const text = source.replace(/\\\r?\n/g, " ");
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] as string).replace(/#.*$/, "").trim();
    const from = /^from\s+(\.*)([\w.]*)\s+import\s+(.*)$/.exec(line);
    if (from !== null) {
      let names = from[3] as string;
      if (names.startsWith("(") && !names.includes(")")) {
        while (i + 1 < lines.length && !names.includes(")")) {
          i++;
          names += ` ${(lines[i] as string).replace(/#.*$/, "")}`;
        }
      }
      const list = names
        .replace(/[()]/g, "")
        .split(",")
        .map(
          (n) =>
            n
              .trim()
              .split(/\s+as\s+/)[0]
              ?.trim() ?? "",
        )
        .filter((n) => n !== "" && n !== "*");
      out.push({ module: from[2] as string, level: (from[1] as string).length, names: list });
      continue;
    }
    const imp = /^import\s+(.+)$/.exec(line);
    if (imp !== null) {
      line = imp[1] as string;
      for (const part of line.split(",")) {
        const mod =
          part
            .trim()
            .split(/\s+as\s+/)[0]
            ?.trim() ?? "";
        if (/^[\w.]+$/.test(mod)) out.push({ module: mod, level: 0, names: [] });
      }
    }
  }
  return out;
}
