import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { findOnPath } from "../runner/check-env.js";
import type { EntryState } from "../workspace/snapshot.js";
import { type DependencyFolder, findDependencyFolders } from "./dependency-folders.js";
import { keptFingerprint } from "./room-kept.js";

/**
 * The dependency `setup` of a clean-room turn (docs/design.md §3b, "Dependency folders";
 * docs/guarantees.md "Isolation: clean-room checks"). A dependency folder the agent changed during
 * the turn (a ledger row below it), or one that is absent although the manifest declares
 * dependencies, is never shown to the checks as the agent left it. Instead a `setup` command
 * (per-preset default {@link detectSetup}, or the configuration's `"setup"`) runs in the clean
 * room, in the sandbox, **with** network, from the in-scope bytes only; the dependency folders it
 * produced are moved out of the room into a cache under the room's folder
 * (`<room dir>/setup/<key>/`), keyed by {@link setupKey}: the digest of every input of the setup
 * (manifests, lockfiles, `patches/`, install scripts, local package archives, the command and the
 * toolchain). The checks then see that result, read-only, instead of the workspace's folder. A
 * second turn with the same inputs reuses the cached result (the setup does not run again).
 *
 * A cached result is used only when it is proven to be what turngate sealed: its seal
 * (`sealed.json`) was written before the turn started, and the fingerprint of the result
 * (`keptFingerprint`: every object's `lstat` with ctime and inode) equals the one sealed.
 * A result the agent (or anyone) wrote to after sealing is dropped and the setup runs again.
 */

/** Schema id of a sealed setup result. */
export const SETUP_SCHEMA = "turngate.setup_result.v1";

/** How many sealed results are kept per workspace (the oldest are removed). */
export const SETUP_CACHE_KEEP = 3;

/**
 * A setup to run: the ecosystem it belongs to (`npm`, `pnpm`, `pip`, `config`), the shell
 * command, and the dependency folders it is expected to produce (relative `/` paths; the
 * folders it actually produced are the ones adopted).
 */
export interface SetupCommand {
  ecosystem: "npm" | "pnpm" | "pip" | "config";
  command: string;
}

/** The configuration's `"setup"`: a command, or `false` (no setup: changed folders stay hidden). */
export type SetupConfig = string | false;

/**
 * The per-preset default setup of a source scope (`entries`: the snapshot's in-scope
 * paths), or undefined when no preset applies:
 * - `pnpm-lock.yaml` → `pnpm install --frozen-lockfile`;
 * - `package-lock.json` or `npm-shrinkwrap.json` → `npm ci --no-audit --no-fund`;
 * - `package.json` without a lockfile → `npm install --no-package-lock --no-audit --no-fund`:
 *   the ranges in `package.json` are resolved from the registry when the cache misses, so
 *   the result is whatever those ranges meant then (it is cached by the manifests' digest,
 *   not re-resolved per turn); commit a lockfile for reproducible results;
 * - `pyproject.toml` or `setup.py` → a room virtualenv at `.venv` (or `venv` when the
 *   workspace uses that name) and `pip install -e .` into it, plus `-r requirements.txt`
 *   when present; `requirements.txt` alone → `pip install -r requirements.txt`. Without
 *   pinned requirements pip resolves the newest matching versions at the cache miss.
 * Go (`go mod download`) and cargo (`cargo fetch`) fill caches outside the workspace (the
 * module cache, the registry), which the checks see read-only from home: they have no
 * dependency folder in the workspace to rebuild, so no default runs for them here.
 */
export function detectSetup(
  entries: ReadonlyMap<string, EntryState>,
  venvName = ".venv",
): SetupCommand | undefined {
  if (entries.has("pnpm-lock.yaml")) {
    return { ecosystem: "pnpm", command: "pnpm install --frozen-lockfile" };
  }
  if (entries.has("package-lock.json") || entries.has("npm-shrinkwrap.json")) {
    return { ecosystem: "npm", command: "npm ci --no-audit --no-fund" };
  }
  if (entries.has("package.json")) {
    return {
      ecosystem: "npm",
      command: "npm install --no-package-lock --no-audit --no-fund",
    };
  }
  const python = entries.has("pyproject.toml") || entries.has("setup.py");
  const requirements = entries.has("requirements.txt");
  if (python || requirements) {
    const pip = `${venvName}/bin/python -m pip install --disable-pip-version-check -q`;
    const parts = [`python3 -m venv ${venvName}`];
    if (requirements) parts.push(`${pip} -r requirements.txt`);
    if (python) parts.push(`${pip} -e .`);
    return { ecosystem: "pip", command: parts.join(" && ") };
  }
  return undefined;
}

/** Base names that are inputs of a setup wherever they are in the source scope. */
const INPUT_NAMES: ReadonlySet<string> = new Set([
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "pnpm-lock.yaml",
  "pnpm-workspace.yaml",
  ".pnpmfile.cjs",
  ".npmrc",
  ".yarnrc.yml",
  "yarn.lock",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "MANIFEST.in",
  "pdm.lock",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
]);

/**
 * Whether the in-scope `path` is an input of a setup (its bytes are part of the key):
 * {@link INPUT_NAMES} anywhere, `requirements*.txt` / `constraints*.txt`, anything below a
 * `patches/` folder (patch-package, pnpm's patchedDependencies), and local package archives
 * (`.tgz`, `.tar.gz`, `.tar`, `.whl`, `.zip`: `file:` dependencies).
 */
export function isSetupInput(path: string): boolean {
  const name = basename(path);
  if (INPUT_NAMES.has(name)) return true;
  if (/^(requirements|constraints)[^/]*\.txt$/.test(name)) return true;
  if (path.startsWith("patches/") || path.includes("/patches/")) return true;
  return /\.(tgz|tar\.gz|tar|whl|zip)$/.test(name);
}

/** The tools whose identity is part of a setup's key, per ecosystem. */
const TOOLS: Readonly<Record<SetupCommand["ecosystem"], readonly string[]>> = {
  npm: ["node", "npm"],
  pnpm: ["node", "pnpm"],
  pip: ["python3"],
  config: ["node", "npm", "pnpm", "python3", "go", "cargo"],
};

/**
 * The toolchain fingerprint of `setup`: for each tool of its ecosystem found on `path`,
 * `name=realpath:size:mtime_ms:ino` of the file it resolves to (`name=-` when absent).
 * A changed interpreter or package manager gives another key. Never throws.
 */
export function toolchainFingerprint(setup: SetupCommand, path: string): string[] {
  return TOOLS[setup.ecosystem].map((name) => {
    const found = findOnPath(name, path);
    if (found === undefined) return `${name}=-`;
    try {
      const real = realpathSync(found);
      const stat = statSync(real);
      return `${name}=${real}:${stat.size}:${Math.floor(stat.mtimeMs)}:${stat.ino}`;
    } catch {
      return `${name}=-`;
    }
  });
}

/**
 * The cache key of `setup` on `entries`: lowercase hex SHA-256 of the schema, the command,
 * the toolchain fingerprint lines, and one line `path\0content_digest` per input
 * ({@link isSetupInput}) in path order. Inputs come from the snapshot the checks are bound
 * to, never from the workspace's current bytes.
 */
export function setupKey(
  setup: SetupCommand,
  entries: ReadonlyMap<string, EntryState>,
  toolchain: readonly string[],
): string {
  const hash = createHash("sha256");
  hash.update(`${SETUP_SCHEMA}\n${setup.command}\n`);
  for (const line of toolchain) hash.update(`${line}\n`);
  const inputs = [...entries.keys()].filter(isSetupInput).sort();
  for (const path of inputs) hash.update(`${path}\0${entries.get(path)?.content_digest}\n`);
  return hash.digest("hex");
}

/** Whether `package.json` (at `root/path`) declares any dependency (npm/pnpm "needed"). */
function declaresDependencies(root: string, path: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(root, path), "utf8")) as Record<string, unknown>;
    return ["dependencies", "devDependencies", "optionalDependencies"].some((field) => {
      const value = manifest[field];
      return value !== null && typeof value === "object" && Object.keys(value).length > 0;
    });
  } catch {
    return false;
  }
}

/** Why a setup must run (or be reused) for a turn's checks, or undefined when not. */
export interface SetupNeed {
  setup: SetupCommand;
  /** The workspace's dependency folders (what `findDependencyFolders` found). */
  folders: DependencyFolder[];
  /** Human words: which folder changed or is missing. */
  reason: string;
}

/**
 * Whether the checks of a turn need the setup: some dependency folder of the workspace is
 * not visible (the agent changed it), or the expected folder of a node preset
 * (`node_modules` at the root) is absent while `package.json` declares dependencies.
 * `configured` is the turn-start configuration's `"setup"` (`false`: never; a string: that
 * command). `room` is the room's folder (where `package.json` is read: its in-scope bytes).
 */
export function setupNeed(
  workspace: string,
  room: string,
  entries: ReadonlyMap<string, EntryState>,
  changed: readonly string[],
  configured: SetupConfig | undefined,
): SetupNeed | undefined {
  if (configured === false) return undefined;
  const folders = findDependencyFolders(workspace, entries.keys(), changed);
  const venv = folders.some((f) => f.path === "venv") ? "venv" : ".venv";
  const setup: SetupCommand | undefined =
    typeof configured === "string"
      ? { ecosystem: "config", command: configured }
      : detectSetup(entries, venv);
  if (setup === undefined) return undefined;
  const hidden = folders.filter((f) => !f.visible).map((f) => f.path);
  if (hidden.length > 0) {
    return { setup, folders, reason: `${hidden.join(", ")} changed during the turn` };
  }
  if (
    (setup.ecosystem === "npm" || setup.ecosystem === "pnpm") &&
    !folders.some((f) => f.path === "node_modules") &&
    entries.has("package.json") &&
    declaresDependencies(room, "package.json")
  ) {
    return {
      setup,
      folders,
      reason: "node_modules is absent and package.json declares dependencies",
    };
  }
  return undefined;
}

/** A sealed setup result in the cache. */
export interface SetupResult {
  key: string;
  /** `<cache>/<key>/result`: holds the produced folders at their relative paths. */
  dir: string;
  /** The produced dependency folders (relative `/` paths), sorted. */
  folders: string[];
}

interface Seal {
  schema: typeof SETUP_SCHEMA;
  key: string;
  command: string;
  folders: string[];
  fingerprint: string;
}

/**
 * The setup cache of one workspace, `<room dir>/setup/`. `trustBeforeNs`: a seal written at
 * or after this ctime (the turn's start) is not trusted unless this process sealed it.
 */
export class SetupCache {
  readonly #dir: string;
  readonly #trustBeforeNs: bigint;
  readonly #sealedNow = new Set<string>();

  constructor(dir: string, trustBeforeNs: bigint) {
    this.#dir = dir;
    this.#trustBeforeNs = trustBeforeNs;
  }

  /**
   * The sealed result of `key`, proven (see the module docs), or undefined (none, or one
   * that was dropped because it is not what turngate sealed). Never throws.
   */
  lookup(key: string): SetupResult | undefined {
    const entry = join(this.#dir, key);
    const sealPath = join(entry, "sealed.json");
    let seal: Seal;
    let sealCtime: bigint;
    try {
      seal = JSON.parse(readFileSync(sealPath, "utf8")) as Seal;
      sealCtime = lstatSync(sealPath, { bigint: true }).ctimeNs;
    } catch {
      return undefined;
    }
    const dir = join(entry, "result");
    const ok =
      seal.schema === SETUP_SCHEMA &&
      seal.key === key &&
      Array.isArray(seal.folders) &&
      seal.folders.every((f) => typeof f === "string" && isSafeRelative(f)) &&
      (sealCtime < this.#trustBeforeNs || this.#sealedNow.has(key));
    if (ok) {
      const now = keptFingerprint(dir, seal.folders);
      if (now.digest === seal.fingerprint && now.maxCtimeNs < sealCtime) {
        return { key, dir, folders: [...seal.folders] };
      }
    }
    rmSync(entry, { recursive: true, force: true });
    return undefined;
  }

  /**
   * Adopt what a successful setup (`command`, recorded in the seal) produced in `room`: every real folder among
   * `candidates` (relative paths, the dependency folder names of the scope) is moved
   * (renamed) from the room into `<key>/result/`, then sealed. Symlinks are never adopted.
   * Older results beyond {@link SETUP_CACHE_KEEP} are removed. Output: the result (its
   * `folders` may be empty when the setup produced none). Errors: `fs` errors.
   */
  async adopt(
    key: string,
    command: string,
    room: string,
    candidates: readonly string[],
  ): Promise<SetupResult> {
    const entry = join(this.#dir, key);
    const dir = join(entry, "result");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const folders: string[] = [];
    for (const rel of [...candidates].sort()) {
      let real = false;
      try {
        real = lstatSync(join(room, rel)).isDirectory();
      } catch {
        // not produced
      }
      if (!real) continue;
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      renameSync(join(room, rel), join(dir, rel));
      folders.push(rel);
    }
    const sealPath = join(entry, "sealed.json");
    for (let attempt = 0; ; attempt += 1) {
      const fingerprint = keptFingerprint(dir, folders);
      const seal: Seal = {
        schema: SETUP_SCHEMA,
        key,
        command,
        folders,
        fingerprint: fingerprint.digest,
      };
      writeFileSync(sealPath, `${JSON.stringify(seal)}\n`);
      if (fingerprint.maxCtimeNs < lstatSync(sealPath, { bigint: true }).ctimeNs || attempt >= 20)
        break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    this.#sealedNow.add(key);
    this.#evict(key);
    return { key, dir, folders };
  }

  /** Remove all but the newest {@link SETUP_CACHE_KEEP} entries (never `keep`). */
  #evict(keep: string): void {
    let names: string[];
    try {
      names = readdirSync(this.#dir);
    } catch {
      return;
    }
    const aged = names
      .filter((name) => name !== keep)
      .map((name) => {
        try {
          return { name, at: lstatSync(join(this.#dir, name)).mtimeMs };
        } catch {
          return { name, at: 0 };
        }
      })
      .sort((a, b) => b.at - a.at);
    for (const old of aged.slice(SETUP_CACHE_KEEP - 1)) {
      rmSync(join(this.#dir, old.name), { recursive: true, force: true });
    }
  }
}

function isSafeRelative(path: string): boolean {
  return (
    path !== "" &&
    !path.startsWith("/") &&
    path.split("/").every((part) => part !== "" && part !== "." && part !== "..")
  );
}
