/**
 * Fingerprints of the user-level files that change what checks do (issue 10, "the agent
 * reaches past the workspace"; docs/design.md §3a: ledger rows with tool `environment`). The
 * agent runs as the same OS user as turngate, so it can edit `~/.gitconfig` or plant a
 * `usercustomize.py` that every `python -m pytest` imports; such an edit must be in the
 * effect digest and in the output.
 */
import { createHash, hash } from "node:crypto";
import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  realpathSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative } from "node:path";
import { DELETED_CONTENT_DIGEST } from "@turngate/core";
import { type NativeAddon, selectNative } from "../native/select.js";

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
 *   `~/.cargo/bin/`, …), so a planted `~/.local/bin/bash` shows up. Each `PATH` folder is
 *   resolved with `realpath` first, so `/opt/tools → ~/bin` counts as inside the home.
 * - every entry of a `PATH` folder outside the home directory that the current user can
 *   alter (the folder or its parent is writable, `access W_OK`; a folder that does not
 *   exist yet counts when its nearest existing ancestor is writable): stat only
 *   (`pathStatDigest`: type, mode, size, mtime, ctime, inode — ctime cannot be set back
 *   by the agent), at most 20,000 entries a folder. As root this includes `/usr/bin`.
 * - the workspace's ancestors (`ancestorLocations`, with `options.root`): the files tools
 *   look up in parent folders, and each ancestor `node_modules/`.
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
  /** The workspace root (absolute): its ancestors are fingerprinted (`ancestorLocations`); none when absent. */
  root?: string;
}

/** `~/…` label → content digest (see `fingerprintUserFiles`). */
export type UserFileFingerprints = Record<string, string>;

/** Files larger than this are fingerprinted by metadata (size, mtime, ctime, inode), not bytes. */
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
  /**
   * Stat-only listing (`pathStatDigest`) of the folder's direct entries (files, folders,
   * symlinks), no bytes read, at most `STAT_LISTING_MAX_ENTRIES`; `subfolders` are listed
   * the same way (`node_modules/.bin`). The folder itself gets a row (`folder` or its
   * symlink target) so its presence is fingerprinted.
   */
  statListing?: { subfolders: string[] };
  /**
   * A `PATH` folder: only names a command lookup can resolve are fingerprinted, so entries
   * whose name starts with `.` are left out (no command is looked up by a dot name unless
   * a script spells it, as it could spell any file outside `PATH`). pyenv's rehash writes
   * and removes `~/.pyenv/shims/.pyenv-shim` whenever `pip` installs through a shim: as a
   * user-level change it made every concurrent turn `needs_review`.
   */
  commandsOnly?: boolean;
}

/** Entries listed at most per stat-only folder (a `PATH` folder outside home, an ancestor `node_modules/`). */
export const STAT_LISTING_MAX_ENTRIES = 20_000;

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
  for (const folder of pathFolders(env.PATH ?? "", home)) {
    list.push(
      folder.insideHome
        ? { path: folder.path, folder: true, depth: 1, commandsOnly: true }
        : {
            path: folder.path,
            folder: true,
            depth: 1,
            statListing: { subfolders: [] },
            commandsOnly: true,
          },
    );
  }
  return list;
}

/**
 * The file names a tool looks up in the parent folders of the project (the workspace's
 * ancestors), by ecosystem. Only names whose presence or content changes what a check
 * does are listed:
 * - cargo (merges `.cargo/config.toml` / `.cargo/config` of every ancestor; `runner`,
 *   `rustflags`, `[alias]`), rustup (`rust-toolchain`, `rust-toolchain.toml`)
 * - pytest (rootdir and ini discovery walk up: `pytest.ini`, `.pytest.ini`,
 *   `pyproject.toml`, `tox.ini`, `setup.cfg`; `conftest.py` of the rootdir is loaded),
 *   pyenv `.python-version`, asdf `.tool-versions`, ruff (`ruff.toml`, `.ruff.toml`),
 *   mypy (`mypy.ini`, `.mypy.ini`), flake8 (`.flake8`)
 * - Node: `package.json` (`"type"` lookup, workspace roots), `.npmrc`, `.yarnrc`,
 *   `.yarnrc.yml`, `pnpm-workspace.yaml`, `.pnpmfile.cjs`, `tsconfig.json` (`tsc`
 *   without `-p`), Biome (`biome.json`, `biome.jsonc`), Prettier (`.prettierrc*`,
 *   `prettier.config.*`, `.editorconfig`), ESLint (`.eslintrc*`, `eslint.config.*`),
 *   `deno.json`, `deno.jsonc`
 * - Go: `go.work`, `go.work.sum`, `go.mod` (the module root when the workspace has none)
 * Not listed: `.nvmrc` / `.node-version` / `.envrc` (read by interactive shell hooks,
 * which the checks' shell does not run), `setup.py` / `requirements*.txt` (read only
 * when a command names them).
 */
export const ANCESTOR_FILE_PATTERN =
  /^(?:pytest\.ini|\.pytest\.ini|pyproject\.toml|tox\.ini|setup\.cfg|conftest\.py|\.python-version|\.tool-versions|ruff\.toml|\.ruff\.toml|mypy\.ini|\.mypy\.ini|\.flake8|rust-toolchain|rust-toolchain\.toml|package\.json|\.npmrc|\.yarnrc|\.yarnrc\.yml|pnpm-workspace\.yaml|\.pnpmfile\.cjs|tsconfig\.json|biome\.jsonc?|\.prettierrc.*|prettier\.config\..*|\.editorconfig|\.eslintrc.*|eslint\.config\..*|deno\.jsonc?|go\.work|go\.work\.sum|go\.mod)$/;

/**
 * The fingerprinted locations in the ancestors of the workspace `root` (absolute), from
 * its parent up to `/`: each ancestor's files matching `ANCESTOR_FILE_PATTERN` (found
 * with one `readdir` of the ancestor, top level only), its `.cargo/config.toml` and
 * `.cargo/config`, and its `node_modules/` as a stat-only listing of the top-level
 * entries and of `node_modules/.bin` (a planted package or bin is a new entry; a file
 * rewritten deep inside an existing package is not seen). Reads the ancestors' top-level
 * names only; never throws.
 */
export function ancestorLocations(root: string): UserFileLocation[] {
  const list: UserFileLocation[] = [];
  let dir = dirname(root);
  for (;;) {
    for (const name of safeReaddir(dir)) {
      if (ANCESTOR_FILE_PATTERN.test(name)) list.push({ path: join(dir, name), folder: false });
    }
    list.push({ path: join(dir, ".cargo", "config.toml"), folder: false });
    list.push({ path: join(dir, ".cargo", "config"), folder: false });
    list.push({
      path: join(dir, "node_modules"),
      folder: true,
      depth: 1,
      statListing: { subfolders: [".bin"] },
    });
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return list;
}

/**
 * Whether the fingerprint label `label` (`~/…` or absolute, as `fingerprintUserFiles`
 * writes it) names a location of `ancestorLocations(root)`: a file matching
 * `ANCESTOR_FILE_PATTERN` directly in an ancestor of `root`, an ancestor's
 * `.cargo/config.toml` / `.cargo/config`, or an ancestor's `node_modules` (the folder, a
 * top-level entry, a `.bin` entry). Pure; never throws.
 */
export function isAncestorLabel(label: string, root: string, home: string): boolean {
  const path = label.startsWith("~/") ? join(home, label.slice(2)) : label;
  if (!isAbsolute(path)) return false;
  const isAncestor = (dir: string) => dir !== root && insideOf(root, dir) !== undefined;
  const parent = dirname(path);
  const name = basename(path);
  if (isAncestor(parent) && (ANCESTOR_FILE_PATTERN.test(name) || name === "node_modules")) {
    return true;
  }
  const grand = dirname(parent);
  const folder = basename(parent);
  if (isAncestor(grand) && folder === ".cargo") return name === "config.toml" || name === "config";
  if (isAncestor(grand) && folder === "node_modules") return true;
  return folder === ".bin" && basename(grand) === "node_modules" && isAncestor(dirname(grand));
}

/** One folder of `PATH`, resolved (`pathFolders`). */
export interface PathFolder {
  /** The folder, resolved with `realpath` (as written when it does not exist). */
  path: string;
  /** The label prefix of its files: `~/…/` inside the home directory, else `/abs/…/`. */
  label: string;
  /** Inside the home directory: files are fingerprinted by content. Else stat only. */
  insideHome: boolean;
}

/**
 * The folders of `pathValue` (`PATH`, `:`-separated; relative entries skipped) that are
 * fingerprinted: resolved with `realpath`, deduplicated; those inside `home` (after
 * resolving both), and those outside that the current user can alter (`canAlter`). Reads
 * the file system (realpath, access); never throws.
 */
export function pathFolders(pathValue: string, home: string): PathFolder[] {
  const realHome = safeRealpath(home) ?? home;
  const seen = new Set<string>();
  const folders: PathFolder[] = [];
  for (const dir of pathValue.split(":")) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const resolved = safeRealpath(dir) ?? dir;
    if (seen.has(resolved)) continue;
    seen.add(resolved);
    const inHome =
      resolved === realHome || resolved === home
        ? ""
        : (insideOf(resolved, realHome) ?? insideOf(resolved, home));
    if (inHome !== undefined) {
      const label = inHome === "" ? "~/" : `~/${inHome}/`;
      folders.push({ path: resolved, label, insideHome: true });
    } else if (canAlter(resolved)) {
      folders.push({ path: resolved, label: `${resolved}/`, insideHome: false });
    }
  }
  return folders;
}

/** `rel` of `path` strictly inside `dir`, else undefined. */
function insideOf(path: string, dir: string): string | undefined {
  const rel = relative(dir, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return undefined;
  return rel;
}

function safeRealpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the current user could change what `dir` holds: `dir` or its parent is
 * writable (the parent lets it replace the folder), or — when `dir` does not exist — its
 * nearest existing ancestor is writable. Never throws.
 */
function canAlter(dir: string): boolean {
  let path = dir;
  for (;;) {
    let exists = true;
    try {
      lstatSync(path);
    } catch {
      exists = false;
    }
    if (exists) return writable(path) || (path === dir && writable(dirname(path)));
    const parent = dirname(path);
    if (parent === path) return false;
    path = parent;
  }
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

/** The read buffer of `fileDigest` (sync, so one is enough), allocated on first use. */
let readBuffer: Buffer | undefined;

/**
 * SHA-256 hex of a file's bytes (≤ 1 MiB) or of `stat:size:mtime_ns:ctime_ns:ino` (larger:
 * size, mtime and inode can all be kept by a rewrite in place with the mtime set back, the
 * ctime cannot); null if unreadable.
 */
function fileDigest(
  path: string,
  size: number,
  mtimeNs: bigint,
  ctimeNs: bigint,
  ino: bigint,
): string {
  if (size > USER_FILE_HASH_LIMIT_BYTES)
    return hash("sha256", `stat:${size}:${mtimeNs}:${ctimeNs}:${ino}`);
  const digest = createHash("sha256");
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    readBuffer ??= Buffer.allocUnsafe(64 * 1024);
    const buffer = readBuffer;
    let total = 0;
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      digest.update(buffer.subarray(0, n));
      total += n;
      // A short read that reaches the lstat size is the end: no read(2) just to meet EOF
      // (the observer's hashers have the same rule). A file that grew since is read on.
      if (n < buffer.length && total === size) break;
    }
    return digest.digest("hex");
  } catch (error) {
    return hash("sha256", `unreadable:${(error as NodeJS.ErrnoException).code ?? "error"}`);
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
  native: NativeAddon | undefined,
): void {
  if (depth > 0 && location.commandsOnly === true && basename(path).startsWith(".")) return;
  const stat = safeLstat(path);
  if (stat === undefined) return;
  if (stat.isSymbolicLink()) {
    if (depth === 0 || location.match === undefined || location.match.test(basename(path))) {
      out[labelOf(path, home)] = symlinkDigest(path);
    }
    return;
  }
  if (location.statListing !== undefined) {
    statListing(
      path,
      stat,
      home,
      out,
      location.statListing.subfolders,
      native,
      location.commandsOnly === true,
    );
    return;
  }
  if (stat.isDirectory()) {
    if (!location.folder || depth >= (location.depth ?? MAX_DEPTH)) return;
    for (const name of safeReaddir(path)) {
      if (budget.files <= 0) return;
      visit(join(path, name), home, out, location, depth + 1, budget, native);
    }
    return;
  }
  if (!stat.isFile()) return;
  if (depth > 0 && location.match !== undefined && !location.match.test(basename(path))) return;
  budget.files--;
  out[labelOf(path, home)] = fileDigest(
    path,
    Number(stat.size),
    stat.mtimeNs,
    stat.ctimeNs,
    stat.ino,
  );
}

/**
 * Lowercase hex SHA-256 of `stat:TYPE:MODE:SIZE:MTIME_NS:CTIME_NS:INO` (TYPE `f`, `d`, `o`)
 * or of `symlink:TARGET`: the stat-only fingerprint of an entry. Any write, `chmod`,
 * `touch` or replacement changes it (ctime cannot be set back). Pure.
 */
export function pathStatDigest(stat: {
  type: "f" | "d" | "o";
  mode: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  ino: bigint;
}): string {
  return hash(
    "sha256",
    `stat:${stat.type}:${stat.mode}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}`,
  );
}

type BigStats = NonNullable<ReturnType<typeof safeLstat>>;

/** `lstat` with bigint fields (ns times); undefined when `path` is absent or cannot be stat'ed. */
function safeLstat(path: string) {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** SHA-256 hex of `symlink:TARGET` (`""` when the link cannot be read). */
function symlinkDigest(path: string): string {
  let target = "";
  try {
    target = readlinkSync(path);
  } catch {}
  return hash("sha256", `symlink:${target}`);
}

/** The stat-only fingerprint of `path` whose lstat is `stat` (`pathStatDigest` or `symlinkDigest`). */
function statDigest(path: string, stat: BigStats): string {
  if (stat.isSymbolicLink()) return symlinkDigest(path);
  return pathStatDigest({
    type: stat.isFile() ? "f" : stat.isDirectory() ? "d" : "o",
    mode: stat.mode,
    size: stat.size,
    mtimeNs: stat.mtimeNs,
    ctimeNs: stat.ctimeNs,
    ino: stat.ino,
  });
}

/** SHA-256 hex of `folder`: the presence row of a stat-only folder. */
const FOLDER_DIGEST = hash("sha256", "folder");

/**
 * The label `labelOf(folder + "/" + name, home)` gives every entry `name` of `folder`
 * (absolute, normalized), as a prefix to which the name is appended — computed once per
 * folder instead of a `path.relative` per entry; undefined when names starting with `..`
 * would be labelled apart (`folder` is the home directory itself: `labelOf` keeps
 * `~/..x` absolute). Pure.
 */
function labelPrefix(folder: string, home: string): string | undefined {
  const rel = relative(home, folder);
  if (rel === "") return undefined;
  if (!rel.startsWith("..") && !isAbsolute(rel)) return `~/${rel}/`;
  // Outside home (or ~/..x/…, labelled absolute by labelOf too).
  return folder === "/" ? "/" : `${folder}/`;
}

/**
 * The folder's presence row, and `pathStatDigest` rows of its entries and of `subfolders`'
 * entries (with `commandsOnly`, not those whose name starts with `.`). `stat` is the lstat of
 * `dir` already taken by the caller. One lstat per entry
 * (so an executable rewritten in place is seen: its mtime/ctime change, the folder's do
 * not); the labels are the folder's prefix plus the entry name.
 */
function statListing(
  dir: string,
  stat: BigStats,
  home: string,
  out: UserFileFingerprints,
  subfolders: string[],
  native: NativeAddon | undefined,
  commandsOnly: boolean,
) {
  if (!stat.isDirectory()) {
    out[labelOf(dir, home)] = statDigest(dir, stat);
    return;
  }
  out[labelOf(dir, home)] = FOLDER_DIGEST;
  for (const folder of [join(dir, "."), ...subfolders.map((name) => join(dir, name))]) {
    const prefix = labelPrefix(folder, home);
    // `folder` is normalized (join), so `base + name` is `join(folder, name)`.
    const base = folder === "/" ? "/" : `${folder}/`;
    if (native !== undefined) {
      // The same names, order and digests from the addon (readdir, lstat and SHA-256 of
      // each entry there; issue 17): as root `/usr/bin` alone is ≈ 1,100 entries.
      const pairs = native.statDigestListing(folder, STAT_LISTING_MAX_ENTRIES);
      for (let i = 0; i + 1 < pairs.length; i += 2) {
        const name = pairs[i] as string;
        if (commandsOnly && name.startsWith(".")) continue;
        out[prefix !== undefined ? prefix + name : labelOf(base + name, home)] = pairs[
          i + 1
        ] as string;
      }
      continue;
    }
    const names = safeReaddir(folder).slice(0, STAT_LISTING_MAX_ENTRIES);
    for (const name of names) {
      if (commandsOnly && name.startsWith(".")) continue;
      const path = base + name;
      const entry = safeLstat(path);
      if (entry === undefined) continue;
      out[prefix !== undefined ? prefix + name : labelOf(path, home)] = statDigest(path, entry);
    }
  }
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * The label prefixes (`~/.local/bin/`, `/tmp/tools/`, with a trailing `/`) of the
 * fingerprinted folders of `pathValue` (`pathFolders`): a fingerprinted file whose label
 * starts with one of them is an executable a check would find on `PATH`. Reads the file
 * system (realpath, access); never throws.
 */
export function pathFolderLabels(pathValue: string, home: string): string[] {
  return pathFolders(pathValue, home).map((folder) => folder.label);
}

/** The home directory `fingerprintUserFiles` uses for `options`. */
export function userFilesHome(options: UserFilesOptions = {}): string {
  const env = options.env ?? process.env;
  return options.home ?? nonBlank(env.HOME) ?? homedir();
}

/**
 * Fingerprint the user-level files (see the list above): label (`~/.gitconfig`, or the
 * absolute path outside the home directory) → lowercase hex SHA-256 of the bytes (files
 * ≤ 1 MiB), of `stat:size:mtime_ns:ctime_ns:ino` (larger files), of `symlink:TARGET` (a symlink,
 * not followed), of `unreadable:CODE`, or `pathStatDigest` (stat-only folders: `PATH`
 * folders outside home, ancestor `node_modules/`). With `options.root`, the workspace's
 * ancestors too (`ancestorLocations`). Missing files are absent. Folders are walked 3
 * levels deep, 2,000 files at most each. Sync; never throws.
 */
export function fingerprintUserFiles(options: UserFilesOptions = {}): UserFileFingerprints {
  const env = options.env ?? process.env;
  const home = options.home ?? nonBlank(env.HOME) ?? homedir();
  const out: UserFileFingerprints = {};
  const all = locations(env, home, options.etc ?? "/etc");
  if (options.root !== undefined) all.push(...ancestorLocations(options.root));
  const native = statListingNative(env);
  for (const location of all) {
    visit(location.path, home, out, location, 0, { files: MAX_FILES_PER_FOLDER }, native);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The addon for the stat-only listings when `env` selects it (`TURNGATE_NATIVE`, as every
 * native use; issue 17), else undefined (the TypeScript loop: the same fingerprints). A bad
 * `TURNGATE_NATIVE` or a missing addon with `=1` is reported where the host is made; the
 * fingerprints never throw, so they then take the TypeScript loop.
 */
function statListingNative(env: NodeJS.ProcessEnv): NativeAddon | undefined {
  let addon: NativeAddon | undefined;
  try {
    addon = selectNative(env);
  } catch {
    return undefined;
  }
  return typeof addon?.statDigestListing === "function" ? addon : undefined;
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
