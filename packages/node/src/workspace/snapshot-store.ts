import { realpathSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { writeFileAtomic } from "../fs/atomic.js";
import { turngateCacheHome } from "../fs/cache-home.js";
import { WorkspaceObserverError } from "./errors.js";
import { sha256Hex } from "./hash/digest.js";
import {
  deserializeSnapshot,
  type SerializedSnapshot,
  serializeSnapshot,
  type WorkspaceSnapshot,
} from "./snapshot.js";
import { decodeSnapshotEntries, encodeSnapshotEntries } from "./snapshot-entries.js";

/** Where a stored snapshot's entries are: a file `<sha256>.bin` of the store's folder. */
export interface EntriesFileRef {
  /** SHA-256 hex of the file's bytes (also its name, with `.bin`). */
  sha256: string;
  /** The number of source entries and outside entries it holds. */
  entries: number;
  outside: number;
}

/** A {@link SerializedSnapshot} whose entries live in a file of a snapshot store. */
export type StoredSnapshot = SerializedSnapshot & { entries_file?: EntriesFileRef };

/**
 * Where the entries files of the state folder `stateDir` go (`kind`: a baseline's or a turn
 * chain's): `$TURNGATE_SNAPSHOT_DIR` when it is an absolute path, else the user's cache
 * folder (`$XDG_CACHE_HOME`, else `~/.cache`) `/turngate/snapshots`, then the first 16 hex
 * characters of the SHA-256 of the state folder's real path, then `kind`. Outside the
 * workspace: nothing turngate keeps there for itself can hide code a check loads from the
 * workspace, and no content-addressed name has to be trusted by the observer. Never throws.
 */
export function snapshotStoreDir(
  stateDir: string,
  kind: "baseline" | "chain",
  env: NodeJS.ProcessEnv = process.env,
): string {
  let real: string;
  try {
    real = realpathSync(stateDir);
  } catch {
    real = resolve(stateDir);
  }
  const configured = env.TURNGATE_SNAPSHOT_DIR;
  const base =
    configured !== undefined && isAbsolute(configured)
      ? configured
      : join(turngateCacheHome(env), "snapshots");
  return join(base, sha256Hex(real).slice(0, 16), kind);
}

/**
 * Stores `snapshot` for a baseline or turn chain file (issue 33 item 3, docs/design.md §3b "Gapless turns"): its entries go to
 * `<dir>/<sha256>.bin` in the binary form of `snapshot-entries.ts` (written atomically, and
 * not written again when a file of that digest is already there: content-addressed), and
 * the JSON form returned holds everything else plus `entries_file` (the digest and counts),
 * with empty `entries` and `outside`. The record's own integrity (a baseline id) thereby
 * covers the entries too. Errors: `fs` errors creating `dir` or writing the file;
 * `WorkspaceObserverError` `invalid_snapshot` from the encoder.
 */
export async function storeSnapshot(
  dir: string,
  snapshot: WorkspaceSnapshot,
): Promise<StoredSnapshot> {
  const bytes = encodeSnapshotEntries(snapshot);
  const sha256 = sha256Hex(bytes);
  const file = join(dir, `${sha256}.bin`);
  const present = await stat(file).then(
    (s) => s.size === bytes.length,
    () => false,
  );
  if (!present) {
    await mkdir(dir, { recursive: true });
    await writeFileAtomic(file, bytes);
  }
  const head = serializeSnapshot({ ...snapshot, entries: new Map(), outside: new Map() });
  return {
    ...head,
    entries_file: { sha256, entries: snapshot.entries.size, outside: snapshot.outside.size },
  };
}

/**
 * Reads a snapshot stored by {@link storeSnapshot} from its JSON form `value` (already
 * parsed) and the store folder `dir`; a JSON form with inline entries (written before the
 * store, or by the bridge) is read as `deserializeSnapshot` reads it. The entries file must
 * hash to the digest the record names and hold the counts it names. Errors:
 * `WorkspaceObserverError` `invalid_snapshot` with field `entries_file` (the file is missing,
 * altered or replaced: the message says to take a new baseline) or the field that is wrong.
 */
export async function loadSnapshot(dir: string, value: unknown): Promise<WorkspaceSnapshot> {
  const ref = entriesFileRef(value);
  if (ref === undefined) return deserializeSnapshot(value);
  const head = deserializeSnapshot(value);
  let bytes: Buffer;
  const file = join(dir, `${ref.sha256}.bin`);
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new WorkspaceObserverError(
      "invalid_snapshot",
      `snapshot.entries_file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}): it was removed; take a new baseline (turngate baseline)`,
      "entries_file",
    );
  }
  if (sha256Hex(bytes) !== ref.sha256) {
    throw new WorkspaceObserverError(
      "invalid_snapshot",
      `snapshot.entries_file: ${file} does not hash to the digest its record names: it was altered or replaced; take a new baseline (turngate baseline)`,
      "entries_file",
    );
  }
  const { entries, outside } = decodeSnapshotEntries(bytes);
  if (entries.size !== ref.entries || outside.size !== ref.outside) {
    throw new WorkspaceObserverError(
      "invalid_snapshot",
      `snapshot.entries_file: ${file} holds ${entries.size} entries and ${outside.size} outside entries, its record names ${ref.entries} and ${ref.outside}`,
      "entries_file",
    );
  }
  return { ...head, entries, outside };
}

/**
 * Removes the entries files of `dir` that `keep` (digests) does not name, after a new
 * record was written: a store holds the files its current records name. A file that cannot
 * be removed is left. Never throws.
 */
export async function pruneSnapshots(dir: string, keep: readonly string[]): Promise<void> {
  const kept = new Set(keep.map((sha256) => `${sha256}.bin`));
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  await Promise.all(
    names
      .filter((name) => name.endsWith(".bin") && !kept.has(name))
      .map((name) => rm(join(dir, name), { force: true }).catch(() => undefined)),
  );
}

/** The `entries_file` of a stored snapshot's JSON form, checked; undefined when absent. */
function entriesFileRef(value: unknown): EntriesFileRef | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const raw = (value as { entries_file?: unknown }).entries_file;
  if (raw === undefined) return undefined;
  const bad = (field: string, message: string) =>
    new WorkspaceObserverError(
      "invalid_snapshot",
      `snapshot.entries_file.${field}: ${message}`,
      `entries_file.${field}`,
    );
  if (typeof raw !== "object" || raw === null) throw bad("", "must be an object");
  const ref = raw as Record<string, unknown>;
  if (typeof ref.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(ref.sha256)) {
    throw bad("sha256", "must be 64 lowercase hex characters");
  }
  for (const field of ["entries", "outside"] as const) {
    const n = ref[field];
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
      throw bad(field, "must be a non-negative integer");
    }
  }
  const inline = value as { entries?: unknown; outside?: unknown };
  if (
    (Array.isArray(inline.entries) && inline.entries.length > 0) ||
    (Array.isArray(inline.outside) && inline.outside.length > 0)
  ) {
    throw bad("", "a snapshot with an entries file must not hold entries inline");
  }
  return { sha256: ref.sha256, entries: ref.entries as number, outside: ref.outside as number };
}
