import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { isAbsolute, join } from "node:path";
import lockfile from "proper-lockfile";
import { turngateCacheHome } from "../fs/cache-home.js";
import type { EntryState } from "../workspace/snapshot.js";
import { syncRoomFiles } from "./room-files.js";
import { type BaselineHead, ensureRoomClone, updateRoomIndex } from "./room-git.js";
import { dropKept, type KeptFingerprint, keptDirs, keptFingerprint } from "./room-kept.js";
import {
  decodeRoomManifest,
  encodeRoomManifestBody,
  joinRoomManifest,
  NO_DIRS,
  NO_RECORDS,
  type RoomDirs,
  type RoomManifestHeader,
  type RoomRecords,
} from "./room-manifest.js";

/**
 * The clean room (docs/design.md §3b): a per-workspace folder outside the workspace that
 * holds exactly the source scope's bytes as the effect digest names them, with a `.git`
 * cloned from the workspace at the baseline commit. The checks of a clean-room turn run in
 * it, mounted at the workspace's own path inside the check sandbox (`sandbox.ts`).
 *
 * Layout of `<dir>`: `tree/` (the room), `manifest.bin` (what turngate wrote: each entry's
 * digest and `lstat`, the fingerprint of `.git`, the last mtime; format in
 * `room-manifest.ts`), `stamp` (its ctime marks the last proof; see `room-files.ts`),
 * `manifest.bin.lock` while a turn uses the room. The room persists between turns, so build caches stay warm; it is updated from
 * each turn's snapshot, so the cost per turn is O(changed files) plus one `lstat` per entry.
 *
 * Before every check ({@link CleanRoom.prepare}):
 * 1. the room's `.git` must be exactly what turngate last left there (its fingerprint); a
 *    mismatch (the agent, or anyone, wrote the room) drops it;
 * 2. the files are made equal to the snapshot and proven (`syncRoomFiles`, one walk that
 *    also finds the build caches); caches that are not exactly what the last check of this
 *    turn left are dropped;
 * 3. `.git` is cloned or fetched and HEAD set to the baseline commit, unless it was proven
 *    at that very HEAD; then the index is updated with the paths written and removed.
 * After every check ({@link CleanRoom.afterCheck}) the caches' fingerprint is recorded.
 */

/** Schema id of the room's manifest. */
export const CLEAN_ROOM_SCHEMA = "turngate.clean_room.v2";

interface Manifest extends RoomManifestHeader {
  head: BaselineHead | null;
  entries: RoomRecords;
  dirs: RoomDirs;
}

/** What {@link CleanRoom.prepare} did, for the turn's notes and the benchmarks. */
export interface RoomPreparation {
  /** Paths copied from the workspace. */
  written: string[];
  /**
   * The paths of `written` the proof did not index itself (the later index update wrote
   * them), sorted.
   */
  unindexed: string[];
  /** Paths removed from the room (check outputs, deleted files). */
  removed: string[];
  /** Entries proven by re-hashing (racily clean, or bytes turngate did not write). */
  rehashed: number;
  /** Their paths, sorted (added to the room's index). */
  rehashedPaths: string[];
  /** Kept folders dropped because they were not what turngate or the last check left. */
  dropped: string[];
  /** Whether `.git` was cloned now. */
  cloned: boolean;
}

/**
 * Where a workspace's clean room lives: `TURNGATE_ROOM_DIR` when set (absolute), else
 * `$XDG_CACHE_HOME/turngate/rooms/<id>` (default `~/.cache/…`), `<id>` the first 16 hex of
 * the SHA-256 of the workspace's real path. Never inside the workspace.
 */
export function cleanRoomDir(workspace: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cleanRoomsBase(env), cleanRoomId(workspace));
}

/**
 * The folder name of `workspace`'s room under {@link cleanRoomsBase} (docs/design.md §3b
 * "Clean room"): the first 16 hex characters of the SHA-256 of its real path. Pure.
 */
export function cleanRoomId(workspace: string): string {
  return createHash("sha256").update(workspace).digest("hex").slice(0, 16);
}

/**
 * The folder holding every workspace's clean room: `TURNGATE_ROOM_DIR` when set (absolute),
 * else `$XDG_CACHE_HOME/turngate/rooms` (default `~/.cache/…`); never inside a workspace
 * (docs/design.md §3b "Clean room"). Nothing is created. Pure.
 */
export function cleanRoomsBase(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.TURNGATE_ROOM_DIR;
  if (configured !== undefined && isAbsolute(configured)) return configured;
  return join(turngateCacheHome(env), "rooms");
}

/** The room's manifest file name in its folder (its lock is `<name>.lock`). */
export const ROOM_MANIFEST_FILE = "manifest.bin";

/** A workspace's clean room. Use one per turn; `open` takes the room's lock. */
export class CleanRoom {
  readonly #dir: string;
  readonly #workspace: string;
  readonly #env: NodeJS.ProcessEnv;
  #manifest: Manifest;
  #release: (() => Promise<void>) | undefined;
  #entries: ReadonlyMap<string, EntryState> = new Map();
  /** ctime (ns) from which the room's state is not trusted: the turn's start. */
  readonly #trustBeforeNs: bigint;
  /** The caches' fingerprint after this turn's last check (never read from the manifest). */
  #caches: string | null = null;
  /** Whether this process made or proved the room's .git in this turn (its ctime is then ≥ the turn's start). */
  #gitOwnThisTurn = false;
  /** See {@link CleanRoom.sealedMs}. */
  #sealedMs: number | undefined;
  /** The last encoded manifest body and the records it encodes ({@link CleanRoom.#encodeBody}). */
  #body: { entries: RoomRecords; dirs: RoomDirs; bytes: Buffer } | undefined;

  private constructor(
    dir: string,
    workspace: string,
    env: NodeJS.ProcessEnv,
    manifest: Manifest,
    trustBeforeNs: bigint,
  ) {
    this.#dir = dir;
    this.#workspace = workspace;
    this.#env = env;
    this.#manifest = manifest;
    this.#trustBeforeNs = trustBeforeNs;
  }

  /**
   * Open (or create) the room of `workspace` (its real path) in `dir` and lock it for this
   * turn (a second turngate on the same workspace waits up to ~10 s, then fails with the
   * lock's `ELOCKED` error). A manifest that is missing, unreadable or for another
   * workspace starts an empty room. Errors: `fs` errors creating `dir`, `ELOCKED`.
   */
  static async open(
    workspace: string,
    dir: string,
    env: NodeJS.ProcessEnv = process.env,
    turnStartMs: number = Date.now(),
  ): Promise<CleanRoom> {
    mkdirSync(join(dir, "tree"), { recursive: true, mode: 0o700 });
    const manifestPath = join(dir, MANIFEST);
    if (lstatOrUndefined(manifestPath) === undefined) writeFileSync(manifestPath, "");
    // A room of an earlier turngate (manifest.json) is re-proven by hashing, once.
    rmSync(join(dir, "manifest.json"), { force: true });
    const release = await lockfile.lock(manifestPath, {
      realpath: false,
      stale: 60_000,
      retries: { retries: 40, minTimeout: 50, maxTimeout: 500, factor: 1.3 },
    });
    // Anything written at or after the turn's start (less the coarse clock's lag) may be the
    // agent's: such a manifest is not trusted at all, such a room entry is re-hashed.
    const trustBeforeNs = BigInt(Math.floor(turnStartMs) - TRUST_MARGIN_MS) * 1_000_000n;
    const read = readManifest(manifestPath);
    let manifest = read?.manifest;
    if (read === undefined || manifest === undefined || manifest.workspace !== workspace) {
      rmSync(join(dir, "tree"), { recursive: true, force: true });
      mkdirSync(join(dir, "tree"), { recursive: true, mode: 0o700 });
      manifest = emptyManifest(workspace);
    } else if (read.ctimeNs >= trustBeforeNs) {
      // Written during the turn (by the agent, or by anyone after the baseline): its records
      // prove nothing. The room's files are re-hashed against the snapshot, its .git cloned
      // again; the mtime clock is kept so the next copies still move forward.
      manifest = { ...emptyManifest(workspace), mtime_s: Number(manifest.mtime_s) || 0 };
    }
    const room = new CleanRoom(dir, workspace, env, manifest, trustBeforeNs);
    room.#release = release;
    return room;
  }

  /** The room's folder (mounted at the workspace path inside the sandbox). */
  get tree(): string {
    return join(this.#dir, "tree");
  }

  /** The folder holding the room and its manifest. */
  get dir(): string {
    return this.#dir;
  }

  /**
   * Make the room hold exactly `entries` (the snapshot the checks are bound to) with its
   * `.git` at `head` (null: the workspace is not a git repository's top level, so the room
   * has no `.git`), proving kept folders first (see the class docs). Errors:
   * `RoomSourceChangedError` (the workspace changed after the snapshot), `RoomGitError`,
   * `fs` errors of the room.
   */
  async prepare(
    entries: ReadonlyMap<string, EntryState>,
    head: BaselineHead | null,
  ): Promise<RoomPreparation> {
    this.#entries = entries;
    const tree = this.tree;
    // The room's folder must be a real folder of ours: one replaced by a link (to a folder
    // the agent controls) would be proven, pruned and written through; it starts empty.
    if (!lstatOrUndefined(tree)?.isDirectory()) {
      rmSync(tree, { recursive: true, force: true });
      mkdirSync(tree, { recursive: true, mode: 0o700 });
      this.#manifest = { ...emptyManifest(this.#workspace), mtime_s: this.#manifest.mtime_s };
    }
    chmodSync(tree, 0o700); // listable, whatever mode someone gave it
    const m = this.#manifest;
    const dropped: string[] = [];
    let gitProven = false;
    let gitObjects = 0;
    const gitStat = lstatOrUndefined(join(tree, ".git"));
    if (gitStat !== undefined && !gitStat.isDirectory()) {
      // A link (or a file) where the room's .git folder was: never proven, never written
      // through (an attacker's link would have the index written outside the room).
      dropKept(tree, [".git"]);
      dropped.push(".git");
    } else if (gitStat !== undefined) {
      const now = keptFingerprint(tree, [".git"]);
      gitObjects = now.objects;
      const same =
        m.git !== null &&
        now.digest === m.git &&
        now.maxCtimeNs < this.#trustBeforeNs &&
        head !== null &&
        sameHead(m.head, head);
      gitProven = same || (m.git !== null && now.digest === m.git && this.#gitOwnThisTurn);
      if (!gitProven) {
        dropKept(tree, [".git"]);
        dropped.push(".git");
      }
    }
    // A .git proven to be what turngate left at this very HEAD needs no git work but the
    // index; any other is cloned or fetched and pointed at the baseline.
    let ready = gitProven && head !== null && sameHead(m.head, head);
    // A folder read after this stamp is recorded clean only if its ctime is older: a name
    // planted right after the read, in the same clock tick, is not hidden by its record.
    const freshNs = writeOwnFile(join(this.#dir, "fresh"), "");
    const files = await syncRoomFiles(
      {
        room: tree,
        workspace: this.#workspace,
        entries,
        recorded: m.entries,
        recordedDirs: m.dirs,
        freshNs,
        stampNs: min(BigInt(m.stamp_ns), this.#trustBeforeNs),
        lastMtimeS: m.mtime_s,
        // A .git proven at this HEAD: the proof may index what it copies itself.
        indexEarly: ready,
      },
      this.#env,
    );
    m.entries = files.recorded;
    m.dirs = files.dirs;
    m.mtime_s = files.mtimeS;
    // Build caches live for one turn: a cache an earlier turn's checks wrote was written by
    // code the agent controlled then (a check runs the project's code), and tools trust
    // their caches (cargo's dep-info and mtimes, unchecked-hash bytecode). Within a turn the
    // checks share them, as they would in CI, when proven to be what the last check left.
    const caches = files.kept;
    if (
      caches.length > 0 &&
      (this.#caches === null || keptFingerprint(tree, caches).digest !== this.#caches)
    ) {
      dropKept(tree, caches);
      dropped.push(...caches);
    }

    let cloned = false;
    if (ready && !isRealFolder(join(tree, ".git"))) {
      // Swapped for a link while the files were synced: cloned again, never written through.
      dropKept(tree, [".git"]);
      dropped.push(".git");
      ready = false;
    }
    if (head !== null) {
      if (!ready) cloned = await ensureRoomClone(tree, this.#workspace, head, this.#env);
      const rebuild = cloned || dropped.includes(".git") || !sameHead(m.head, head);
      // Re-hashed entries too: right bytes the room's index may not hold (planted there by
      // someone else, found by the attack round: a new file missing from `git ls-files`).
      const changed = rebuild ? [...entries.keys()] : [...files.unindexed, ...files.rehashedPaths];
      const indexing = updateRoomIndex(
        tree,
        head,
        changed,
        rebuild,
        this.#env,
        rebuild ? [] : files.gone,
        gitObjects,
      );
      // The manifest's bulk is encoded while the index is written off the JavaScript thread.
      this.#encodeBody();
      await indexing;
      m.head = head;
    } else if (lstatOrUndefined(join(tree, ".git")) !== undefined) {
      dropKept(tree, [".git"]);
      m.head = null;
    }
    const stamped = await this.#settledStamp(() =>
      head !== null ? [keptFingerprint(tree, [".git"], freshNs)] : [],
    );
    const sealed = stamped.fingerprints[0];
    // Sealed only as turngate left it: a real folder in which, since the fresh stamp, nothing
    // but the index and the object store changed (what an index update writes); anything else
    // written meanwhile (a ref, a config, a hook, a link) is someone else's, and the next
    // prepare clones the .git again. (After a clone or fetch everything is new: the clone's.)
    const ownWrites = (rel: string) =>
      rel === ".git" ||
      rel === ".git/index" ||
      rel === ".git/objects" ||
      rel.startsWith(".git/objects/");
    const asLeft =
      isRealFolder(join(tree, ".git")) &&
      sealed !== undefined &&
      "newer" in sealed &&
      (!ready || sealed.newer.every(ownWrites));
    m.git = head !== null && asLeft ? (sealed.digest ?? null) : null;
    this.#gitOwnThisTurn = m.git !== null;
    m.stamp_ns = String(stamped.stampNs);
    await this.#writeManifest();
    return { ...files, dropped, cloned };
  }

  /** Record what the check left in the build caches (their fingerprint). */
  async afterCheck(): Promise<void> {
    const tree = this.tree;
    const m = this.#manifest;
    const caches = keptDirs(tree, this.#entries).filter((dir) => dir !== ".git");
    // The entries' racy mark stays the last prepare's (a check's write in that tick is still
    // re-hashed); the caches get a fingerprint taken after a stamp of their own.
    const stamped = await this.#settledStamp(() => [
      keptFingerprint(tree, caches),
      keptFingerprint(tree, [".git"]),
    ]);
    this.#caches = stamped.fingerprints[0]?.digest ?? null;
    // A check that wrote the room's .git (a commit, a hook, a config) leaves it to no later
    // check: the next prepare clones it again.
    if (m.git !== (stamped.fingerprints[1]?.digest ?? null)) m.git = null;
    await this.#writeManifest();
  }

  /**
   * When this process sealed the room (ms since the epoch), or undefined when it has written
   * no manifest yet: the end of its last manifest write plus the trust margin, i.e. the
   * earliest `turnStartMs` of a later {@link CleanRoom.open} under which the records it wrote
   * are trusted. A turn chain carries it to the next turns (`room_sealed_at`, docs/design.md
   * §3b "Gapless turns"), so what anyone writes in the room after it — during a turn that
   * never opens the room — is re-proven, not trusted.
   */
  get sealedMs(): number | undefined {
    return this.#sealedMs;
  }

  /** Release the room's lock (idempotent). */
  async close(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    await release?.();
  }

  /**
   * Write the stamp and take `fingerprint` after it, until every fingerprinted object's
   * ctime is before the stamp's (a few ms at most: the clock's tick). Then a later write to
   * any of them gets a later ctime than the one fingerprinted, so it cannot keep every stat
   * field the fingerprint covers. Tries are 1 ms apart (the clock's tick is 1 to 10 ms: a
   * shorter wait than one tick often suffices); after 100 the fingerprints are voided (null digests:
   * the folders are dropped next time rather than trusted).
   */
  async #settledStamp(
    fingerprint: () => KeptFingerprint[],
  ): Promise<{ stampNs: bigint; fingerprints: Array<KeptFingerprint | { digest: null }> }> {
    const stampPath = join(this.#dir, "stamp");
    for (let attempt = 0; ; attempt += 1) {
      const stampNs = writeOwnFile(stampPath, String(Date.now()));
      const fingerprints = fingerprint();
      if (fingerprints.every((f) => f.maxCtimeNs < stampNs)) return { stampNs, fingerprints };
      if (attempt >= 100) {
        return { stampNs, fingerprints: fingerprints.map(() => ({ digest: null })) };
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  /**
   * The manifest's body for its current records ({@link encodeRoomManifestBody}), encoded
   * once per change of them: `afterCheck` writes the same records with a new header.
   */
  #encodeBody(): Buffer {
    const { entries, dirs } = this.#manifest;
    const cached = this.#body;
    if (cached?.entries === entries && cached.dirs === dirs) return cached.bytes;
    const bytes = encodeRoomManifestBody(entries, dirs);
    this.#body = { entries, dirs, bytes };
    return bytes;
  }

  /**
   * Write the manifest: atomic (a new file created `O_EXCL`, renamed over the name: a link
   * put at the name is replaced, never written through) but not fsynced (a lost one
   * rebuilds the room). The seal ({@link CleanRoom.sealedMs}) is the manifest's own ctime,
   * taken from its descriptor after the rename, rounded up to the next ms: a later open
   * trusts only what is older. (The coarse clock gives every write of one tick the same
   * ctime, so a write in the very tick of the manifest's is not told apart.)
   */
  async #writeManifest(): Promise<void> {
    const { entries, dirs, ...header } = this.#manifest;
    const path = join(this.#dir, MANIFEST);
    const bytes = joinRoomManifest(header, this.#encodeBody());
    const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = openSync(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      renameSync(temp, path);
      const ctimeNs = fstatSync(fd, { bigint: true }).ctimeNs;
      this.#sealedMs = Number(ctimeNs / 1_000_000n) + 1 + TRUST_MARGIN_MS;
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    } finally {
      closeSync(fd);
    }
  }
}

/** The manifest's file name in the room's folder. */
const MANIFEST = ROOM_MANIFEST_FILE;

/** ms before the turn's start from which room state is distrusted (the coarse clock lags). */
const TRUST_MARGIN_MS = 50;

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function sameHead(a: BaselineHead | null, b: BaselineHead): boolean {
  return a !== null && a.commit === b.commit && a.ref === b.ref;
}

function emptyManifest(workspace: string): Manifest {
  return {
    schema: CLEAN_ROOM_SCHEMA,
    workspace,
    mtime_s: 0,
    stamp_ns: "0",
    git: null,
    head: null,
    entries: NO_RECORDS,
    dirs: NO_DIRS,
  };
}

/**
 * The manifest at `path` and its ctime, read through one descriptor opened without following
 * a link (a link, or anything but a regular file, is no manifest); undefined when there is
 * none or it does not decode.
 */
function readManifest(path: string): { manifest: Manifest; ctimeNs: bigint } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  let bytes: Buffer;
  let ctimeNs: bigint;
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile()) return undefined;
    ctimeNs = stat.ctimeNs;
    bytes = readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
  const decoded = decodeRoomManifest(bytes);
  if (decoded === undefined || decoded.header.schema !== CLEAN_ROOM_SCHEMA) return undefined;
  return {
    manifest: {
      ...decoded.header,
      head: decoded.header.head as BaselineHead | null,
      entries: decoded.entries,
      dirs: decoded.dirs,
    },
    ctimeNs,
  };
}

/**
 * Write `text` as a new file at `path` (whatever was there, a link included, is removed
 * first; the file is created `O_EXCL|O_NOFOLLOW`, so nothing is written through a name put
 * back meanwhile) and return its ctime (ns) from its own descriptor. Errors: `fs` errors
 * (`EEXIST` when someone keeps putting a name back).
 */
function writeOwnFile(path: string, text: string): bigint {
  rmSync(path, { force: true });
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  try {
    writeSync(fd, text);
    return fstatSync(fd, { bigint: true }).ctimeNs;
  } finally {
    closeSync(fd);
  }
}

/** Whether `abs` is a folder itself (not a link to one). */
function isRealFolder(abs: string): boolean {
  return lstatOrUndefined(abs)?.isDirectory() === true;
}

function lstatOrUndefined(abs: string) {
  try {
    return lstatSync(abs, { bigint: true });
  } catch {
    return undefined;
  }
}
