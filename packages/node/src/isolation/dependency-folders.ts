import { type Dirent, lstatSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { RoomMount } from "./sandbox.js";

/**
 * Dependency folders in the clean room (docs/design.md §3b, "Dependency folders"): the
 * ignored folders the tests need (`node_modules/`, a virtualenv) are visible to the checks
 * from where they are **only when the agent did not change them during the turn** (no
 * ledger row below them). Their bytes are read-only. The folder itself becomes a private
 * tmpfs holding a read-only bind (or the same symlink) of each of its entries, so what a
 * tool writes at the top of it (`node_modules/.cache`, `node_modules/.vite`) lands in a
 * scratch layer that is discarded with the check and never goes back. A changed folder is
 * not visible at all: agent-written ignored files never reach the checks.
 */

/** Names of dependency folders, looked for in the root and in every folder of the source scope. */
export const DEPENDENCY_DIR_NAMES: readonly string[] = Object.freeze([
  "node_modules",
  ".venv",
  "venv",
]);

/** A dependency folder found in the workspace and whether the checks may see it. */
export interface DependencyFolder {
  /** Relative `/` path of the folder. */
  path: string;
  /** False when a ledger row lies below it (the agent changed it during the turn). */
  visible: boolean;
  /**
   * Where its bytes are read from on the host when not the workspace: the folder of a
   * sealed setup result (`room-setup.ts`). Such a folder is shown even when not `visible`.
   */
  src?: string;
}

/**
 * Find the dependency folders of `workspace`: {@link DEPENDENCY_DIR_NAMES} in the root and
 * in every folder that holds a source-scope entry (`entries`' parents), real folders only
 * (a symlink named `node_modules` is not followed). `changed` are the turn's ledger paths.
 * Output: sorted by path; a folder inside another found folder is left out.
 */
export function findDependencyFolders(
  workspace: string,
  entries: Iterable<string>,
  changed: Iterable<string>,
): DependencyFolder[] {
  const parents = new Set<string>([""]);
  for (const path of entries) {
    let slash = path.indexOf("/");
    while (slash >= 0) {
      parents.add(path.slice(0, slash));
      slash = path.indexOf("/", slash + 1);
    }
  }
  const found: string[] = [];
  for (const parent of parents) {
    for (const name of DEPENDENCY_DIR_NAMES) {
      const rel = parent === "" ? name : `${parent}/${name}`;
      try {
        if (lstatSync(join(workspace, rel)).isDirectory()) found.push(rel);
      } catch {
        // not there
      }
    }
  }
  found.sort();
  const outer = found.filter((dir) => !found.some((o) => o !== dir && dir.startsWith(`${o}/`)));
  const changedPaths = [...changed];
  return outer.map((path) => ({
    path,
    visible: !changedPaths.some((p) => p === path || p.startsWith(`${path}/`)),
  }));
}

/**
 * The room mounts that show the visible `folders` (see the module docs): a tmpfs at each,
 * then each entry of the real folder bound read-only (a symlink recreated with its text).
 * `workspace` is where the room is mounted and where the real folders are read, except a
 * folder with `src` (a setup result), which is read from `src` and shown even when the
 * workspace's folder is not visible.
 * Errors: none (an entry that vanished is left out).
 */
export function dependencyMounts(
  workspace: string,
  folders: readonly DependencyFolder[],
): RoomMount[] {
  const mounts: RoomMount[] = [];
  for (const folder of folders) {
    if (!folder.visible && folder.src === undefined) continue;
    const dir = join(workspace, folder.path);
    const from = folder.src ?? dir;
    let children: Dirent[];
    try {
      children = readdirSync(from, { withFileTypes: true });
    } catch {
      continue;
    }
    mounts.push({ op: "tmpfs", dest: dir });
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const abs = join(dir, child.name);
      const src = join(from, child.name);
      if (child.isSymbolicLink()) {
        try {
          mounts.push({ op: "symlink", target: readlinkSync(src), dest: abs });
        } catch {
          // vanished
        }
      } else if (child.isDirectory() || child.isFile()) {
        mounts.push({ op: "ro-bind", src, dest: abs });
      }
    }
  }
  return mounts;
}

/**
 * Dependency lockfiles that are shown like dependency folders when the project ignores
 * them: a library crate's `.gitignore` usually names `Cargo.lock`, so it is not in the
 * source scope, yet cargo without it resolves every dependency, optional ones included,
 * against the registry index, which the sandbox's network does not reach. The file the
 * developer resolved is what an in-place check uses; the clean room shows it read-only.
 */
export const DEPENDENCY_FILE_NAMES: readonly string[] = Object.freeze(["Cargo.lock"]);

/**
 * Find the ignored dependency lockfiles of `workspace` ({@link DEPENDENCY_FILE_NAMES}) in
 * the root and in every folder that holds a source-scope entry: regular files only (never
 * a symlink), and only those **not** in the source scope (`entries`; a tracked lockfile is
 * in the room already). `changed` are the turn's ledger paths: a lockfile with a row (the
 * agent wrote it during the turn) is found but not visible. Output: sorted by path.
 */
export function findDependencyFiles(
  workspace: string,
  entries: Iterable<string>,
  changed: Iterable<string>,
): DependencyFolder[] {
  const scope = new Set<string>();
  const parents = new Set<string>([""]);
  for (const path of entries) {
    scope.add(path);
    let slash = path.indexOf("/");
    while (slash >= 0) {
      parents.add(path.slice(0, slash));
      slash = path.indexOf("/", slash + 1);
    }
  }
  const changedPaths = new Set(changed);
  const found: DependencyFolder[] = [];
  for (const parent of parents) {
    for (const name of DEPENDENCY_FILE_NAMES) {
      const rel = parent === "" ? name : `${parent}/${name}`;
      if (scope.has(rel)) continue;
      try {
        if (!lstatSync(join(workspace, rel)).isFile()) continue;
      } catch {
        continue;
      }
      found.push({ path: rel, visible: !changedPaths.has(rel) });
    }
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Read-only binds of the visible `files` (from {@link findDependencyFiles}) at their own paths under `workspace`. */
export function dependencyFileMounts(
  workspace: string,
  files: readonly DependencyFolder[],
): RoomMount[] {
  return files
    .filter((file) => file.visible)
    .map((file) => ({
      op: "ro-bind" as const,
      src: join(workspace, file.path),
      dest: join(workspace, file.path),
    }));
}
