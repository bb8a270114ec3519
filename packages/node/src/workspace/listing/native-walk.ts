import type { NativeAddon } from "../../native/select.js";
import { normalizeRelativePath } from "../paths.js";
import { type Listing, listedPath, type PathFilter } from "./listing.js";

/**
 * {@link walkPaths} on `@turngate/native` (issue 17): the addon reads each level's
 * directories in parallel and asks `isIgnored` (with the NFC key, as the TypeScript walk
 * does) about every entry before it descends, so the listing is the same: the harness rule,
 * ignored directories never read, unreadable directories by key, vanished ones skipped.
 * Never throws (a failing walk falls back to `fallback`).
 */
export async function nativeWalkPaths(
  addon: NativeAddon,
  root: string,
  dirFsPath: string,
  isIgnored: PathFilter,
  fallback: () => Promise<Listing>,
): Promise<Listing> {
  let result: Awaited<ReturnType<NativeAddon["statTree"]>>;
  try {
    result = await addon.statTree(root, {
      walk: {
        dir: dirFsPath,
        stat: false,
        filter: (fsPath, isDir) => isIgnored(listedPath(fsPath).key, isDir),
      },
    });
  } catch {
    return fallback();
  }
  return {
    paths: result.paths.map(listedPath),
    directories: [],
    unreadable: result.unreadable.map((dir) => normalizeRelativePath(dir)),
  };
}
