/**
 * The code index (harn-verification.md §1.1, §1.3.2, §6.1, §6.2; docs/design.md §4): a file
 * table (path, size, mtime ms, FNV-1a 64 decimal and SHA-256 hex of the bytes, language),
 * an import graph (imports and importers by file, ids ≥ 1) and a version log (`seq` grows
 * by one per recorded change; `changesSince(seq)`). Built once from a workspace snapshot,
 * then kept current from the workspace observer's delta: only the paths the delta names
 * (and the ones an earlier delta named, which may have gone back to their baseline bytes)
 * are read again. Persisted as one JSON file in the state folder.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Fnv1a64, type ImportGraphView, TurngateError } from "@turngate/core";
import { writeFileAtomic } from "../../fs/atomic.js";
import type { WorkspaceDelta } from "../../workspace/diff/diff.js";
import type { WorkspaceSnapshot } from "../../workspace/snapshot.js";
import {
  type GoImportsState,
  type GoListOptions,
  goListFileDeps,
  goListWorkspace,
} from "./go-list.js";
import { goImports } from "./imports/go.js";
import { pythonImports } from "./imports/python.js";
import { rustRefs } from "./imports/rust.js";
import { loadTsParser, tsImports } from "./imports/ts.js";
import { type IndexLanguage, languageOf } from "./languages.js";
import { type RawImports, type ResolverMeta, resolveImports } from "./resolve.js";

/** Schema id of the persisted index. */
export const CODE_INDEX_SCHEMA = "turngate.code_index.v1";
/** File name of the index in the state folder. */
export const CODE_INDEX_FILE = "code-index.json";
/** Version-log entries kept (older ones are dropped; `changesSince` then says so). */
export const CODE_INDEX_LOG_LIMIT = 10_000;
/** Files bigger than this are hashed but not parsed for imports (bytes). */
export const CODE_INDEX_MAX_PARSE_BYTES = 2 * 1024 * 1024;

/** One file of the table. */
export interface IndexedFile {
  id: number;
  path: string;
  size: number;
  mtime_ms: number;
  /** FNV-1a 64 of the bytes, unsigned decimal (§3.1). */
  hash: string;
  /** SHA-256 of the bytes, lowercase hex (the observer's content digest). */
  sha256: string;
  language: IndexLanguage | null;
  /** Resolved workspace files this one imports, sorted. */
  imports: string[];
  /** Import specifiers that resolve to no workspace file (npm packages, the standard library…). */
  unresolved?: string[];
  /** A dynamic import whose target is not a literal: importers of it are unknown. */
  dynamic_unresolved?: boolean;
  parse_error?: string;
  last_edit_seq: number;
  raw?: RawImports;
  /** Parsed manifest fields (package.json, go.mod, tsconfig) the resolver reads. */
  manifest?: Record<string, unknown>;
}

/** One version-log entry. `hash` is the new FNV-1a 64, `null` for a deletion. */
export interface CodeIndexChange {
  seq: number;
  path: string;
  change: "added" | "modified" | "deleted";
  hash: string | null;
}

/** Result of `changesSince`: `complete` false when entries after `seq` were dropped from the log. */
export interface CodeIndexChanges {
  current_seq: number;
  since: number;
  complete: boolean;
  changes: CodeIndexChange[];
}

/** What an update did: paths read, changes recorded, ms spent. */
export interface CodeIndexUpdate {
  read: number;
  recorded: number;
  duration_ms: number;
}

/**
 * Options of the index: `go` — how Go imports are read. By default `go list -json ./...`
 * runs (frozen, offline, bounded: see `goListWorkspace`) when the workspace has a `go.mod`
 * or `go.work` and `go` is on `go.env`'s PATH; `enabled: false` reads import lines only.
 */
export interface CodeIndexOptions {
  go?: GoListOptions & { enabled?: boolean };
}

/**
 * Which reader filled the Go part of the import graph (the index facts): `go_list`
 * (`packages` Go packages from `go list -json`, in `duration_ms`), `import_lines` (with
 * the `reason` go list was not used) or `none` (no Go module). `changed_workspace`: module
 * files a `go list` run changed (reported; it runs with -mod=readonly).
 */
export interface GoImportsFact {
  source: "go_list" | "import_lines" | "none";
  reason?: string;
  modules: string[];
  packages: number;
  duration_ms?: number;
  changed_workspace?: string[];
  /** go list would have changed go.mod/go.sum and did not (frozen); the message. */
  frozen?: string;
}

const GO_FILES = /(^|\/)(go\.mod|go\.sum|go\.work|go\.work\.sum)$|\.go$/;

/** The index file could not be read, or belongs to another root. `code: "code_index_error"`. */
export class CodeIndexError extends TurngateError {
  constructor(message: string) {
    super("code_index_error", message);
    this.name = "CodeIndexError";
  }
}

const MANIFESTS = /(^|\/)(package\.json|go\.mod)$|^tsconfig(\.base)?\.json$/;

function stripJsonComments(text: string): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      i += 2;
      while (i < text.length && !(text[i] === "*" && text[i + 1] === "/")) i++;
      i++;
    } else out += c;
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

function readManifest(path: string, text: string): Record<string, unknown> | undefined {
  try {
    if (path.endsWith("go.mod")) {
      const m = /^module\s+("?)([^\s"]+)\1/m.exec(text);
      return m !== null ? { module: m[2] } : undefined;
    }
    const data = JSON.parse(
      path.endsWith("package.json") ? text : stripJsonComments(text),
    ) as unknown;
    if (typeof data !== "object" || data === null) return undefined;
    const d = data as Record<string, unknown>;
    if (path.endsWith("package.json")) {
      const keep: Record<string, unknown> = {};
      for (const k of ["name", "exports", "main", "module", "types", "typings", "source"]) {
        if (d[k] !== undefined) keep[k] = d[k];
      }
      return keep;
    }
    const co = (d.compilerOptions ?? {}) as Record<string, unknown>;
    return { baseUrl: co.baseUrl, paths: co.paths };
  } catch {
    return undefined;
  }
}

async function rawImports(
  language: IndexLanguage,
  path: string,
  text: string,
): Promise<{ raw: RawImports; dynamic?: boolean; error?: string }> {
  if (language === "typescript" || language === "javascript") {
    let parse: Awaited<ReturnType<typeof loadTsParser>>;
    try {
      parse = await loadTsParser();
    } catch (error) {
      return {
        raw: { kind: "ts", specifiers: [] },
        error: `oxc-parser: ${(error as Error).message}`,
      };
    }
    const r = tsImports(parse, path, text);
    return {
      raw: { kind: "ts", specifiers: r.specifiers },
      ...(r.dynamic_unresolved ? { dynamic: true } : {}),
      ...(r.parse_error !== undefined ? { error: r.parse_error } : {}),
    };
  }
  if (language === "python") return { raw: { kind: "python", imports: pythonImports(text) } };
  if (language === "go") return { raw: { kind: "go", imports: goImports(text) } };
  return { raw: { kind: "rust", refs: rustRefs(text) } };
}

const dirOf = (p: string) => {
  const i = p.lastIndexOf("/");
  return i < 0 ? "" : p.slice(0, i);
};

/**
 * The index. Create with {@link CodeIndex.build} (cold, from a snapshot) or
 * {@link CodeIndex.load} (a persisted one); keep current with {@link CodeIndex.update}
 * (an observer delta) or {@link CodeIndex.refresh} (a later full snapshot, compared by
 * content digest). Implements core's `ImportGraphView` for the affected-targets fallback.
 */
export class CodeIndex implements ImportGraphView {
  readonly root: string;
  #files = new Map<string, IndexedFile>();
  #byId = new Map<number, string>();
  #importers = new Map<string, string[]>();
  /** Importers of deleted files at the time they went, so the fallback still finds them. */
  #gone = new Map<string, string[]>();
  #log: CodeIndexChange[] = [];
  #seq = 0;
  #nextId = 1;
  #dirty = new Set<string>();
  #goOptions: CodeIndexOptions["go"];
  #go: GoImportsState = { source: "none" };
  #goDeps: Map<string, string[]> | undefined;
  /** File set and folders of the last resolution (dropped whenever the set changes). */
  #setsCache:
    | { size: number; value: { files: Set<string>; byDir: Map<string, string[]> } }
    | undefined;

  private constructor(root: string, options: CodeIndexOptions = {}) {
    this.root = root;
    this.#goOptions = options.go;
  }

  /** Which reader filled the Go part of the import graph, and why (see {@link GoImportsFact}). */
  get goImports(): GoImportsFact {
    const g = this.#go;
    if (g.source === "none") return { source: "none", modules: [], packages: 0 };
    const extra =
      g.changed_workspace !== undefined ? { changed_workspace: g.changed_workspace } : {};
    if (g.source === "go_list") {
      return {
        source: "go_list",
        modules: g.modules,
        packages: g.packages.length,
        duration_ms: g.duration_ms,
        ...extra,
        ...(g.frozen !== undefined ? { frozen: g.frozen } : {}),
      };
    }
    return { source: "import_lines", reason: g.reason, modules: g.modules, packages: 0, ...extra };
  }

  /** Runs `go list` again (or notes why not); true when the Go packages differ from before. */
  async #refreshGo(): Promise<boolean> {
    const moduleDirs: string[] = [];
    for (const p of this.#files.keys())
      if (p === "go.mod" || p.endsWith("/go.mod")) moduleDirs.push(dirOf(p));
    const goWork = this.#files.has("go.work");
    let next: GoImportsState;
    if (moduleDirs.length === 0 && !goWork) next = { source: "none" };
    else if (this.#goOptions?.enabled === false) {
      next = {
        source: "import_lines",
        reason: "go list disabled by the index options",
        modules: goWork ? [""] : moduleDirs.sort(),
      };
    } else next = await goListWorkspace(this.root, moduleDirs, goWork, this.#goOptions ?? {});
    const before = JSON.stringify(
      this.#go.source === "go_list" ? this.#go.packages : this.#go.source,
    );
    const after = JSON.stringify(next.source === "go_list" ? next.packages : next.source);
    this.#go = next;
    this.#goDeps = next.source === "go_list" ? goListFileDeps(next.packages) : undefined;
    return before !== after;
  }

  /** The version-log `current_seq`: 0 for a fresh index, +1 per recorded change. */
  get seq(): number {
    return this.#seq;
  }

  /** Number of indexed files. */
  get size(): number {
    return this.#files.size;
  }

  /**
   * Builds the index of `snapshot` (a `WorkspaceObserver` snapshot of `root`): every
   * regular file of the source scope is read once (FNV-1a 64; the SHA-256 is the
   * snapshot's), source files are parsed for imports, imports are resolved. `seq` starts
   * at 0 (the build is not a change). Files that vanish or cannot be read meanwhile are
   * left out. Resolves to the index; never rejects for one unreadable file.
   */
  static async build(
    root: string,
    snapshot: WorkspaceSnapshot,
    options: { batch?: number } & CodeIndexOptions = {},
  ): Promise<CodeIndex> {
    const index = new CodeIndex(root, options);
    const paths: string[] = [];
    snapshot.entries.forEach((e, p) => {
      if (e.kind === "file") paths.push(p);
    });
    paths.sort();
    for (let i = 0; i < paths.length; i++) {
      const p = paths[i] as string;
      const rec = await index.#read(p, snapshot.entries.get(p)?.content_digest);
      if (rec !== null) index.#put(rec);
      // Let other work (a bridge's other requests, timers) run between batches.
      if (i % (options.batch ?? 512) === 511) await new Promise((r) => setImmediate(r));
    }
    await index.#refreshGo();
    index.#resolveAll();
    return index;
  }

  /**
   * Loads the index persisted at `file` for `root`. Rejects with {@link CodeIndexError}
   * when the file is not a `turngate.code_index.v1` of this root (the caller rebuilds).
   */
  static async load(
    root: string,
    file: string,
    options: CodeIndexOptions = {},
  ): Promise<CodeIndex> {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new CodeIndexError(`cannot read the code index ${file}: ${(error as Error).message}`);
    }
    if (data?.schema !== CODE_INDEX_SCHEMA || data.root !== root || !Array.isArray(data.files)) {
      throw new CodeIndexError(`${file} is not a ${CODE_INDEX_SCHEMA} index of ${root}`);
    }
    const index = new CodeIndex(root, options);
    for (const f of data.files as IndexedFile[]) {
      if (typeof f?.path !== "string" || typeof f.id !== "number") {
        throw new CodeIndexError(`${file}: a file entry has no path or id`);
      }
      index.#files.set(f.path, f);
      index.#byId.set(f.id, f.path);
    }
    index.#seq = Number(data.current_seq) || 0;
    index.#nextId = Number(data.next_id) || index.#files.size + 1;
    index.#log = Array.isArray(data.log) ? (data.log as CodeIndexChange[]) : [];
    index.#dirty = new Set(Array.isArray(data.dirty) ? (data.dirty as string[]) : []);
    index.#gone = new Map(Object.entries((data.gone ?? {}) as Record<string, string[]>));
    const go = data.go_imports as GoImportsState | undefined;
    if (
      go !== undefined &&
      typeof go === "object" &&
      go !== null &&
      typeof go.source === "string"
    ) {
      index.#go = go;
      if (go.source === "go_list" && Array.isArray(go.packages)) {
        index.#goDeps = goListFileDeps(go.packages);
      }
    }
    index.#rebuildImporters();
    return index;
  }

  /**
   * Writes the index to `file` atomically (temporary file + rename), as compact JSON: at
   * 20,000 files the indented form was 6.4 MB, written and parsed again on every turn that
   * changed a source file (issue 33).
   */
  async save(file: string): Promise<void> {
    await writeFileAtomic(
      file,
      `${JSON.stringify({
        schema: CODE_INDEX_SCHEMA,
        root: this.root,
        current_seq: this.#seq,
        next_id: this.#nextId,
        log: this.#log,
        dirty: [...this.#dirty].sort(),
        gone: Object.fromEntries(this.#gone),
        go_imports: this.#go,
        files: [...this.#files.values()].sort((a, b) => a.id - b.id),
      })}\n`,
    );
  }

  /**
   * Applies an observer delta taken against the baseline the index was built at: each
   * path the delta names, and each path an earlier delta named that this one no longer
   * does (back to its baseline bytes), is compared by SHA-256 with the table and read
   * again only when it differs. Each difference is one version-log entry. Paths of
   * `scope` other than `source` are ignored. Resolves to what was done.
   */
  async update(delta: WorkspaceDelta): Promise<CodeIndexUpdate> {
    const started = performance.now();
    const named = new Map<string, string | null>();
    for (const c of delta.changes) {
      if (c.scope !== "source") continue;
      named.set(c.path, c.change === "deleted" ? null : c.content_digest);
    }
    const paths = new Set([...named.keys(), ...this.#dirty]);
    const result = await this.#apply(paths, (p) =>
      named.has(p) ? (named.get(p) ?? null) : undefined,
    );
    this.#dirty = new Set(named.keys());
    return { ...result, duration_ms: performance.now() - started };
  }

  /**
   * Brings the index to a full `snapshot` of the workspace, comparing each path's SHA-256
   * with the table (files the snapshot lacks are deletions). Use when no baseline delta
   * is at hand (the CLI between runs).
   */
  async refresh(snapshot: WorkspaceSnapshot): Promise<CodeIndexUpdate> {
    const started = performance.now();
    const paths = new Set<string>(this.#files.keys());
    snapshot.entries.forEach((e, p) => {
      if (e.kind === "file") paths.add(p);
    });
    const result = await this.#apply(paths, (p) => {
      const e = snapshot.entries.get(p);
      return e === undefined || e.kind !== "file" ? null : e.content_digest;
    });
    this.#dirty.clear();
    return { ...result, duration_ms: performance.now() - started };
  }

  /** `digest(p)`: the new SHA-256 (`null` = gone, `undefined` = unknown: read the file). */
  async #apply(
    paths: Set<string>,
    digest: (p: string) => string | null | undefined,
  ): Promise<{ read: number; recorded: number }> {
    let read = 0;
    let recorded = 0;
    let membership = false;
    let goTouched = false;
    const changed: string[] = [];
    const previousImports = new Map<string, string[]>();
    for (const p of [...paths].sort()) {
      const known = this.#files.get(p);
      const d = digest(p);
      if (d !== undefined && d !== null && known !== undefined && known.sha256 === d) continue;
      let rec: IndexedFile | null = null;
      if (d !== null) {
        read++;
        rec = await this.#read(p, d ?? undefined);
      }
      if (rec === null) {
        if (known === undefined) continue;
        this.#gone.set(p, this.#importers.get(p) ?? []);
        this.#files.delete(p);
        this.#byId.delete(known.id);
        this.#record(p, "deleted", null);
        if (GO_FILES.test(p)) goTouched = true;
        membership = true;
        recorded++;
        continue;
      }
      if (known !== undefined && known.sha256 === rec.sha256) {
        known.size = rec.size;
        known.mtime_ms = rec.mtime_ms;
        continue;
      }
      if (known !== undefined) {
        rec.id = known.id;
        previousImports.set(p, known.imports);
      } else membership = true;
      this.#put(rec);
      this.#gone.delete(p);
      rec.last_edit_seq = this.#record(p, known === undefined ? "added" : "modified", rec.hash);
      changed.push(p);
      if (GO_FILES.test(p)) goTouched = true;
      recorded++;
    }
    // A Go file or module file changed: go list again (a package's imports are shared by
    // its files, so a changed go list result re-resolves everything).
    const goChanged = goTouched && (await this.#refreshGo());
    if (membership || goChanged || changed.some((p) => MANIFESTS.test(p))) this.#resolveAll();
    else if (changed.length > 0) {
      // Same file set, no manifest changed: only the changed files' edges move.
      const meta = this.#meta();
      const { files, byDir } = this.#sets();
      for (const p of changed) {
        const before = this.#files.get(p)?.imports ?? [];
        const prior = previousImports.get(p) ?? before;
        this.#resolveOne(p, files, byDir, meta);
        this.#moveEdges(p, prior, this.#files.get(p)?.imports ?? []);
      }
    }
    return { read, recorded };
  }

  #record(path: string, change: CodeIndexChange["change"], hash: string | null): number {
    const seq = ++this.#seq;
    this.#log.push({ seq, path, change, hash });
    if (this.#log.length > CODE_INDEX_LOG_LIMIT)
      this.#log.splice(0, this.#log.length - CODE_INDEX_LOG_LIMIT);
    return seq;
  }

  async #read(path: string, sha256: string | undefined): Promise<IndexedFile | null> {
    // Synchronous reads: thousands of small files are read several times faster than
    // through the thread pool's open/stat/read/close round trips; the build yields to the
    // event loop between batches (see build).
    let bytes: Buffer;
    let size: number;
    let mtime: number;
    let fd: number | undefined;
    try {
      fd = openSync(
        join(this.root, path),
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
      const st = fstatSync(fd);
      if (!st.isFile()) return null;
      bytes = readFileSync(fd);
      size = bytes.length;
      mtime = Math.trunc(st.mtimeMs);
    } catch {
      return null;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    const hash = new Fnv1a64().update(bytes).digest();
    const sha = sha256 ?? createHash("sha256").update(bytes).digest("hex");
    const language = languageOf(path);
    const rec: IndexedFile = {
      id: 0,
      path,
      size,
      mtime_ms: mtime,
      hash,
      sha256: sha,
      language,
      imports: [],
      last_edit_seq: 0,
    };
    if (language !== null && size <= CODE_INDEX_MAX_PARSE_BYTES) {
      const r = await rawImports(language, path, bytes.toString("utf8"));
      rec.raw = r.raw;
      if (r.dynamic === true) rec.dynamic_unresolved = true;
      if (r.error !== undefined) rec.parse_error = r.error;
    }
    if (MANIFESTS.test(path)) {
      const m = readManifest(path, bytes.toString("utf8"));
      if (m !== undefined) rec.manifest = m;
    }
    return rec;
  }

  #put(rec: IndexedFile): void {
    if (rec.id === 0) rec.id = this.#nextId++;
    this.#files.set(rec.path, rec);
    this.#byId.set(rec.id, rec.path);
  }

  #meta(): ResolverMeta {
    const packages = new Map<string, Record<string, unknown>>();
    const goModules = new Map<string, string>();
    let tsPaths: ResolverMeta["tsPaths"] = null;
    for (const f of this.#files.values()) {
      if (f.manifest === undefined) continue;
      if (f.path.endsWith("package.json") && typeof f.manifest.name === "string")
        packages.set(dirOf(f.path), f.manifest);
      else if (f.path.endsWith("go.mod") && typeof f.manifest.module === "string")
        goModules.set(dirOf(f.path), f.manifest.module);
    }
    for (const name of ["tsconfig.base.json", "tsconfig.json"]) {
      const m = this.#files.get(name)?.manifest;
      if (m !== undefined && typeof m.paths === "object" && m.paths !== null) {
        tsPaths = {
          base: typeof m.baseUrl === "string" ? m.baseUrl.replace(/^\.\/?/, "") : "",
          paths: m.paths as Record<string, string[]>,
        };
        break;
      }
    }
    // Longest module path first, so nested modules win.
    const sortedGo = new Map([...goModules].sort((a, b) => b[1].length - a[1].length));
    return {
      packages,
      goModules: sortedGo,
      tsPaths,
      ...(this.#goDeps !== undefined ? { goDeps: this.#goDeps } : {}),
    };
  }

  #sets(): { files: Set<string>; byDir: Map<string, string[]> } {
    if (this.#setsCache !== undefined && this.#setsCache.size === this.#files.size) {
      return this.#setsCache.value;
    }
    const files = new Set(this.#files.keys());
    const byDir = new Map<string, string[]>();
    for (const p of files) {
      const d = dirOf(p);
      const list = byDir.get(d);
      if (list === undefined) byDir.set(d, [p]);
      else list.push(p);
    }
    this.#setsCache = { size: files.size, value: { files, byDir } };
    return { files, byDir };
  }

  #resolveOne(
    p: string,
    files: Set<string>,
    byDir: Map<string, string[]>,
    meta: ResolverMeta,
  ): void {
    const f = this.#files.get(p);
    if (f?.raw === undefined) return;
    f.imports = resolveImports(p, f.raw, files, byDir, meta);
    if (f.raw.kind === "ts") {
      const unresolved = f.raw.specifiers.filter(
        (s) => !s.startsWith(".") || f.imports.length === 0,
      );
      if (unresolved.length > 0 && f.imports.length < f.raw.specifiers.length)
        f.unresolved = unresolved;
      else delete f.unresolved;
    }
  }

  #resolveAll(): void {
    this.#setsCache = undefined;
    const meta = this.#meta();
    const { files, byDir } = this.#sets();
    for (const p of this.#files.keys()) this.#resolveOne(p, files, byDir, meta);
    this.#rebuildImporters();
  }

  /** Moves `from`'s importer entries from its `before` imports to its `after` ones (sorted lists). */
  #moveEdges(from: string, before: readonly string[], after: readonly string[]): void {
    const old = new Set(before);
    const now = new Set(after);
    for (const t of old) {
      if (now.has(t)) continue;
      const list = this.#importers.get(t);
      const i = list?.indexOf(from) ?? -1;
      if (list !== undefined && i >= 0) list.splice(i, 1);
    }
    for (const t of now) {
      if (old.has(t)) continue;
      const list = this.#importers.get(t);
      if (list === undefined) this.#importers.set(t, [from]);
      else {
        let lo = 0;
        let hi = list.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if ((list[mid] as string) < from) lo = mid + 1;
          else hi = mid;
        }
        list.splice(lo, 0, from);
      }
    }
  }

  #rebuildImporters(): void {
    const importers = new Map<string, string[]>();
    for (const f of this.#files.values()) {
      for (const t of f.imports) {
        const list = importers.get(t);
        if (list === undefined) importers.set(t, [f.path]);
        else list.push(f.path);
      }
    }
    for (const list of importers.values()) list.sort();
    this.#importers = importers;
  }

  /** The table entry of a workspace-relative path, or undefined. */
  file(path: string): IndexedFile | undefined {
    return this.#files.get(path);
  }

  /** Files that import `path` directly, sorted; a deleted file's last importers; undefined when unknown. */
  importers(path: string): readonly string[] | undefined {
    const list = this.#importers.get(path);
    if (list !== undefined) return list;
    if (this.#files.has(path)) return [];
    return this.#gone.get(path);
  }

  /** Files `path` imports (resolved), or undefined when unknown. */
  imports(path: string): readonly string[] | undefined {
    return this.#files.get(path)?.imports;
  }

  /** Is `path` a file the index reads imports from (by extension)? */
  isSource(path: string): boolean {
    return languageOf(path) !== null;
  }

  /** Harn `path_to_id` (§6.1): the file id (≥ 1), or null. */
  pathToId(path: string): number | null {
    return this.#files.get(path)?.id ?? null;
  }

  /** Harn `id_to_path` (§6.1), or null. */
  idToPath(id: number): string | null {
    return this.#byId.get(id) ?? null;
  }

  /** Harn `deps_get({file_id, direction})` (§6.1): ids sorted ascending. */
  depsGet(id: number, direction: "importers" | "imports"): number[] {
    const path = this.#byId.get(id);
    if (path === undefined) return [];
    const list = (direction === "importers" ? this.importers(path) : this.imports(path)) ?? [];
    return list
      .map((p) => this.#files.get(p)?.id)
      .filter((x): x is number => x !== undefined)
      .sort((a, b) => a - b);
  }

  /** The seq of the newest log entry for `path` (0 when none). */
  lastEditSeq(path: string): number {
    return this.#files.get(path)?.last_edit_seq ?? 0;
  }

  /**
   * Version-log entries with `seq` greater than `since` (oldest first). `complete` is
   * false when the log no longer holds every entry after `since` (it keeps the last
   * {@link CODE_INDEX_LOG_LIMIT}). Throws `TurngateError` (`invalid_input`) for a negative
   * or non-integer `since`.
   */
  changesSince(since: number): CodeIndexChanges {
    if (!Number.isSafeInteger(since) || since < 0) {
      throw new TurngateError(
        "invalid_input",
        "changesSince: since must be a non-negative integer",
      );
    }
    const oldest = this.#log[0]?.seq ?? this.#seq + 1;
    const complete = since >= oldest - 1 || since >= this.#seq;
    return {
      current_seq: this.#seq,
      since,
      complete,
      changes: this.#log.filter((c) => c.seq > since),
    };
  }
}

/** Path of the index in a state folder. */
export function codeIndexPath(stateDir: string): string {
  return join(stateDir, CODE_INDEX_FILE);
}
