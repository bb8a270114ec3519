/**
 * Resolution of the imports the index read into workspace files: TypeScript/JavaScript
 * (relative paths with TS's extension rules, `tsconfig` `paths`, workspace packages by
 * name through `exports` / `main` / `types`, with a `dist/` → `src/` fallback for packages
 * that point at build output), Python (package-relative and absolute from every ancestor
 * folder), Go (module path from each `go.mod`), Rust (`mod` files and `crate::` paths from
 * the crate's `src/`). An import that leaves the workspace (an npm package, the standard
 * library) resolves to nothing.
 */
import { posix } from "node:path";
import type { PyImport } from "./imports/python.js";
import type { RustRefs } from "./imports/rust.js";

/** The raw imports the index keeps per file, by language. */
export type RawImports =
  | { kind: "ts"; specifiers: string[] }
  | { kind: "python"; imports: PyImport[] }
  | { kind: "go"; imports: string[] }
  | { kind: "rust"; refs: RustRefs };

/** What the resolver knows of the workspace besides the file list. */
export interface ResolverMeta {
  /** package.json by folder (`""` = root): name, exports, main, module, types. */
  packages: Map<string, Record<string, unknown>>;
  /** go.mod `module` path by folder. */
  goModules: Map<string, string>;
  /** tsconfig `paths` of the root (`tsconfig.base.json`, else `tsconfig.json`), with the base folder. */
  tsPaths: { base: string; paths: Record<string, string[]> } | null;
  /** Per Go file its dependencies from `go list -json` (`goListFileDeps`); absent: import lines. */
  goDeps?: ReadonlyMap<string, readonly string[]>;
}

const TS_EXTS = [".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
const JS_TO_TS: Record<string, string[]> = {
  ".js": [".ts", ".tsx"],
  ".jsx": [".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
};

function tsCandidates(target: string, files: ReadonlySet<string>): string | undefined {
  const t = posix.normalize(target).replace(/^\.\//, "");
  if (t.startsWith("../") || t === "..") return undefined;
  if (files.has(t)) return t;
  const ext = posix.extname(t);
  for (const alt of JS_TO_TS[ext] ?? []) {
    const c = t.slice(0, -ext.length) + alt;
    if (files.has(c)) return c;
  }
  for (const e of TS_EXTS) if (files.has(t + e)) return t + e;
  for (const e of TS_EXTS) if (files.has(`${t}/index${e}`)) return `${t}/index${e}`;
  return undefined;
}

/** A package target (`./dist/index.js`) as a workspace file, trying `src/` for `dist/`/`lib/`/`build/`. */
function packageFile(dir: string, rel: string, files: ReadonlySet<string>): string | undefined {
  const join = (r: string) => (dir === "" ? r : `${dir}/${r}`);
  const direct = tsCandidates(join(rel), files);
  if (direct !== undefined) return direct;
  const m = /^\.?\/?(dist|lib|build|out)\/(.*)$/.exec(rel);
  if (m !== null) {
    const src = (m[2] as string).replace(/\.d\.ts$/, ".ts");
    return tsCandidates(join(`src/${src}`), files);
  }
  return undefined;
}

function exportTargets(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) exportTargets(v, out);
  else if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) exportTargets(v, out);
  }
}

function resolvePackage(
  dir: string,
  pkg: Record<string, unknown>,
  sub: string,
  files: ReadonlySet<string>,
): string | undefined {
  const key = sub === "" ? "." : `./${sub}`;
  const targets: string[] = [];
  const exp = pkg.exports;
  if (typeof exp === "string" || Array.isArray(exp)) {
    if (key === ".") exportTargets(exp, targets);
  } else if (typeof exp === "object" && exp !== null) {
    const map = exp as Record<string, unknown>;
    const keyed = Object.keys(map).some((k) => k.startsWith("."));
    if (!keyed && key === ".") exportTargets(map, targets);
    else if (Object.hasOwn(map, key)) exportTargets(map[key], targets);
    else {
      for (const [k, v] of Object.entries(map)) {
        const star = k.indexOf("*");
        if (star < 0) continue;
        const pre = k.slice(0, star);
        const post = k.slice(star + 1);
        if (key.startsWith(pre) && key.endsWith(post) && key.length >= pre.length + post.length) {
          const mid = key.slice(pre.length, key.length - post.length);
          const found: string[] = [];
          exportTargets(v, found);
          targets.push(...found.map((f) => f.replaceAll("*", mid)));
        }
      }
    }
  }
  if (key === ".") {
    for (const f of ["source", "types", "typings", "module", "main"]) {
      if (typeof pkg[f] === "string") targets.push(pkg[f] as string);
    }
    targets.push("src/index", "index");
  } else targets.push(sub, `src/${sub}`);
  for (const t of targets) {
    const hit = packageFile(dir, t, files);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

function resolveTs(
  from: string,
  spec: string,
  files: ReadonlySet<string>,
  meta: ResolverMeta,
): string | undefined {
  if (spec.startsWith(".") || spec.startsWith("/")) {
    if (spec.startsWith("/")) return undefined;
    return tsCandidates(posix.join(posix.dirname(from), spec), files);
  }
  if (meta.tsPaths !== null) {
    for (const [pattern, targets] of Object.entries(meta.tsPaths.paths)) {
      const star = pattern.indexOf("*");
      let mid: string | undefined;
      if (star < 0) mid = pattern === spec ? "" : undefined;
      else {
        const pre = pattern.slice(0, star);
        const post = pattern.slice(star + 1);
        if (spec.startsWith(pre) && spec.endsWith(post))
          mid = spec.slice(pre.length, spec.length - post.length);
      }
      if (mid === undefined) continue;
      for (const t of targets) {
        const hit = tsCandidates(posix.join(meta.tsPaths.base, t.replaceAll("*", mid)), files);
        if (hit !== undefined) return hit;
      }
    }
  }
  const parts = spec.split("/");
  const nameLen = spec.startsWith("@") ? 2 : 1;
  const name = parts.slice(0, nameLen).join("/");
  const sub = parts.slice(nameLen).join("/");
  for (const [dir, pkg] of meta.packages) {
    if (pkg.name === name) return resolvePackage(dir, pkg, sub, files);
  }
  return undefined;
}

function pyModuleFile(
  base: string,
  dotted: string,
  files: ReadonlySet<string>,
): string | undefined {
  const rel = dotted
    .split(".")
    .filter((s) => s !== "")
    .join("/");
  const stem = base === "" ? rel : rel === "" ? base : `${base}/${rel}`;
  for (const c of [`${stem}.py`, `${stem}.pyi`, `${stem}/__init__.py`]) if (files.has(c)) return c;
  return undefined;
}

function resolvePython(from: string, imp: PyImport, files: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const bases: string[] = [];
  if (imp.level > 0) {
    let dir = posix.dirname(from);
    if (dir === ".") dir = "";
    for (let i = 1; i < imp.level; i++)
      dir = dir === "" ? "" : posix.dirname(dir) === "." ? "" : posix.dirname(dir);
    bases.push(dir);
  } else {
    let dir = posix.dirname(from);
    for (;;) {
      bases.push(dir === "." ? "" : dir);
      if (dir === "." || dir === "") break;
      dir = posix.dirname(dir);
    }
  }
  for (const base of bases) {
    const mod = pyModuleFile(base, imp.module, files);
    let any = false;
    for (const n of imp.names) {
      const subm = pyModuleFile(base, imp.module === "" ? n : `${imp.module}.${n}`, files);
      if (subm !== undefined) {
        out.push(subm);
        any = true;
      }
    }
    if (mod !== undefined) out.push(mod);
    if (mod !== undefined || any) break;
  }
  return out;
}

function goPackageFiles(dir: string, byDir: ReadonlyMap<string, string[]>): string[] {
  return (byDir.get(dir) ?? []).filter((f) => f.endsWith(".go") && !f.endsWith("_test.go"));
}

function resolveGo(
  imp: string,
  meta: ResolverMeta,
  byDir: ReadonlyMap<string, string[]>,
): string[] {
  for (const [dir, mod] of meta.goModules) {
    if (imp === mod || imp.startsWith(`${mod}/`)) {
      const rest = imp.slice(mod.length).replace(/^\//, "");
      const target = dir === "" ? rest : rest === "" ? dir : `${dir}/${rest}`;
      return goPackageFiles(target, byDir);
    }
  }
  return [];
}

function crateOf(from: string, files: ReadonlySet<string>): string | undefined {
  let dir = posix.dirname(from);
  for (;;) {
    const d = dir === "." ? "" : dir;
    if (files.has(d === "" ? "Cargo.toml" : `${d}/Cargo.toml`)) return d;
    if (d === "") return undefined;
    dir = posix.dirname(dir);
  }
}

function rustModuleDir(from: string): string {
  const name = posix.basename(from);
  const dir = posix.dirname(from) === "." ? "" : posix.dirname(from);
  if (name === "lib.rs" || name === "main.rs" || name === "mod.rs") return dir;
  const stem = from.slice(0, -3);
  return stem;
}

function rustModulePath(from: string, src: string): string[] {
  const rel = src === "" ? from : from.startsWith(`${src}/`) ? from.slice(src.length + 1) : from;
  const parts = rel.replace(/\.rs$/, "").split("/");
  const last = parts[parts.length - 1];
  if (last === "mod" || ((last === "lib" || last === "main") && parts.length === 1)) parts.pop();
  return parts;
}

function rustFile(src: string, segs: string[], files: ReadonlySet<string>): string | undefined {
  for (let n = segs.length; n >= 0; n--) {
    const rel = segs.slice(0, n).join("/");
    const stem = src === "" ? rel : rel === "" ? src : `${src}/${rel}`;
    const cands = n === 0 ? [`${src}/lib.rs`, `${src}/main.rs`] : [`${stem}.rs`, `${stem}/mod.rs`];
    for (const c of cands) if (files.has(c)) return c;
  }
  return undefined;
}

function resolveRust(from: string, refs: RustRefs, files: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const mdir = rustModuleDir(from);
  for (const m of refs.mods) {
    for (const c of [
      `${mdir === "" ? "" : `${mdir}/`}${m}.rs`,
      `${mdir === "" ? "" : `${mdir}/`}${m}/mod.rs`,
    ]) {
      if (files.has(c)) {
        out.push(c);
        break;
      }
    }
  }
  const crate = crateOf(from, files);
  if (crate === undefined) return out;
  const src = crate === "" ? "src" : `${crate}/src`;
  const here = rustModulePath(from, src);
  for (const segs of refs.uses) {
    let path: string[];
    if (segs[0] === "crate") path = segs.slice(1);
    else if (segs[0] === "self") path = [...here, ...segs.slice(1)];
    else {
      let base = [...here];
      let i = 0;
      while (segs[i] === "super") {
        base = base.slice(0, -1);
        i++;
      }
      path = [...base, ...segs.slice(i)];
    }
    const hit = rustFile(src, path, files);
    if (hit !== undefined && hit !== from) out.push(hit);
  }
  return out;
}

/**
 * The workspace files `from` imports, sorted and without `from` itself. `files`: every
 * indexed path; `byDir`: the same grouped by folder (Go packages; a Go file also depends
 * on the other non-test files of its package).
 */
export function resolveImports(
  from: string,
  raw: RawImports,
  files: ReadonlySet<string>,
  byDir: ReadonlyMap<string, string[]>,
  meta: ResolverMeta,
): string[] {
  const out = new Set<string>();
  if (raw.kind === "ts") {
    for (const s of raw.specifiers) {
      const hit = resolveTs(from, s, files, meta);
      if (hit !== undefined) out.add(hit);
    }
  } else if (raw.kind === "python") {
    for (const imp of raw.imports) for (const hit of resolvePython(from, imp, files)) out.add(hit);
  } else if (raw.kind === "go" && meta.goDeps?.has(from) === true) {
    // go list knows the package's files (build constraints, test files) and imports.
    for (const hit of meta.goDeps.get(from) ?? []) if (files.has(hit)) out.add(hit);
  } else if (raw.kind === "go") {
    for (const imp of raw.imports) for (const hit of resolveGo(imp, meta, byDir)) out.add(hit);
    const dir = posix.dirname(from) === "." ? "" : posix.dirname(from);
    for (const sib of goPackageFiles(dir, byDir)) out.add(sib);
  } else {
    for (const hit of resolveRust(from, raw.refs, files)) out.add(hit);
  }
  out.delete(from);
  return [...out].sort();
}
