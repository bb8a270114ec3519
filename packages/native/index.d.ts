/**
 * turngate's native addon (napi-rs, built from source by `pnpm --filter @turngate/native
 * build`). Issue 10 "Child subreaper"; issue 17 the parallel observer and hasher
 * (`statTree`, `hashFiles`, `sha256Batch`, `fnv1a64Batch`, `sha256`, `sha256Concat`);
 * issue 33 the git listing read in-process with gitoxide (`gitListing`).
 *
 * Errors: a bad argument is a {@link NativeError} with code `ERR_TURNGATE_INVALID_ARG` and
 * `path` naming the field (`root`, `paths[3]`, `algorithm`, `inputs[0]`, `walk.filter`);
 * every function throws (or rejects with) code `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the
 * addon is absent. Per-path failures are data ({@link PathError}), never a thrown error.
 */

/** True when the `.node` build for this platform loaded; false otherwise (see `reason`). */
export declare const available: boolean;

/** Why the addon is unavailable (not built, other platform, load error); null when available. */
export declare const reason: string | null;

/** What `reapChild` found. */
export interface ReapResult {
  /** `reaped`: the child had ended and its zombie is gone; `running`: still alive; `not_child`: ECHILD. */
  state: "reaped" | "running" | "not_child";
  /** Exit code when the child exited normally. */
  exitCode?: number;
  /** Number of the signal that ended it, when one did. */
  signal?: number;
}

/**
 * `prctl(PR_SET_CHILD_SUBREAPER, on)` for this process: while on, orphaned descendants are
 * reparented to it instead of init. Output: the previous state.
 * Errors: code `ERR_TURNGATE_UNSUPPORTED` in the message off Linux; the OS error when prctl
 * fails; `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the addon is absent.
 */
export declare function setChildSubreaper(on: boolean): boolean;

/** Whether this process is a child subreaper (`PR_GET_CHILD_SUBREAPER`). Errors as `setChildSubreaper`. */
export declare function isChildSubreaper(): boolean;

/**
 * `waitpid(pid, WNOHANG)` for exactly `pid` (never -1, so libuv's children stay libuv's).
 * Errors: `pid` not a positive integer; `ERR_TURNGATE_UNSUPPORTED` off Unix;
 * `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the addon is absent.
 */
export declare function reapChild(pid: number): ReapResult;

/** The typed error of this package: `code` and the `path` (file or argument) it is about. */
export declare class NativeError extends Error {
  readonly code: string;
  readonly path: string | null;
}

/** Numbers per path in a stat record: kind, size (bytes), mtime_ms, ctime_ms, ino, mode. */
export declare const STAT_FIELDS: 6;

/** One path a call could not handle (returned as data, never thrown). */
export interface PathError {
  /** Index of the path in the input list (or in a walk's `paths`). */
  index: number;
  /** Node-style code: `ENOENT`, `EACCES`, `ELOOP`, `ENOTREGULAR` (not a regular file or symlink), `EUNKNOWN`. */
  code: string;
  /** The path as given (relative to the root). */
  path: string;
  /** e.g. `EACCES: permission denied, open 'src/a.txt'`. */
  message: string;
}

/**
 * Stat records of many paths. `records` holds {@link STAT_FIELDS} float64 per path: kind code
 * (0 absent — ENOENT/ENOTDIR, 1 file, 2 symlink, 3 directory, 4 FIFO/socket/device, 5 error),
 * size in bytes, mtime and ctime in ms since the epoch (exactly Node's `mtimeMs`/`ctimeMs`),
 * inode, `st_mode`. `nanos` holds mtime and ctime in ns since the epoch (2 per path).
 */
export interface StatTreeResult {
  /** Relative paths, in the order of the records (the input order, or the walk's order). */
  paths: string[];
  records: Float64Array;
  nanos: BigInt64Array;
  /** Paths whose lstat failed with something other than ENOENT/ENOTDIR (kind 5). */
  errors: PathError[];
  /** Walks only: directories that could not be read (relative, `.` for the start). */
  unreadable: string[];
}

/** Walk options of {@link statTree}. */
export interface WalkOptions {
  /** Directory to walk, relative to the root (default `""`: the root). */
  dir?: string;
  /**
   * The caller's ignore decision, asked on the JS thread for every entry that is not a
   * harness directory (`.git` anywhere; `.turngate`, `.a3s`, `.a3s-code` below the root),
   * with its path relative to the root as named on disk; `true` excludes it, and an
   * excluded directory is never read.
   */
  filter?: (path: string, isDir: boolean) => boolean;
  /** `lstat` the found paths (default true); false leaves `records` empty. */
  stat?: boolean;
}

/**
 * Parallel `lstat` (never following symlinks) of `root/path` for each relative path, or a
 * walk of `root/walk.dir` (symlinks never followed, directories read level by level in
 * parallel) that honours `walk.filter`. Input: an absolute `root`; relative paths without
 * `..` segments or NUL bytes. Output: see {@link StatTreeResult}. Rejects with
 * {@link NativeError} `ERR_TURNGATE_INVALID_ARG` for bad arguments, and with what the
 * filter throws.
 */
export declare function statTree(
  root: string,
  input: readonly string[] | { walk: WalkOptions },
): Promise<StatTreeResult>;

/** What {@link hashFiles} returns: one slot per input path, in order. */
export interface HashFilesResult {
  /** The digest (SHA-256: 64 lowercase hex; FNV-1a 64: unsigned decimal), `null` where it failed. */
  digests: Array<string | null>;
  /** {@link STAT_FIELDS} numbers per path: the fstat of the opened file (lstat of a symlink); zeros where it failed. */
  records: Float64Array;
  /** The paths that could not be hashed. */
  errors: PathError[];
}

/**
 * Parallel streaming hash (256 KiB reads) of `root/path` for each relative path, off the JS
 * thread: a regular file by its bytes, a symlink by its link text (`readlink` bytes; the
 * target is never opened); a directory, FIFO, socket or device is refused (`ENOTREGULAR`,
 * never blocking). `algorithm`: `sha256` (default, the CPU's SHA extensions where present)
 * or `fnv1a64` (Harn's content hash). Rejects only for bad arguments (NativeError).
 */
export declare function hashFiles(
  root: string,
  paths: readonly string[],
  options?: { algorithm?: "sha256" | "fnv1a64" },
): Promise<HashFilesResult>;

/** SHA-256 (lowercase 64-hex) of each input: a string as UTF-8 (a lone surrogate as U+FFFD), bytes as given. */
export declare function sha256Batch(inputs: ReadonlyArray<string | Uint8Array>): string[];

/** FNV-1a 64 (unsigned decimal, Harn §3.1) of each input, encoded as {@link sha256Batch}. */
export declare function fnv1a64Batch(inputs: ReadonlyArray<string | Uint8Array>): string[];

/** SHA-256 of one string's UTF-8 bytes (one call per content digest). */
export declare function sha256(text: string): string;

/** SHA-256 of the parts' UTF-8 bytes one after another (as if joined), in one call. */
export declare function sha256Concat(parts: readonly string[]): string;

/** What {@link ledgerDigest} returns. */
export interface LedgerDigestResult {
  /** Row indices in ledger order (by path, then tool, code-point order; stable). */
  order: Uint32Array;
  /** Lowercase 64-hex SHA-256 of the canonical ledger text; `""` for no rows. */
  digest: string;
}

/**
 * The mutation ledger's order and effect digest in one call (issue 17): sorts `rows` by
 * path, then tool (code-point order, stable), renders `tool|path|content_digest` rows with
 * `@turngate/core`'s escaping joined by `\n` and hashes the UTF-8 bytes: the same order and
 * digest as the pure path. The fields cross in strings of at most `options.chunkUnits`
 * UTF-16 units (default 2^27; tests lower it), so a ledger larger than V8's string cap
 * (2^29 − 24 units) is digested too. Throws {@link NativeError} `ERR_TURNGATE_INVALID_ARG`
 * (path `rows`, `rows[i].tool` / `.path` / `.content_digest`, or `options.chunkUnits`) for a
 * malformed argument.
 */
export declare function ledgerDigest(
  rows: ReadonlyArray<{ tool: string; path: string; content_digest: string }>,
  options?: { chunkUnits?: number },
): LedgerDigestResult;

/**
 * The stat-only fingerprints of the entries of `folder` (absolute, no NUL): a flat list
 * `[name, digest, name, digest, …]` of the first `max` entry names in JavaScript's default
 * sort order (UTF-16 code units; names decoded as Node's `readdirSync` decodes them), each
 * `lstat`ed at `folder/name` without following it (names whose `lstat` fails are left out)
 * and digested as `@turngate/node`'s user-file fingerprints do: lowercase hex SHA-256 of
 * `symlink:TARGET` for a symlink, else of `stat:TYPE:MODE:SIZE:MTIME_NS:CTIME_NS:INO` (TYPE
 * `f`, `d` or `o`). `[]` when the folder cannot be read. Synchronous.
 * Errors: {@link NativeError} `ERR_TURNGATE_INVALID_ARG` (path `folder` or `max`);
 * `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the addon is absent.
 */
export declare function statDigestListing(folder: string, max: number): string[];

/** A clean room's manifest entries (`@turngate/node`'s `isolation/room-manifest.ts`). */
export interface RoomRecorded {
  count: number;
  /** `count` × 72-byte records. */
  records: Buffer;
  /** The recorded paths, NUL-joined, in record order. */
  paths: Buffer;
}

/** What {@link roomProve} found about a clean room. */
export interface RoomProof {
  /**
   * One 72-byte record per entry, in the order of `entries`: the kept record (proven), a
   * new one (re-hashed), or zeros with kind 0 (to copy).
   */
  records: Buffer;
  /** Indices of the entries to copy from the workspace, ascending. */
  copy: number[];
  /**
   * Indices of the entries proven by re-hashing (racily clean, or not recorded), ascending:
   * their bytes are right, but turngate did not write them, so the caller updates its index.
   */
  rehashed: number[];
  /** Non-folders in the room not named as that kind by `entries` (any order). */
  extraFiles: string[];
  /** Folders in the room that hold no named entry, root `.git` excepted (any order). */
  extraDirs: string[];
  /** Recorded paths that `entries` no longer names (any order). */
  gone: string[];
  /**
   * The folder records of this proof, for the next one (`dirPaths.length` × 32 bytes:
   * inode u64, mtime ns i64, ctime ns i64, flags u32 with bit 0 = the folder held only named
   * entries and their folders, 4 zero bytes; little-endian).
   */
  dirRecords: Buffer;
  /** The folders of `dirRecords`, in order, room-relative (`""` the root). */
  dirPaths: string[];
  /**
   * Whether the entries' paths are `recorded`'s paths in the same order (the caller may keep
   * the recorded path block as it is).
   */
  aligned: boolean;
  /**
   * Indices of the entries this call copied from the workspace (given `early`), ascending:
   * their records are the copies'; they are in neither `copy` nor `rehashed`.
   */
  copied: number[];
  /**
   * Whether `copy` already holds the files whose owner-execute bit is not the snapshot's
   * (given `early`, whose `modes` say which); otherwise the caller checks.
   */
  modesChecked: boolean;
  /**
   * Whether the room's index holds every entry of `copied` as copied (asked with
   * `early.index`): the blobs and index entries were written after the early copies.
   */
  indexed: boolean;
}

/**
 * What {@link roomProve} needs to copy, while it `lstat`s the other entries, the entries the
 * room recorded at their own index with the same kind and other bytes (most turns'
 * changes): the workspace (absolute), every entry's `st_mode` in the order of `entries`,
 * and the mtime (whole seconds) the sync gives its copies.
 */
export interface RoomProveEarly {
  workspace: string;
  modes: ArrayLike<number>;
  mtimeS: number;
  /**
   * The room's `.git` is proven and ready (`room` holds a `.git` folder): write the early
   * copies' blobs and index entries too, as {@link roomIndexUpdate} would (`indexed`).
   */
  index?: boolean;
}

/**
 * {@link roomProve}'s entries given joined: `count` × (path, `file` | `symlink`, hex SHA-256),
 * NUL-separated (no array per entry; each field is checked natively, as in the array form).
 */
export interface RoomJoinedEntries {
  joined: string;
  count: number;
}

/** Folder records of an earlier {@link roomProve} (its `dirRecords` and `dirPaths`). */
export interface RoomDirRecords {
  records: Buffer;
  paths: readonly string[];
}

/**
 * Prove the clean room folder `room` (absolute) against a snapshot (docs/design.md §3b),
 * off the JavaScript thread: every entry `[path, "file" | "symlink", sha256 hex]` is
 * `lstat`ed in parallel and kept unread when its record in `recorded` matches kind, digest,
 * size, mtime, ctime, inode and mode and its ctime is before `stampNs` (ns); otherwise
 * re-hashed (kept when the bytes are the entry's) or listed to copy. The room is walked
 * through the folders holding named entries to list what it holds that `entries` does not
 * name; a folder whose record in `dirs` (the last proof's) says it held only named entries
 * and still has its inode, mtime and ctime, the ctime before `stampNs`, is not read (its
 * listing is known). A folder is recorded clean only when its ctime is before `freshNs` (a
 * stamp the caller wrote before this call; 0n: none is). A folder that cannot be listed is
 * an extra folder. Given `early`, the entries the room recorded at their own index with the
 * same kind and other bytes are copied from the workspace meanwhile (`roomCopy`'s rules,
 * stricter: the folders above are opened one by one without following a link and nothing is
 * made or replaced on the way; an entry whose room path holds another kind, or whose
 * folders are not all real folders, is left in `copy`). Nothing else is written. Rejects
 * with {@link NativeError} `ERR_TURNGATE_ROOM_SOURCE_CHANGED` (path = the entry) when an
 * early copy's workspace bytes are not its digest, an errno code when the room cannot be
 * written, and
 * `ERR_TURNGATE_INVALID_ARG` (path `root`, `recorded`, `records`, `paths`, `entries`,
 * `entries[i]`, `stampNs`, `dirs.records`, `dirs.paths`, `dirRecords`, `freshNs`,
 * `early.workspace`, `early.modes`, `early.mtimeS`, `prestat`);
 * `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the addon is absent. Given `prestat`
 * ({@link roomPrestat} of the same room and `recorded`), the recorded entries' stats are the
 * ones it took.
 */
export declare function roomProve(
  room: string,
  recorded: RoomRecorded,
  entries: ReadonlyArray<readonly [string, string, string]> | RoomJoinedEntries,
  stampNs: bigint,
  dirs?: RoomDirRecords,
  freshNs?: bigint,
  early?: RoomProveEarly,
  prestat?: RoomPrestat,
): Promise<RoomProof>;

/** The recorded paths' `lstat`s under way ({@link roomPrestat}), for one {@link roomProve}. */
export declare class RoomPrestat {
  private constructor();
  /**
   * Wait until the stats are taken (blocking the calling thread); returns how many recorded
   * paths they cover: the record's `count`, or 0 when the block was refused or a proof has
   * taken them already.
   */
  settle(): number;
}

/**
 * Begin `lstat`ing the recorded paths of `recorded` (its `paths` block, `count` of them) in
 * the clean room folder `room` (absolute) on a thread of their own, while the caller
 * encodes the snapshot's entries; {@link roomProve} given the handle (same room, same
 * `recorded`) takes these stats for the entries whose paths are recorded instead of taking
 * its own. The proof's rules are unchanged: a stat is only compared with its record (the
 * stats are as of this call, a few ms before the proof's own would be). A
 * handle serves one proof; one for another room or block is ignored (the proof stats
 * everything). A block that is not `count` valid relative paths is not read. Throws
 * {@link NativeError} `ERR_TURNGATE_INVALID_ARG` (path `root`, `recorded`);
 * `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the addon is absent. docs/design.md §3b.
 */
export declare function roomPrestat(room: string, recorded: RoomRecorded): RoomPrestat;

/** What {@link roomCopy} did. */
export interface RoomCopy {
  /** One 72-byte record per entry, in the order of `entries` (`room-manifest.ts`'s layout). */
  records: Buffer;
  /** The folders the call made, room-relative, in the order made. */
  created: string[];
}

/**
 * Copy snapshot entries `[path, "file" | "symlink", sha256 hex, mode]` from `workspace` into
 * the clean room folder `room` (both absolute) off the JavaScript thread, several at once
 * (docs/design.md §3b, "Clean room"): the folders above each are made real folders first,
 * walking from the room's root one name at a time without following a link (a file or link
 * in the way goes), then each copy works through its folder's descriptor (a folder swapped
 * for a link meanwhile fails it with `ELOOP`), whatever is at its name goes, a file is read through
 * one descriptor opened without following a link (a symlink by its link text) and its SHA-256
 * compared with the digest, then created `O_EXCL|O_NOFOLLOW` with `mode & 0o755` (less the
 * umask), written whole and given the mtime `mtimeS` (whole seconds). Each record is the
 * copy's `fstat` (a link's `lstat`) with kind and digest. Rejects with {@link NativeError}
 * `ERR_TURNGATE_ROOM_SOURCE_CHANGED` (path = the entry: its workspace bytes are not the
 * digest's, or it is gone or another kind), an errno code such as `ENOSPC` or `EACCES`
 * (path = the entry) when the room cannot be written, `ERR_TURNGATE_INVALID_ARG` (path
 * `root`, `entries`, `entries[i]`, `mtimeS`), `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the
 * addon is absent. On a rejection some entries may be copied already.
 */
export declare function roomCopy(
  workspace: string,
  room: string,
  entries: ReadonlyArray<readonly [string, string, string, number]>,
  mtimeS: number,
): Promise<RoomCopy>;

/** What {@link roomIndexUpdate} did. */
export interface RoomIndexUpdate {
  /** Loose objects written (blobs the room's object database did not hold). */
  objects: number;
  /** Entries in the index written. */
  entries: number;
}

/**
 * Update the index of the clean room's repository (`room` absolute, `room/.git` a folder)
 * in-process with gitoxide, off the JavaScript thread, as `git update-index --add --remove
 * --replace` would for `written` (room-relative `/` paths added or changed: each file or
 * symlink's blob is written as a loose object unless the object database holds it, and its
 * entry takes the room's `lstat`) after removing the entries of `gone` (paths no longer in
 * the room). A written path the room does not hold as a file or symlink loses its entry. The
 * index is written whole under `index.lock`, its tree and untracked caches invalidated.
 * Rejects with {@link NativeError} `ERR_TURNGATE_INVALID_ARG` (path `root`, `room`, `written`,
 * `written[i]`, `gone`, `gone[i]`), `ERR_TURNGATE_ROOM_GIT` (path `room`: the repository,
 * an object or the index could not be read or written; the message says which);
 * `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the addon is absent.
 */
export declare function roomIndexUpdate(
  room: string,
  written: readonly string[],
  gone: readonly string[],
): Promise<RoomIndexUpdate>;

/** Bits of a tracked entry's `flags` in a {@link GitListing}. */
export declare const GIT_LISTING_FLAGS: Readonly<{
  /** Skip-worktree (sparse checkout; `git ls-files -t` tags it `S`). */
  skipWorktree: 1;
  /** Added with `git add -N` (intent to add). */
  intentToAdd: 2;
  /** Unmerged: the index holds stages 1–3 for the path, collapsed to this entry. */
  unmerged: 4;
  /** Assume-unchanged (`git update-index --assume-unchanged`). */
  assumeValid: 8;
}>;

/** `u32` numbers per tracked entry in {@link GitListing}`.tracked.stats`. */
export declare const GIT_LISTING_STAT_FIELDS: 9;

/** Names of one part of a {@link GitListing}: raw bytes, each name followed by a NUL (as `git ls-files -z` prints them). */
export interface GitListingNames {
  count: number;
  /** `count` names, each followed by a NUL; not necessarily UTF-8. */
  names: Buffer;
}

/** One repository's listing, read in-process (see {@link gitListing}). */
export interface GitListing {
  /** The repository's object format: the length of each id (20 or 32 bytes). */
  objectFormat: "sha1" | "sha256";
  /** `root/dir` relative to the work tree's top, `/`-separated (`""` at the top). */
  prefix: string;
  /** The index's version (2, 3 or 4; 0 when there is no index file yet). */
  indexVersion: number;
  /** What the index held: 1 sparse directory entries (expanded), 2 an untracked cache, 4 fsmonitor data (neither used), 8 it was split (merged with its shared index). */
  indexFeatures: number;
  /**
   * The index's paths below the prefix, in index order, unmerged stages collapsed to one
   * entry (`git ls-files --cached`). Per entry: `modes` (0o100644, 0o100755, 0o120000
   * symlink, 0o160000 gitlink), `flags` ({@link GIT_LISTING_FLAGS}; the index file's, with
   * git's clearing of skip-worktree on present files in a sparse checkout), `ids` (the object id:
   * 20 or 32 bytes each; an unmerged path's "ours" stage, else its first) and `stats`
   * ({@link GIT_LISTING_STAT_FIELDS} numbers as the index stores them: ctime s, ctime ns,
   * mtime s, mtime ns, dev, ino, uid, gid, size in bytes truncated to 32 bits; zeros for
   * entries expanded from a sparse directory).
   */
  tracked: GitListingNames & {
    modes: Uint32Array;
    flags: Uint8Array;
    ids: Buffer;
    stats: Uint32Array;
  };
  /** Untracked files and symlinks no ignore rule matches, and untracked nested repositories as `dir/`, in byte order (`git ls-files --others --exclude-standard`). */
  untracked: GitListingNames;
  /**
   * Ignored files and symlinks, ignored directories as `dir/` (not listed inside), and an
   * untracked directory holding only ignored entries as `dir/` beside them, in byte order:
   * what `git ls-files --others --ignored --exclude-standard --directory` prints.
   */
  ignored: GitListingNames;
}

/** Why {@link gitListing} left a repository to git: run git instead and record `reason`. */
export interface GitListingFallback {
  /**
   * `environment` (a `GIT_*` variable moves the repository, index or configuration),
   * `not-a-work-tree`, `untrusted` (owned by another user), `ignore-case`
   * (`core.ignoreCase`), `precompose-unicode`, `index` (a version, extension or corruption
   * gitoxide does not read), `sparse-index` (a sparse directory's tree is missing),
   * `split-sparse-index` (a split index that is also sparse, which git itself reads
   * inconsistently), `root-not-tracked` (`root/dir` is below the top and holds no tracked
   * file), `unreadable-directory`, `walk` (any other gitoxide error, e.g. an unreadable
   * ignore file).
   */
  fallback:
    | "environment"
    | "not-a-work-tree"
    | "untrusted"
    | "ignore-case"
    | "precompose-unicode"
    | "index"
    | "sparse-index"
    | "split-sparse-index"
    | "root-not-tracked"
    | "unreadable-directory"
    | "walk";
  /** A sentence for the turn's notes: what was found, gitoxide's message. */
  reason: string;
}

/**
 * The listing git gives for the repository it finds from `root/options.dir` (`dir`
 * relative, default `""`), read in-process with gitoxide off the JavaScript thread (issue
 * 33; docs/design.md §2, §3a "Scope"): what `git ls-files -z -t --cached --others
 * --exclude-standard` and `git ls-files -z --others --ignored --exclude-standard
 * --directory` print there, in one call, paths relative to `root/dir`. turngate's git rules
 * hold: no system configuration, no fsmonitor, no untracked cache; global configuration,
 * `core.excludesFile` (or the XDG default) and `info/exclude` honoured; nothing run or
 * written. Where gitoxide falls short of git, resolves to a {@link GitListingFallback}
 * instead (see `packages/native/src/git_listing.rs` for the supported/fallback matrix).
 * Rejects with {@link NativeError} `ERR_TURNGATE_INVALID_ARG` (path `root` or `dir`);
 * `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the addon is absent.
 */
export declare function gitListing(
  root: string,
  options?: { dir?: string },
): Promise<GitListing | GitListingFallback>;

/**
 * The confined agent's egress bootstrap program (`turngate-egress CHANNEL_FD PORT`, built
 * beside the addon): its absolute path, or null when it is not built or the addon is not
 * loaded (docs/design.md §3b "Confined agents").
 */
export declare const EGRESS_HELPER: string | null;

/**
 * A connected unix stream socket pair for the egress bootstrap, both ends close-on-exec:
 * `[host, sandbox]`. Throws a NativeError with the errno's code when it cannot be made.
 */
export declare function egressChannel(): [number, number];

/**
 * The file descriptor the bootstrap sends over the host end `fd` of {@link egressChannel}
 * (close-on-exec), waited for at most `timeoutMs` ms off the JS thread. Rejects with a
 * NativeError `ERR_TURNGATE_EGRESS` when none came in time or the other end closed first.
 */
export declare function egressReceive(fd: number, timeoutMs: number): Promise<number>;
