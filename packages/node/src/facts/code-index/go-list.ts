/**
 * Go packages for the code index's import graph from `go list -json` (issue 15 item 1;
 * harn-verification.md §1.3.2): run once per module root (the root's `go.work`, else every
 * folder with a `go.mod`), frozen and offline, bounded in time, its process group reaped.
 * When `go` is not on PATH, fails, times out or would change the module files, the index
 * keeps reading Go import lines and says why (`GoImportsSource`).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { parseJsonStream } from "@turngate/core";
import { signalProcessGroup, trackProcessGroup } from "../../runner/process-group.js";

/** Default bound of one `go list` run (ms). */
export const GO_LIST_TIMEOUT_MS = 30_000;
/** Largest `go list` stdout read (bytes); more is a failure (the import lines are used). */
export const GO_LIST_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Environment `go list` runs with on top of the caller's: module files frozen
 * (`-mod=readonly`: never writes go.mod/go.sum), no network (`GOPROXY=off`,
 * `GOSUMDB=off`), no toolchain download (`GOTOOLCHAIN=local`), no VCS stamping.
 */
export const GO_LIST_ENV: Readonly<Record<string, string>> = {
  GOFLAGS: "-mod=readonly -buildvcs=false",
  GOPROXY: "off",
  GOSUMDB: "off",
  GOTOOLCHAIN: "local",
};

/** The `-json=` fields read (smaller output than every field). */
const FIELDS =
  "ImportPath,Dir,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Imports,TestImports,XTestImports,Error,DepsErrors";

/** One Go package of the workspace (paths workspace-relative, `/`-separated). */
export interface GoListPackage {
  import_path: string;
  /** Folder of the package (`""`: the workspace root). */
  dir: string;
  /** Non-test files (GoFiles + CgoFiles), sorted. */
  files: string[];
  test_files: string[];
  xtest_files: string[];
  imports: string[];
  test_imports: string[];
  xtest_imports: string[];
}

/**
 * Which reader filled the Go part of the import graph: `go_list` (the packages below),
 * `import_lines` (Go import declarations resolved by `go.mod` module path; `reason` says
 * why `go list` was not used) or `none` (no `go.mod` / `go.work` in the workspace).
 * `changed_workspace` lists module files `go list` changed (it should never; reported);
 * `frozen` says that go list would have changed go.mod/go.sum (a missing `go.sum` entry,
 * an update `go.mod` needs) and did not, because it runs with `-mod=readonly`: the
 * workspace packages are still listed.
 */
export type GoImportsState =
  | {
      source: "go_list";
      modules: string[];
      packages: GoListPackage[];
      duration_ms: number;
      changed_workspace?: string[];
      frozen?: string;
    }
  | { source: "import_lines"; reason: string; modules: string[]; changed_workspace?: string[] }
  | { source: "none" };

/** Options of {@link goListWorkspace}. */
export interface GoListOptions {
  /** Environment (its PATH finds `go`); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Bound of each run, ms; default {@link GO_LIST_TIMEOUT_MS}. */
  timeoutMs?: number;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  spawnError?: string;
}

function runGoList(cwd: string, patterns: string[], options: GoListOptions): Promise<RunResult> {
  const timeoutMs = options.timeoutMs ?? GO_LIST_TIMEOUT_MS;
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn("go", ["list", "-e", `-json=${FIELDS}`, ...patterns], {
        cwd,
        env: { ...(options.env ?? process.env), ...GO_LIST_ENV },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
    } catch (error) {
      resolve({
        code: null,
        stdout: "",
        stderr: "",
        timedOut: false,
        spawnError: (error as Error).message,
      });
      return;
    }
    const pid = child.pid;
    const forget = pid !== undefined ? trackProcessGroup(pid) : () => undefined;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let timedOut = false;
    let tooBig = false;
    const stop = () => {
      if (pid !== undefined) signalProcessGroup(pid, "SIGKILL");
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > GO_LIST_MAX_BYTES) {
        tooBig = true;
        stop();
      } else out.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (err.length < 64) err.push(chunk);
    });
    let spawnError: string | undefined;
    child.on("error", (error) => {
      spawnError = (error as NodeJS.ErrnoException).code ?? error.message;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      // Whatever go started and left behind goes with it.
      stop();
      forget();
      resolve({
        code: tooBig ? null : code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: tooBig
          ? `stdout exceeds ${GO_LIST_MAX_BYTES} bytes`
          : Buffer.concat(err).toString("utf8").trim(),
        timedOut,
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    });
  });
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [];

function stamp(root: string, paths: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of paths) {
    try {
      out.set(
        p,
        createHash("sha256")
          .update(readFileSync(join(root, p)))
          .digest("hex"),
      );
    } catch {
      out.set(p, "");
    }
  }
  return out;
}

function moduleFiles(modules: string[]): string[] {
  const out: string[] = [];
  for (const m of modules) {
    const pre = m === "" ? "" : `${m}/`;
    for (const f of ["go.mod", "go.sum", "go.work", "go.work.sum"]) out.push(pre + f);
  }
  return out;
}

const FROZEN = /updates to go\.(mod|sum) needed|missing go\.sum entry|go mod tidy/;

const firstLine = (text: string) => text.split("\n").find((l) => l.trim() !== "") ?? "";
/** The first three non-blank stderr lines, joined by a space (go puts the reason on line 2). */
const stderrLines = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .slice(0, 3)
    .join(" ");

/**
 * Runs `go list -e -json=… ./...` in each module root of `root` (absolute): `root` itself
 * when `goWork` (a root `go.work`), else each of `moduleDirs` (workspace-relative folders
 * holding a `go.mod`, `""` = root), with {@link GO_LIST_ENV}, each run bounded by
 * `timeoutMs` and its process group killed when it ends or times out. Output: the packages
 * whose folder lies inside `root` (`source: "go_list"`), or `source: "import_lines"` with
 * the reason (`go is not on PATH`, `go list exited N in DIR: first stderr lines`, `go list timed
 * out after N ms`, `go list would change go.mod/go.sum …` when it stopped for that, or `go list changed …` when the
 * module files' bytes differ afterwards — also in `changed_workspace`). Never rejects.
 */
export async function goListWorkspace(
  root: string,
  moduleDirs: readonly string[],
  goWork: boolean,
  options: GoListOptions = {},
): Promise<GoImportsState> {
  const modules = goWork ? [""] : [...moduleDirs].sort();
  if (modules.length === 0) return { source: "none" };
  const started = performance.now();
  const watched = moduleFiles(goWork ? ["", ...moduleDirs] : modules);
  const before = stamp(root, watched);
  const packages = new Map<string, GoListPackage>();
  let failure: string | undefined;
  let frozen: string | undefined;
  // In workspace mode `./...` at a root outside every module matches nothing: name each
  // module folder instead.
  const patterns = goWork
    ? [...moduleDirs].sort().map((d) => (d === "" ? "./..." : `./${d}/...`))
    : ["./..."];
  for (const m of modules) {
    const r = await runGoList(m === "" ? root : join(root, m), patterns, options);
    if (r.spawnError !== undefined) {
      failure = r.spawnError === "ENOENT" ? "go is not on PATH" : `go: ${r.spawnError}`;
      break;
    }
    if (r.timedOut) {
      failure = `go list timed out after ${options.timeoutMs ?? GO_LIST_TIMEOUT_MS} ms in ${m === "" ? "." : m}`;
      break;
    }
    if (FROZEN.test(r.stderr)) {
      failure = `go list would change go.mod/go.sum (frozen with -mod=readonly): ${firstLine(r.stderr)}`;
      break;
    }
    if (r.code !== 0) {
      failure = `go list exited ${r.code ?? "by a signal"} in ${m === "" ? "." : m}: ${stderrLines(r.stderr)}`;
      break;
    }
    let values: unknown[];
    try {
      values = parseJsonStream(r.stdout);
    } catch (error) {
      failure = `go list printed no JSON stream: ${(error as Error).message}`;
      break;
    }
    for (const v of values) {
      if (typeof v !== "object" || v === null) continue;
      const d = v as Record<string, unknown>;
      for (const e of [d.Error, ...(Array.isArray(d.DepsErrors) ? d.DepsErrors : [])]) {
        const text = typeof e === "object" && e !== null ? (e as { Err?: unknown }).Err : undefined;
        if (frozen === undefined && typeof text === "string" && FROZEN.test(text)) {
          frozen = `go list would change go.mod/go.sum (run with -mod=readonly, nothing written): ${firstLine(text)}`;
        }
      }
      if (typeof d.ImportPath !== "string" || typeof d.Dir !== "string") continue;
      const rel = relative(root, d.Dir);
      if (rel.startsWith("..") || rel.startsWith(sep) || rel.includes(`..${sep}`)) continue;
      const dir = rel.split(sep).join("/");
      const inDir = (names: string[]) => names.map((f) => (dir === "" ? f : `${dir}/${f}`)).sort();
      packages.set(d.ImportPath, {
        import_path: d.ImportPath,
        dir,
        files: inDir([...strings(d.GoFiles), ...strings(d.CgoFiles)]),
        test_files: inDir(strings(d.TestGoFiles)),
        xtest_files: inDir(strings(d.XTestGoFiles)),
        imports: strings(d.Imports),
        test_imports: strings(d.TestImports),
        xtest_imports: strings(d.XTestImports),
      });
    }
  }
  const after = stamp(root, watched);
  const changed = watched.filter((p) => before.get(p) !== after.get(p));
  const extra = changed.length > 0 ? { changed_workspace: changed } : {};
  if (changed.length > 0 && failure === undefined) {
    failure = `go list changed ${changed.join(", ")} (it runs with -mod=readonly and should not)`;
  }
  if (failure !== undefined) return { source: "import_lines", reason: failure, modules, ...extra };
  return {
    source: "go_list",
    modules,
    packages: [...packages.values()].sort((a, b) =>
      a.import_path < b.import_path ? -1 : a.import_path > b.import_path ? 1 : 0,
    ),
    duration_ms: Math.round(performance.now() - started),
    ...(frozen !== undefined ? { frozen } : {}),
  };
}

/**
 * Per Go file the workspace files it depends on, from `go list` packages: a package file
 * depends on the non-test files of every workspace package in `Imports` and of its own
 * package; a test file also on `TestImports` and the package's test files; an external test
 * file on `XTestImports` (its package under test among them), the package's test files
 * and the other external test files. Output: file → sorted dependencies (itself left out).
 */
export function goListFileDeps(packages: readonly GoListPackage[]): Map<string, string[]> {
  const byPath = new Map(packages.map((p) => [p.import_path, p]));
  const filesOf = (paths: readonly string[]) => paths.flatMap((i) => byPath.get(i)?.files ?? []);
  const out = new Map<string, string[]>();
  const put = (file: string, deps: string[]) => {
    const set = new Set(deps);
    set.delete(file);
    out.set(file, [...set].sort());
  };
  for (const p of packages) {
    const base = [...p.files, ...filesOf(p.imports)];
    for (const f of p.files) put(f, base);
    const test = [...base, ...p.test_files, ...filesOf(p.test_imports)];
    for (const f of p.test_files) put(f, test);
    const xtest = [...p.test_files, ...p.xtest_files, ...filesOf(p.xtest_imports)];
    for (const f of p.xtest_files) put(f, xtest);
  }
  return out;
}
