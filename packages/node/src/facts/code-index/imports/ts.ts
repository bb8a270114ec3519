/**
 * Import specifiers of a TypeScript/JavaScript file, read with oxc-parser (a Rust parser
 * with TypeScript syntax, napi binding): static imports (type-only included: a type change
 * breaks the importer's type check), re-exports, dynamic `import("literal")`, and
 * `require("literal")` calls (found by a scan, since oxc's module record has none).
 *
 * Why oxc-parser: it reads TS/TSX, loads in ~20–60 ms (the TypeScript compiler ~650–830 ms
 * on this machine) and returns the module record without a JS-side AST walk. Measured
 * figures are in the benchmark note (packages/node/bench/code-index.bench.ts).
 */
type OxcParse = typeof import("oxc-parser").parseSync;

let oxc: Promise<OxcParse> | undefined;

/**
 * Loads oxc-parser on first use (its native binding costs ~20–60 ms, which commands that
 * never read imports must not pay). Rejects when the binding cannot be loaded.
 */
export function loadTsParser(): Promise<OxcParse> {
  oxc ??= import("oxc-parser").then((m) => m.parseSync);
  return oxc;
}

/** What one file imports: literal specifiers, and whether a dynamic import was not a literal. */
export interface TsImports {
  specifiers: string[];
  /** A dynamic `import(expr)` whose argument is not a string literal: its target is unknown. */
  dynamic_unresolved: boolean;
  /** The parser's first error, when the file does not parse (what it read is still used). */
  parse_error?: string;
}

const REQUIRE = /\brequire\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g;
const LITERAL = /^\s*(['"`])([^'"`$\n]*)\1\s*$/;

/**
 * Reads `source` (file name `path`, whose extension picks TS/TSX/JS/JSX) with `parseSync`
 * from {@link loadTsParser}. Never throws.
 */
export function tsImports(parseSync: OxcParse, path: string, source: string): TsImports {
  const out = new Set<string>();
  let dynamicUnresolved = false;
  let parseError: string | undefined;
  try {
    const result = parseSync(path, source);
    const mod = result.module;
    for (const imp of mod.staticImports) out.add(imp.moduleRequest.value);
    for (const exp of mod.staticExports) {
      for (const e of exp.entries) if (e.moduleRequest) out.add(e.moduleRequest.value);
    }
    for (const d of mod.dynamicImports) {
      const text = source.slice(d.moduleRequest.start, d.moduleRequest.end);
      const m = LITERAL.exec(text);
      if (m?.[2] !== undefined) out.add(m[2]);
      else dynamicUnresolved = true;
    }
    const first = result.errors[0];
    if (first !== undefined) parseError = first.message;
  } catch (error) {
    parseError = (error as Error).message;
  }
  if (source.includes("require")) {
    for (const m of source.matchAll(REQUIRE)) out.add(m[2] as string);
  }
  const r: TsImports = { specifiers: [...out], dynamic_unresolved: dynamicUnresolved };
  if (parseError !== undefined) r.parse_error = parseError;
  return r;
}
