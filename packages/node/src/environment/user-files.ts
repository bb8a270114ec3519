/**
 * Fingerprints of the user-level files that change what checks do (issue 10, "the agent
 * reaches past the workspace"; DESIGN §3a: ledger rows with tool `environment`). The
 * agent runs as the same OS user as turngate, so it can edit `~/.gitconfig` or plant a
 * `usercustomize.py` that every `python -m pytest` imports; such an edit must be in the
 * effect digest and in the output.
 */
import { createHash } from "node:crypto";
import { closeSync, lstatSync, openSync, readdirSync, readlinkSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import { DELETED_CONTENT_DIGEST } from "@turngate/core";

/**
 * The fingerprinted locations, relative to the home directory (`~`) unless absolute.
 * A folder (trailing `/`) stands for every file under it (3 levels deep, 2,000 files at
 * most). Environment overrides are followed where the tool itself follows them
 * (`XDG_CONFIG_HOME`, `CARGO_HOME`, `RUSTUP_HOME`, `PYENV_ROOT`, `PYTHONUSERBASE`, `GOENV`,
 * `PIP_CONFIG_FILE`, `NPM_CONFIG_USERCONFIG`, `BASH_ENV`, `ENV`).
 *
 * - git: `~/.gitconfig`, `$XDG_CONFIG_HOME/git/` (config, attributes, ignore)
 * - npm / yarn / pnpm: `~/.npmrc` (or `NPM_CONFIG_USERCONFIG`), `~/.yarnrc`,
 *   `~/.yarnrc.yml`, `$XDG_CONFIG_HOME/pnpm/rc`; Node's global folders
 *   `~/.node_modules/`, `~/.node_libraries/`
 * - pip: `$XDG_CONFIG_HOME/pip/`, `~/.pip/`, `PIP_CONFIG_FILE`, `/etc/pip.conf`,
 *   `/etc/xdg/pip/pip.conf`
 * - Python user site (`PYTHONUSERBASE`, default `~/.local`): `lib/python3.X/site-packages/`
 *   `usercustomize.py`, `sitecustomize.py` and `*.pth` (turngate's checks run with
 *   `PYTHONNOUSERSITE=1`, so they are not loaded; the row shows the attempt)
 * - cargo: `$CARGO_HOME/config.toml`, `$CARGO_HOME/config` (default `~/.cargo`)
 * - Go: the `go env GOENV` file (`GOENV`, else `$XDG_CONFIG_HOME/go/env`; computed, `go`
 *   is not run)
 * - toolchain selectors: `$PYENV_ROOT/version` (default `~/.pyenv/version`),
 *   `~/.tool-versions` (asdf), `$RUSTUP_HOME/settings.toml` (default `~/.rustup`)
 * - shells: `~/.bashrc`, `~/.bash_profile`, `~/.profile`, `~/.zshenv`, and the files
 *   `BASH_ENV` / `ENV` name (turngate's checks run with both unset)
 * - every executable in a `PATH` folder inside the home directory (`~/.local/bin/`,
 *   `~/.cargo/bin/`, …), so a planted `~/.local/bin/bash` shows up.
 *
 * Input: the environment, the home directory and the system configuration folder
 * (default `/etc`). Output: the locations; nothing is read
 * but the `lib/` folder of the Python user base. Never throws.
 */
export function userFileLocations(
  env: NodeJS.ProcessEnv,
  home: string,
  etc = "/etc",
): UserFileLocation[] {
  return locations(env, home, etc);
}

/** Where the fingerprints are taken. */
export interface UserFilesOptions {
  /** The environment whose `HOME`, `PATH` and overrides are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The home directory; default `env.HOME`, else `os.homedir()`. Tests pass a temp folder. */
  home?: string;
  /** The system configuration folder (`/etc/pip.conf`, …); default `/etc`. Tests pass a temp folder. */
  etc?: string;
}

/** `~/…` label → content digest (see `fingerprintUserFiles`). */
export type UserFileFingerprints = Record<string, string>;

/** Files larger than this are fingerprinted by metadata (size, mtime, inode), not bytes. */
export const USER_FILE_HASH_LIMIT_BYTES = 1024 * 1024;
const MAX_FILES_PER_FOLDER = 2000;
const MAX_DEPTH = 3;

/** One fingerprinted location (`userFileLocations`). */
export interface UserFileLocation {
  path: string;
  folder: boolean;
  /** For folders: only files whose name matches. */
  match?: RegExp;
  /** Walk depth for folders (default `MAX_DEPTH`). */
  depth?: number;
}

function locations(env: NodeJS.ProcessEnv, home: string, etc: string): UserFileLocation[] {
  const config = nonBlank(env.XDG_CONFIG_HOME) ?? join(home, ".config");
  const cargo = nonBlank(env.CARGO_HOME) ?? join(home, ".cargo");
  const userBase = nonBlank(env.PYTHONUSERBASE) ?? join(home, ".local");
  const list: UserFileLocation[] = [
    { path: join(home, ".gitconfig"), folder: false },
    { path: join(config, "git"), folder: true },
    { path: nonBlank(env.NPM_CONFIG_USERCONFIG) ?? join(home, ".npmrc"), folder: false },
    { path: join(home, ".yarnrc"), folder: false },
    { path: join(home, ".yarnrc.yml"), folder: false },
    { path: join(config, "pnpm", "rc"), folder: false },
    { path: join(home, ".node_modules"), folder: true },
    { path: join(home, ".node_libraries"), folder: true },
    { path: join(config, "pip"), folder: true },
    { path: join(home, ".pip"), folder: true },
    { path: join(etc, "pip.conf"), folder: false },
    { path: join(etc, "xdg", "pip", "pip.conf"), folder: false },
    { path: join(cargo, "config.toml"), folder: false },
    { path: join(cargo, "config"), folder: false },
    { path: nonBlank(env.GOENV) ?? join(config, "go", "env"), folder: false },
    { path: join(nonBlank(env.PYENV_ROOT) ?? join(home, ".pyenv"), "version"), folder: false },
    { path: join(home, ".tool-versions"), folder: false },
    {
      path: join(nonBlank(env.RUSTUP_HOME) ?? join(home, ".rustup"), "settings.toml"),
      folder: false,
    },
    { path: join(home, ".bashrc"), folder: false },
    { path: join(home, ".bash_profile"), folder: false },
    { path: join(home, ".profile"), folder: false },
    { path: join(home, ".zshenv"), folder: false },
  ];
  for (const name of ["PIP_CONFIG_FILE", "BASH_ENV", "ENV"]) {
    const file = nonBlank(env[name]);
    if (file !== undefined && isAbsolute(file)) list.push({ path: file, folder: false });
  }
  const lib = join(userBase, "lib");
  for (const entry of safeReaddir(lib)) {
    if (!/^python\d/.test(entry)) continue;
    list.push({
      path: join(lib, entry, "site-packages"),
      folder: true,
      match: /^(?:usercustomize\.py|sitecustomize\.py|.*\.pth)$/,
      depth: 1,
    });
  }
  for (const dir of (env.PATH ?? "").split(":")) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const rel = relative(home, dir);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
    list.push({ path: dir, folder: true, depth: 1 });
  }
  return list;
}

function nonBlank(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value : undefined;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** `~/x` for a path inside `home`, else the absolute path. */
function labelOf(path: string, home: string): string {
  const rel = relative(home, path);
  if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return `~/${rel}`;
  return path;
}

/** SHA-256 hex of a file's bytes (≤ 1 MiB) or of `size:mtime_ns:ino` (larger); null if unreadable. */
function fileDigest(path: string, size: number, mtimeNs: bigint, ino: bigint): string {
  const hash = createHash("sha256");
  if (size > USER_FILE_HASH_LIMIT_BYTES) {
    return hash.update(`stat:${size}:${mtimeNs}:${ino}`).digest("hex");
  }
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
    return hash.digest("hex");
  } catch (error) {
    return createHash("sha256")
      .update(`unreadable:${(error as NodeJS.ErrnoException).code ?? "error"}`)
      .digest("hex");
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Adds the fingerprint of `path` (file, symlink, or folder walked) to `out`. */
function visit(
  path: string,
  home: string,
  out: UserFileFingerprints,
  location: UserFileLocation,
  depth: number,
  budget: { files: number },
): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path, { bigint: true });
  } catch {
    return;
  }
  if (stat.isSymbolicLink()) {
    let target = "";
    try {
      target = readlinkSync(path);
    } catch {}
    if (depth === 0 || location.match === undefined || location.match.test(basename(path))) {
      out[labelOf(path, home)] = createHash("sha256").update(`symlink:${target}`).digest("hex");
    }
    return;
  }
  if (stat.isDirectory()) {
    if (!location.folder || depth >= (location.depth ?? MAX_DEPTH)) return;
    for (const name of safeReaddir(path)) {
      if (budget.files <= 0) return;
      visit(join(path, name), home, out, location, depth + 1, budget);
    }
    return;
  }
  if (!stat.isFile()) return;
  if (depth > 0 && location.match !== undefined && !location.match.test(basename(path))) return;
  budget.files--;
  out[labelOf(path, home)] = fileDigest(path, Number(stat.size), stat.mtimeNs, stat.ino);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * The labels (`~/.local/bin/`, with a trailing `/`) of the folders of `pathValue` that
 * lie inside `home`: a fingerprinted file whose label starts with one of them is an
 * executable a check would find on `PATH`. Pure; never throws.
 */
export function pathFolderLabels(pathValue: string, home: string): string[] {
  const labels: string[] = [];
  for (const dir of pathValue.split(":")) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const rel = relative(home, dir);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
    labels.push(`~/${rel}/`);
  }
  return labels;
}

/** The home directory `fingerprintUserFiles` uses for `options`. */
export function userFilesHome(options: UserFilesOptions = {}): string {
  const env = options.env ?? process.env;
  return options.home ?? nonBlank(env.HOME) ?? homedir();
}

/**
 * Fingerprint the user-level files (see the list above): label (`~/.gitconfig`, or the
 * absolute path outside the home directory) → lowercase hex SHA-256 of the bytes (files
 * ≤ 1 MiB), of `stat:size:mtime_ns:ino` (larger files), of `symlink:TARGET` (a symlink,
 * not followed), or of `unreadable:CODE`. Missing files are absent. Folders are walked 3
 * levels deep, 2,000 files at most each. Sync; never throws.
 */
export function fingerprintUserFiles(options: UserFilesOptions = {}): UserFileFingerprints {
  const env = options.env ?? process.env;
  const home = options.home ?? nonBlank(env.HOME) ?? homedir();
  const out: UserFileFingerprints = {};
  for (const location of locations(env, home, options.etc ?? "/etc")) {
    visit(location.path, home, out, location, 0, { files: MAX_FILES_PER_FOLDER });
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The labels whose fingerprint differs between `before` and `after`, in code-point
 * order, with the digest now (`DELETED_CONTENT_DIGEST` for a file that is gone): the
 * ledger rows (tool `environment`) of a turn.
 */
export function changedUserFiles(
  before: UserFileFingerprints,
  after: UserFileFingerprints,
): { path: string; contentDigest: string }[] {
  const labels = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed: { path: string; contentDigest: string }[] = [];
  for (const label of [...labels].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const now = after[label];
    if (before[label] === now) continue;
    changed.push({ path: label, contentDigest: now ?? DELETED_CONTENT_DIGEST });
  }
  return changed;
}
