import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { mapBounded } from "../concurrency.js";
import { isHarnessEntry, normalizeRelativePath } from "../paths.js";
import { joinRelative, type Listing, listedPath, type PathFilter } from "./listing.js";

/** Directories read at once by the walk. */
export const WALK_CONCURRENCY = 64;

/**
 * Walks `root/dirFsPath` recursively without following symlinks, for workspaces outside
 * git. Skips `.git` at any depth, `.turngate`, `.a3s`, `.a3s-code` directly below the
 * workspace root ({@link isHarnessEntry}; `dirFsPath` is relative to that root), and
 * anything the configured-ignores filter excludes (directories are tested as `dir/`, so
 * gitignore-style `build/` patterns prune the whole subtree). There is no entry cap.
 *
 * Output: every non-directory object as a listed path (the stat phase classifies it);
 * directories that cannot be read are reported as unreadable by key. Never throws.
 */
export async function walkPaths(
  root: string,
  dirFsPath: string,
  isIgnored: PathFilter,
): Promise<Listing> {
  const listing: Listing = { paths: [], directories: [], unreadable: [] };
  let level = [dirFsPath];
  while (level.length > 0) {
    const next: string[] = [];
    await mapBounded(level, WALK_CONCURRENCY, async (dir) => {
      let dirents: Dirent[];
      try {
        dirents = await readdir(dir === "" ? root : join(root, dir), { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // removed meanwhile
        listing.unreadable.push(normalizeRelativePath(dir === "" ? "." : dir));
        return;
      }
      for (const dirent of dirents) {
        if (isHarnessEntry(dir, dirent.name)) continue;
        const item = listedPath(joinRelative(dir, dirent.name));
        if (dirent.isDirectory()) {
          if (!isIgnored(item.key, true)) next.push(item.fsPath);
        } else if (!isIgnored(item.key, false)) {
          listing.paths.push(item);
        }
      }
    });
    level = next;
  }
  return listing;
}
