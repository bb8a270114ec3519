/**
 * The file-hash snapshot shape (harn-verification.md §2.1). Captured by
 * `fileHashSnapshot` in @turngate/node; declared here so pure code (staleness, classify,
 * gate input) and the bridge share one type.
 */

/** Most paths one snapshot call accepts (Harn's host limit, §3.8). */
export const FILE_HASH_SNAPSHOT_MAX_PATHS = 4096;

/** One `files` entry. Without a code index every entry has `known: false`. */
export interface FileHashSnapshotEntry {
  path: string;
  known: boolean;
  readable: boolean;
  hash: string | null;
  hash_source: "indexed" | "disk" | "missing";
  size: number | null;
  mtime_ms: number | null;
  indexed_hash: string | null;
  indexed_mtime_ms: number | null;
  last_edit_seq: number;
}

/** `{seq, captured_at_ms, algorithm, snapshot: {path: hash}, missing, files}`. */
export interface FileHashSnapshot {
  seq: number;
  captured_at_ms: number;
  algorithm: "fnv1a64" | "sha256";
  snapshot: Record<string, string>;
  missing: string[];
  files: FileHashSnapshotEntry[];
}
