import { harnEqual, isDict, sortCodePoints, unwrapSnapshot } from "./harn-values.js";

/** Wire shape of `snapshotStaleness` (`harn.verification.snapshot_staleness.v1`). */
export interface SnapshotStaleness {
  schema: "harn.verification.snapshot_staleness.v1";
  status: "unbound" | "bound_fresh" | "bound_stale";
  stale: boolean;
  fresh: boolean;
  /** Bound paths whose current hash differs or is unavailable, in byte order. */
  staleFiles: string[];
  /** Same list as `staleFiles` (Harn emits both spellings). */
  stale_files: string[];
  /** Same list again (Harn's third spelling). */
  changed_files: string[];
  advisory: boolean;
  reason: string;
}

export const SNAPSHOT_STALENESS_SCHEMA = "harn.verification.snapshot_staleness.v1";

/**
 * Compares a bound file-hash snapshot with the current hashes (harn-verification.md §1.2).
 *
 * Both arguments may be a direct `{path: hash}` map or a whole file-hash snapshot (its
 * `snapshot` key is used). A bound value that is not a non-empty map → `unbound`
 * (advisory). Otherwise each bound path (sorted by code point) is stale when the current
 * map is unavailable (not a map) or its value differs (a missing entry counts as `nil`);
 * any stale path → `bound_stale` (advisory), else `bound_fresh`.
 * Reasons: `snapshot superseded or unverifiable for <N> file(s); re-check before trusting`,
 * `snapshot matches current file hashes`, `diagnostic carries no file-hash snapshot binding`.
 * Pure; never throws.
 */
export function snapshotStaleness(
  boundSnapshot: unknown,
  currentHashes: unknown,
): SnapshotStaleness {
  const bound = unwrapSnapshot(boundSnapshot);
  if (!isDict(bound) || Object.keys(bound).length === 0) {
    return {
      schema: SNAPSHOT_STALENESS_SCHEMA,
      status: "unbound",
      stale: false,
      fresh: false,
      staleFiles: [],
      stale_files: [],
      changed_files: [],
      advisory: true,
      reason: "diagnostic carries no file-hash snapshot binding",
    };
  }
  const current = unwrapSnapshot(currentHashes);
  const available = isDict(current);
  const staleFiles: string[] = [];
  for (const path of sortCodePoints(Object.keys(bound))) {
    if (!available || !harnEqual(current[path], bound[path])) staleFiles.push(path);
  }
  const stale = staleFiles.length > 0;
  return {
    schema: SNAPSHOT_STALENESS_SCHEMA,
    status: stale ? "bound_stale" : "bound_fresh",
    stale,
    fresh: !stale,
    staleFiles,
    stale_files: [...staleFiles],
    changed_files: [...staleFiles],
    advisory: stale,
    reason: stale
      ? `snapshot superseded or unverifiable for ${staleFiles.length} file(s); re-check before trusting`
      : "snapshot matches current file hashes",
  };
}
