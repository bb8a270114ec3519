/**
 * Fetch real projects from their registries, through the registries' ordinary clients
 * (pip, npm, go) or the registry's download address (crates.io's static host, which is what
 * cargo itself downloads from). Each download is kept in {@link cacheDir} so a second run
 * does not fetch again. Only the registries are reachable on the machines this runs on: a
 * project is never cloned from a forge.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * Where downloads are kept between runs: `TURNGATE_REAL_PROJECTS_CACHE` (absolute) when
 * set, else `<tmpdir>/turngate-real-projects`.
 */
export function cacheDir(): string {
  const configured = process.env.TURNGATE_REAL_PROJECTS_CACHE;
  const dir =
    configured !== undefined && isAbsolute(configured)
      ? configured
      : join(tmpdir(), "turngate-real-projects");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Run `file args` in `cwd` with `env` on top of this process's, returning stdout (throws on a non-zero exit, with its stderr). */
export function run(
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): string {
  try {
    return execFileSync(file, args, {
      cwd,
      env: { ...process.env, PIP_RETRIES: "0", PIP_DISABLE_PIP_VERSION_CHECK: "1", ...env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(
      `${file} ${args.join(" ")} failed in ${cwd}: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`,
    );
  }
}

/** Extract `archive` (a .tar.gz / .tgz / .crate) into a new folder `dest`, dropping its top folder. */
function extract(archive: string, dest: string): void {
  mkdirSync(dest, { recursive: true });
  run("tar", ["-xzf", archive, "-C", dest, "--strip-components=1"], dest);
}

/** Download `url` to `path` (once; kept in the cache). */
async function download(url: string, path: string): Promise<void> {
  if (existsSync(path)) return;
  const response = await fetch(url, { headers: { "user-agent": "turngate-real-projects-test" } });
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  const partial = `${path}.part`;
  writeFileSync(partial, Buffer.from(await response.arrayBuffer()));
  renameSync(partial, path);
}

/**
 * The source distribution of PyPI project `name`==`version` (`pip download --no-deps
 * --no-binary :all:`), extracted into `dest`.
 */
export function fetchPyPI(name: string, version: string, dest: string): void {
  const dir = join(cacheDir(), "pypi", `${name}-${version}`);
  mkdirSync(dir, { recursive: true });
  let archive = readdirSync(dir).find((f) => f.endsWith(".tar.gz"));
  if (archive === undefined) {
    run(
      "python3",
      [
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        `${name}==${version}`,
        "-d",
        dir,
      ],
      dir,
    );
    archive = readdirSync(dir).find((f) => f.endsWith(".tar.gz"));
  }
  if (archive === undefined) throw new Error(`pip download of ${name}==${version} left no sdist`);
  extract(join(dir, archive), dest);
}

/** The npm tarball of `name@version` (`npm pack`), extracted into `dest`. */
export function fetchNpm(name: string, version: string, dest: string): void {
  const dir = join(cacheDir(), "npm");
  mkdirSync(dir, { recursive: true });
  const archive = join(dir, `${name.replace("/", "-").replace("@", "")}-${version}.tgz`);
  if (!existsSync(archive))
    run("npm", ["pack", `${name}@${version}`, "--pack-destination", dir], dir);
  extract(archive, dest);
}

/** The `.crate` of `name` `version` from crates.io's download host, extracted into `dest`. */
export async function fetchCrate(name: string, version: string, dest: string): Promise<void> {
  const dir = join(cacheDir(), "crates");
  mkdirSync(dir, { recursive: true });
  const archive = join(dir, `${name}-${version}.crate`);
  await download(`https://static.crates.io/crates/${name}/${name}-${version}.crate`, archive);
  extract(archive, dest);
}

/**
 * Go module `path@version` (`go mod download -json` into a module cache of its own, kept in
 * the cache folder, with `-modcacherw` so it can be removed), copied into `dest`.
 */
export function fetchGoModule(path: string, version: string, dest: string): void {
  const modcache = join(cacheDir(), "gomod");
  mkdirSync(modcache, { recursive: true });
  const out = run("go", ["mod", "download", "-json", `${path}@${version}`], modcache, {
    GOMODCACHE: modcache,
    GOFLAGS: "-modcacherw",
    GO111MODULE: "on",
  });
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (info.Dir === undefined) throw new Error(`go mod download ${path}@${version}: ${info.Error}`);
  cpSync(info.Dir, dest, { recursive: true });
  run("chmod", ["-R", "u+w", dest], dest);
}
