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
 * Which part of the workspace outside the source scope an entry belongs to (issue 10):
 * - `ignored`: a file git ignores (`.gitignore`, `info/exclude`, the excludes file) or the
 *   configured `ignores` exclude, that is not at an output location;
 * - `output`: at an output location (`DEFAULT_OUTPUT_LOCATIONS` unless `default_outputs` is
 *   false, plus the configured `outputs`), never a tracked file;
 * - `harness`: a file in `.git/` that can change what git or a check does (`config`,
 *   `hooks/*`, `info/*`, anything foreign to git's own layout) or a file under the root's
 *   `.turngate/` that turngate did not write.
 */
export type OutsideScope = "ignored" | "output" | "harness";

/** Where a path lies: the source scope, or one of the {@link OutsideScope}s. */
export type PathScope = "source" | OutsideScope;

/**
 * The observed state of one path outside the source scope: its {@link EntryState} plus
 * `scope` and `hashed`.
 *
 * `hashed` false (stat-only): `content_digest` is `""` and the entry stands for its `lstat`
 * identity only. The observer records an ignored or output file stat-only when it first
 * meets it in a baseline and its stat is not racy (so 100,000 files in `node_modules/` are
 * never read); any later observation in which its stat differs, and every file first met
 * after the baseline, is hashed, so a change always carries the SHA-256 of the bytes.
 * Harness entries are always hashed. Two entries of which one is stat-only are compared by
 * kind, size, mtime, ctime, inode and mode; two hashed ones like source entries.
 */
export interface OutsideEntry extends EntryState {
  scope: OutsideScope;
  hashed: boolean;
}

/**
 * A full observation of a workspace.
 *
 * - `root`: absolute path of the observed directory.
 * - `taken_at_ms`: wall-clock time (ms since the epoch) taken before anything was listed;
 *   every stat in the snapshot was taken at or after it.
 * - `git`: true when the listing came from git (tracked + untracked-not-ignored files).
 * - `entries`: the source scope (tracked files + untracked files that are not ignored and
 *   not at an output location): relative NFC `/`-separated path → state, for regular files
 *   and symlinks.
 * - `outside`: the paths outside the source scope that the observer follows (ignored,
 *   output and harness files, see {@link OutsideEntry}); never shares a key with `entries`.
 * - `unreadable`: sorted paths that exist but could not be observed (permission errors,
 *   special files such as FIFOs, names that collide after NFC normalisation, nested
 *   listings that failed). Non-empty means the snapshot is incomplete.
 * - `unreadable_reasons`: for some unreadable paths, why (set by the ignore-rule guard, e.g.
 *   `.` when the baseline has no ignore-rule record); absent when there is none.
 * - `ignore_state`: only on a git-mode `baseline()`: the ignore rules it was taken under,
 *   so later observations can find files hidden by rules changed since
 *   ({@link IgnoreState}).
 * - `unlisted_by_git`: only on a git-mode observation against a baseline, never serialised:
 *   the keys the ignore-rule guard brought back that git's own listing did not produce and
 *   that exist (files that became ignored, or that changed rules hide; folders end in `/`).
 *   Non-empty means the source scope here is
 *   wider than git's, so a git tree cannot be derived from the changes alone.
 * - `listed_by_git`: only when the observer has `@turngate/native` and its in-process git
 *   listing left the root repository to git (never serialised): why, as a sentence for the
 *   turn's notes (issue 33: a fallback is never silent).
 */
export interface WorkspaceSnapshot {
  root: string;
  taken_at_ms: number;
  git: boolean;
  entries: Map<string, EntryState>;
  outside: Map<string, OutsideEntry>;
  unreadable: string[];
  unreadable_reasons?: Record<string, string>;
  ignore_state?: IgnoreState;
  unlisted_by_git?: string[];
  listed_by_git?: string;
}

/** Schema id written into serialised snapshots. */
export const WORKSPACE_SNAPSHOT_SCHEMA = "turngate.workspace_snapshot.v1";

/** One serialised entry: the path plus its {@link EntryState} fields. */
export interface SerializedEntry extends EntryState {
  path: string;
}

/** One serialised outside-scope entry: the path plus its {@link OutsideEntry} fields. */
export interface SerializedOutsideEntry extends OutsideEntry {
  path: string;
}

/**
 * JSON form of a {@link WorkspaceSnapshot}: entries and outside entries as arrays sorted by
 * path; `unreadable_reasons` and `ignore_state` only when the snapshot has them. A stored
 * snapshot without `outside` (written before issue 10) reads back with none.
 */
export interface SerializedSnapshot {
  schema: typeof WORKSPACE_SNAPSHOT_SCHEMA;
  root: string;
  taken_at_ms: number;
  git: boolean;
  entries: SerializedEntry[];
  outside: SerializedOutsideEntry[];
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
    outside: [...snapshot.outside.keys()].sort(compareCodeUnits).map((path) => {
      const e = snapshot.outside.get(path) as OutsideEntry;
      return {
        path,
        kind: e.kind,
        content_digest: e.content_digest,
        size: e.size,
        mtime_ms: e.mtime_ms,
        ctime_ms: e.ctime_ms,
        ino: e.ino,
        mode: e.mode,
        scope: e.scope,
        hashed: e.hashed,
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
    const path = entryPath(e, at, entries);
    entries.set(path, entryState(e, at, true));
  });
  const outside = new Map<string, OutsideEntry>();
  if (obj.outside !== undefined) {
    if (!Array.isArray(obj.outside)) throw invalid("outside", "must be an array");
    obj.outside.forEach((raw: unknown, i: number) => {
      const at = `outside[${i}]`;
      const e = expectObject(raw, at);
      const path = entryPath(e, at, outside);
      if (entries.has(path)) throw invalid(`${at}.path`, `"${path}" is also a source entry`);
      if (e.scope !== "ignored" && e.scope !== "output" && e.scope !== "harness") {
        throw invalid(`${at}.scope`, 'must be "ignored", "output" or "harness"');
      }
      if (typeof e.hashed !== "boolean") throw invalid(`${at}.hashed`, "must be a boolean");
      if (!e.hashed && e.content_digest !== "") {
        throw invalid(`${at}.content_digest`, 'must be "" when hashed is false');
      }
      outside.set(path, { ...entryState(e, at, e.hashed), scope: e.scope, hashed: e.hashed });
    });
  }
  const unreadable = obj.unreadable.map((p: unknown, i: number) =>
    expectString(p, `unreadable[${i}]`),
  );
  const snapshot: WorkspaceSnapshot = {
    root,
    taken_at_ms: takenAt,
    git: obj.git,
    entries,
    outside,
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

function entryPath(
  e: Record<string, unknown>,
  at: string,
  seen: ReadonlyMap<string, unknown>,
): string {
  const path = expectString(e.path, `${at}.path`);
  if (path === "" || path.startsWith("/")) throw invalid(`${at}.path`, "must be relative");
  if (seen.has(path)) throw invalid(`${at}.path`, `duplicate path "${path}"`);
  return path;
}

/** The {@link EntryState} fields of a serialised entry; `hashed` false allows digest `""`. */
function entryState(e: Record<string, unknown>, at: string, hashed: boolean): EntryState {
  if (e.kind !== "file" && e.kind !== "symlink") {
    throw invalid(`${at}.kind`, 'must be "file" or "symlink"');
  }
  const digest = expectString(e.content_digest, `${at}.content_digest`);
  if (hashed && !/^[0-9a-f]{64}$/.test(digest)) {
    throw invalid(`${at}.content_digest`, "must be 64 lowercase hex characters");
  }
  return {
    kind: e.kind,
    content_digest: digest,
    size: expectNumber(e.size, `${at}.size`),
    mtime_ms: expectNumber(e.mtime_ms, `${at}.mtime_ms`),
    ctime_ms: expectNumber(e.ctime_ms, `${at}.ctime_ms`),
    ino: expectNumber(e.ino, `${at}.ino`),
    mode: expectNumber(e.mode, `${at}.mode`),
  };
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
