import { WorkspaceObserverError } from "./errors.js";
import { type IgnoreState, parseIgnoreState } from "./ignore/ignore-state.js";

/** What kind of filesystem object a snapshot entry is. Directories are never entries. */
export type EntryKind = "file" | "symlink";

/**
 * The observed state of one workspace path.
 *
 * - `content_digest`: lowercase hex SHA-256 of the file bytes, or of the symlink's link text
 *   (its raw bytes, as `readlink` returns them; the target is never read).
 * - `size` (bytes), `mtime_ms`, `ctime_ms` (ms since the epoch, fractional), `ino`, `mode`
 *   (the full `st_mode`, type and permission bits): the `lstat` identity the stat cache
 *   compares. `ino` is a JS number (exact below 2^53).
 */
export interface EntryState {
  kind: EntryKind;
  content_digest: string;
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
  mode: number;
}

/**
 * A full observation of a workspace.
 *
 * - `root`: absolute path of the observed directory.
 * - `taken_at_ms`: wall-clock time (ms since the epoch) taken before anything was listed;
 *   every stat in the snapshot was taken at or after it.
 * - `git`: true when the listing came from git (tracked + untracked-not-ignored files).
 * - `entries`: relative NFC `/`-separated path → state, for regular files and symlinks.
 * - `unreadable`: sorted paths that exist but could not be observed (permission errors,
 *   special files such as FIFOs, names that collide after NFC normalisation, nested
 *   listings that failed). Non-empty means the snapshot is incomplete.
 * - `unreadable_reasons`: for some unreadable paths, why (set by the ignore-rule guard, e.g.
 *   `.` when the baseline has no ignore-rule record); absent when there is none.
 * - `ignore_state`: only on a git-mode `baseline()`: the ignore rules it was taken under,
 *   so later observations can find files hidden by rules changed since
 *   ({@link IgnoreState}).
 */
export interface WorkspaceSnapshot {
  root: string;
  taken_at_ms: number;
  git: boolean;
  entries: Map<string, EntryState>;
  unreadable: string[];
  unreadable_reasons?: Record<string, string>;
  ignore_state?: IgnoreState;
}

/** Schema id written into serialised snapshots. */
export const WORKSPACE_SNAPSHOT_SCHEMA = "turngate.workspace_snapshot.v1";

/** One serialised entry: the path plus its {@link EntryState} fields. */
export interface SerializedEntry extends EntryState {
  path: string;
}

/**
 * JSON form of a {@link WorkspaceSnapshot}: entries as an array sorted by path;
 * `unreadable_reasons` and `ignore_state` only when the snapshot has them.
 */
export interface SerializedSnapshot {
  schema: typeof WORKSPACE_SNAPSHOT_SCHEMA;
  root: string;
  taken_at_ms: number;
  git: boolean;
  entries: SerializedEntry[];
  unreadable: string[];
  unreadable_reasons?: Record<string, string>;
  ignore_state?: IgnoreState;
}

/**
 * Converts a snapshot to a plain JSON-safe object (entries sorted by path, by UTF-16 code
 * units) so `turngate baseline` can store it under `.turngate/`. Never throws.
 */
export function serializeSnapshot(snapshot: WorkspaceSnapshot): SerializedSnapshot {
  const paths = [...snapshot.entries.keys()].sort(compareCodeUnits);
  const out: SerializedSnapshot = {
    schema: WORKSPACE_SNAPSHOT_SCHEMA,
    root: snapshot.root,
    taken_at_ms: snapshot.taken_at_ms,
    git: snapshot.git,
    entries: paths.map((path) => {
      const e = snapshot.entries.get(path) as EntryState;
      return {
        path,
        kind: e.kind,
        content_digest: e.content_digest,
        size: e.size,
        mtime_ms: e.mtime_ms,
        ctime_ms: e.ctime_ms,
        ino: e.ino,
        mode: e.mode,
      };
    }),
    unreadable: [...snapshot.unreadable].sort(compareCodeUnits),
  };
  if (snapshot.unreadable_reasons !== undefined) {
    out.unreadable_reasons = { ...snapshot.unreadable_reasons };
  }
  if (snapshot.ignore_state !== undefined)
    out.ignore_state = structuredClone(snapshot.ignore_state);
  return out;
}

/**
 * Parses the output of {@link serializeSnapshot} (already `JSON.parse`d) back into a
 * snapshot. Throws {@link WorkspaceObserverError} with code `invalid_snapshot` and `field`
 * set to the offending JSON path (e.g. `entries[2].content_digest`,
 * `ignore_state.repos[0].sources[1].path`) on any shape error, wrong schema id, duplicate
 * path, or a `.gitignore` source path that could name a file outside its repository.
 */
export function deserializeSnapshot(value: unknown): WorkspaceSnapshot {
  const obj = expectObject(value, "");
  if (obj.schema !== WORKSPACE_SNAPSHOT_SCHEMA) {
    throw invalid("schema", `must be "${WORKSPACE_SNAPSHOT_SCHEMA}"`);
  }
  const root = expectString(obj.root, "root");
  const takenAt = expectNumber(obj.taken_at_ms, "taken_at_ms");
  if (typeof obj.git !== "boolean") throw invalid("git", "must be a boolean");
  if (!Array.isArray(obj.entries)) throw invalid("entries", "must be an array");
  if (!Array.isArray(obj.unreadable)) throw invalid("unreadable", "must be an array");
  const entries = new Map<string, EntryState>();
  obj.entries.forEach((raw: unknown, i: number) => {
    const at = `entries[${i}]`;
    const e = expectObject(raw, at);
    const path = expectString(e.path, `${at}.path`);
    if (path === "" || path.startsWith("/")) throw invalid(`${at}.path`, "must be relative");
    if (entries.has(path)) throw invalid(`${at}.path`, `duplicate path "${path}"`);
    if (e.kind !== "file" && e.kind !== "symlink") {
      throw invalid(`${at}.kind`, 'must be "file" or "symlink"');
    }
    const digest = expectString(e.content_digest, `${at}.content_digest`);
    if (!/^[0-9a-f]{64}$/.test(digest)) {
      throw invalid(`${at}.content_digest`, "must be 64 lowercase hex characters");
    }
    entries.set(path, {
      kind: e.kind,
      content_digest: digest,
      size: expectNumber(e.size, `${at}.size`),
      mtime_ms: expectNumber(e.mtime_ms, `${at}.mtime_ms`),
      ctime_ms: expectNumber(e.ctime_ms, `${at}.ctime_ms`),
      ino: expectNumber(e.ino, `${at}.ino`),
      mode: expectNumber(e.mode, `${at}.mode`),
    });
  });
  const unreadable = obj.unreadable.map((p: unknown, i: number) =>
    expectString(p, `unreadable[${i}]`),
  );
  const snapshot: WorkspaceSnapshot = {
    root,
    taken_at_ms: takenAt,
    git: obj.git,
    entries,
    unreadable,
  };
  if (obj.unreadable_reasons !== undefined) {
    const reasons = expectObject(obj.unreadable_reasons, "unreadable_reasons");
    snapshot.unreadable_reasons = Object.fromEntries(
      Object.entries(reasons).map(([path, reason]) => [
        path,
        expectString(reason, `unreadable_reasons.${path}`),
      ]),
    );
  }
  if (obj.ignore_state !== undefined) {
    snapshot.ignore_state = parseIgnoreState(obj.ignore_state, "ignore_state");
  }
  return snapshot;
}

/** Orders strings by UTF-16 code units (the order `Array.prototype.sort` uses by default). */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function invalid(field: string, message: string): WorkspaceObserverError {
  const where = field === "" ? "snapshot" : `snapshot.${field}`;
  return new WorkspaceObserverError(
    "invalid_snapshot",
    `${where}: ${message}`,
    field || "snapshot",
  );
}

function expectObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(field, "must be an object");
  }
  return value as Record<string, unknown>;
}

function expectString(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalid(field, "must be a string");
  return value;
}

function expectNumber(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw invalid(field, "must be a finite number");
  }
  return value;
}
