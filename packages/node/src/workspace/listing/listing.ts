import { sep } from "node:path";
import { isAscii, normalizeRelativePath } from "../paths.js";

/** A path found by a listing: its snapshot key and the relative path to use on disk. */
export interface ListedPath {
  /** Normalised key: relative, `/`-separated, NFC. */
  key: string;
  /** Relative path exactly as it is named on disk (may be NFD). */
  fsPath: string;
  /** True when `fsPath` is ASCII and already its own key: no other name can share it. */
  plain: boolean;
}

/**
 * Builds a {@link ListedPath} from an on-disk relative path; the key is
 * `normalizeRelativePath(fsPath)`.
 */
export function listedPath(fsPath: string): ListedPath {
  // Fast path for the common case: an ASCII name with nothing to normalise.
  if (isAscii(fsPath) && !fsPath.startsWith("./") && (sep === "/" || !fsPath.includes("\\"))) {
    return { key: fsPath, fsPath, plain: true };
  }
  const key = normalizeRelativePath(fsPath);
  return { key, fsPath, plain: false };
}

/**
 * The output of one listing pass.
 * - `paths`: candidates for entries (regular files, symlinks, or objects the stat phase
 *   will classify).
 * - `directories`: directories to list separately (nested git repositories, submodules).
 * - `unreadable`: keys that could not be listed (directory read errors, undecodable names).
 * - `untracked`: git listings only: the keys of `paths` that git does not track (only they
 *   can lie at an output location); absent for walks (nothing is tracked there).
 */
export interface Listing {
  paths: ListedPath[];
  directories: ListedPath[];
  unreadable: string[];
  untracked?: string[];
}

/** Decides whether a normalised key is excluded; `isDir` for directory keys (walk only). */
export type PathFilter = (key: string, isDir: boolean) => boolean;

/** Joins two relative paths with `/`, treating `""` as the root. */
export function joinRelative(parent: string, child: string): string {
  return parent === "" ? child : `${parent}/${child}`;
}
