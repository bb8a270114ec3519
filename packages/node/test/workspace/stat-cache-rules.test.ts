import { lstatSync, type Stats, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  type EntryState,
  RACY_WINDOW_MS,
  type WorkspaceDelta,
  WorkspaceObserver,
  type WorkspaceSnapshot,
} from "../../src/workspace/index.js";
import { absolutePath, StatCache } from "../../src/workspace/stat/stat-cache.js";
import { initRepo, makeTempDir, removeDir, SHA } from "./helpers.js";

// When the stat cache may stand for a file's bytes (packages/node/src/workspace/stat/
// stat-cache.ts), on real files in a temporary directory: a baseline records a.txt with a
// stale digest (SHA of "aaaa" while the file holds "bbbb", as if the bytes had changed
// without changing the stat) and the file's real lstat identity, then one field or the
// time the digest was taken is varied. A delta that reports a.txt as modified (with the
// digest of "bbbb") re-read the file; a delta with no change trusted the cached digest.

let root: string;

beforeEach(() => {
  root = makeTempDir();
  initRepo(root, { "a.txt": "bbbb", "b.txt": "x\n" });
});

afterEach(() => removeDir(root));

const REREAD: WorkspaceDelta = {
  changes: [{ path: "a.txt", change: "modified", content_digest: SHA.bbbb, scope: "source" }],
  complete: true,
  unreadable: [],
};
const TRUSTED: WorkspaceDelta = { changes: [], complete: true, unreadable: [] };

function identity(st: Stats): Omit<EntryState, "kind" | "content_digest"> {
  return { size: st.size, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs, ino: st.ino, mode: st.mode };
}

/** The later of a.txt's mtime and ctime, read now. */
function lastChangeOfA(): number {
  const st = lstatSync(join(root, "a.txt"));
  return Math.max(st.mtimeMs, st.ctimeMs);
}

/**
 * A baseline of `root` (git listing or directory walk) taken at `takenAtMs` whose a.txt entry has a.txt's current lstat
 * identity (with `override` applied) and the stale digest of "aaaa"; b.txt is recorded
 * truly. Its ignore-rule record and outside entries are a real baseline's.
 */
async function staleBaseline(
  useGit: boolean,
  takenAtMs: number,
  override: Partial<EntryState> = {},
): Promise<WorkspaceSnapshot> {
  const real = await new WorkspaceObserver(root, { useGit }).baseline();
  const a = lstatSync(join(root, "a.txt"));
  const b = lstatSync(join(root, "b.txt"));
  const entries = new Map<string, EntryState>([
    ["a.txt", { kind: "file", content_digest: SHA.aaaa, ...identity(a), ...override }],
    ["b.txt", { kind: "file", content_digest: SHA["x\n"], ...identity(b) }],
  ]);
  const { ignore_state, outside, git } = real;
  return {
    root,
    taken_at_ms: takenAtMs,
    git,
    entries,
    outside,
    unreadable: [],
    ...(ignore_state === undefined ? {} : { ignore_state }),
  };
}

async function deltaAgainst(
  takenAtMs: (lastChange: number) => number,
  override: Partial<EntryState> = {},
  useGit = true,
): Promise<WorkspaceDelta> {
  const observer = new WorkspaceObserver(root, { useGit });
  observer.restoreBaseline(await staleBaseline(useGit, takenAtMs(lastChangeOfA()), override));
  return observer.delta();
}

/** Long enough after the last change for the digest to be trusted. */
const settled = (lastChange: number): number => lastChange + RACY_WINDOW_MS + 1000;

describe("a cached digest stands for the file only while every lstat field is unchanged", () => {
  test("with kind, size, mtime, ctime, inode and mode all equal (and not racy) it is trusted", async () => {
    expect(await deltaAgainst(settled)).toEqual(TRUSTED);
  });

  const changed: [string, (st: Stats) => Partial<EntryState>][] = [
    ["the kind (a symlink became a file)", () => ({ kind: "symlink" })],
    ["the size", (st) => ({ size: st.size + 1 })],
    ["the mtime (an older one)", (st) => ({ mtime_ms: st.mtimeMs - 10_000 })],
    ["the ctime (an older one)", (st) => ({ ctime_ms: st.ctimeMs - 10_000 })],
    ["the inode (the file was replaced)", (st) => ({ ino: st.ino + 1 })],
    ["the mode (chmod +x)", (st) => ({ mode: st.mode ^ 0o100 })],
  ];
  for (const [what, override] of changed) {
    test(`a change of ${what} alone makes the observer re-read the file`, async () => {
      const st = lstatSync(join(root, "a.txt"));
      expect(await deltaAgainst(settled, override(st))).toEqual(REREAD);
    });
  }
});

describe("the racy rule on real files (mtimes set with utimes)", () => {
  for (const useGit of [true, false]) {
    const mode = useGit ? "git listing" : "directory walk";

    test(`${mode}: a digest taken less than the window after the last change is not trusted`, async () => {
      expect(await deltaAgainst((t) => t + RACY_WINDOW_MS / 2, {}, useGit)).toEqual(REREAD);
      expect(await deltaAgainst(settled, {}, useGit)).toEqual(TRUSTED);
    });

    test(`${mode}: a back-dated mtime does not hide a recent write, the ctime counts`, async () => {
      const hourAgo = Date.now() / 1000 - 3600;
      utimesSync(join(root, "a.txt"), hourAgo, hourAgo);
      const st = lstatSync(join(root, "a.txt"));
      expect(st.mtimeMs).toBeLessThan(st.ctimeMs - 3_000_000);
      // Taken 1 s after the write: the mtime is an hour old, the ctime is within the window.
      expect(await deltaAgainst(() => st.ctimeMs + 1000, {}, useGit)).toEqual(REREAD);
    });

    test(`${mode}: an mtime in the future keeps the digest untrusted until it is old enough`, async () => {
      // A whole second, so the ms values below are exact.
      const future = Math.floor(Date.now() / 1000) + 3600;
      utimesSync(join(root, "a.txt"), future, future);
      expect(lastChangeOfA()).toBe(future * 1000);
      // The ctime is an hour older, so only the mtime can make these racy.
      expect(await deltaAgainst((t) => t + 1000, {}, useGit)).toEqual(REREAD);
      // Exactly the window after the mtime: still racy (it must be strictly older).
      expect(await deltaAgainst((t) => t + RACY_WINDOW_MS, {}, useGit)).toEqual(REREAD);
      expect(await deltaAgainst((t) => t + RACY_WINDOW_MS + 1, {}, useGit)).toEqual(TRUSTED);
    });
  }
});

function state(digest: string, ino: number): EntryState {
  return {
    kind: "file",
    content_digest: digest,
    size: 4,
    mtime_ms: 1_000,
    ctime_ms: 1_000,
    ino,
    mode: 0o100644,
  };
}

describe("StatCache bookkeeping", () => {
  test("store keeps the NFC key, the on-disk name under the root and no pre-taken stat", () => {
    const cache = new StatCache("/ws");
    cache.epoch = 3;
    const s = state(SHA.aaaa, 1);
    cache.store("caf\u00e9.txt", "cafe\u0301.txt", s, 1234);
    expect(cache.size).toBe(1);
    expect(cache.get("caf\u00e9.txt")).toStrictEqual({
      key: "caf\u00e9.txt",
      state: s,
      hashed_at_ms: 1234,
      fs_path: "cafe\u0301.txt",
      abs_path: "/ws/cafe\u0301.txt",
      seen: 3,
      slot: -1,
      slot_epoch: -1,
    });
    expect(cache.get("cafe\u0301.txt")).toBeUndefined();
  });

  test("records and absPaths list the entries in order and are rebuilt only after a change", () => {
    const cache = new StatCache("/ws/");
    expect(cache.size).toBe(0);
    expect(cache.records()).toStrictEqual([]);
    cache.store("a", "a", state(SHA.aaaa, 1), 1);
    cache.store("b", "b", state(SHA.bbbb, 2), 1);
    const first = cache.records();
    expect(first.map((r) => r.key)).toStrictEqual(["a", "b"]);
    expect(cache.absPaths()).toStrictEqual(["/ws/a", "/ws/b"]);
    const paths = cache.absPaths();
    expect(cache.records()).toBe(first);
    expect(cache.absPaths()).toBe(paths);

    cache.delete("missing");
    expect(cache.size).toBe(2);
    expect(cache.records()).toBe(first);
    expect(cache.absPaths()).toBe(paths);

    cache.store("c", "c", state(SHA["x\n"], 3), 1);
    expect(cache.records().map((r) => r.key)).toStrictEqual(["a", "b", "c"]);
    expect(cache.absPaths()).toStrictEqual(["/ws/a", "/ws/b", "/ws/c"]);

    cache.delete("a");
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.records().map((r) => r.key)).toStrictEqual(["b", "c"]);
    expect(cache.absPaths()).toStrictEqual(["/ws/b", "/ws/c"]);
  });

  test("unseenKeys: the keys not seen in this epoch, from the map or from this epoch's records", () => {
    const cache = new StatCache("/ws");
    for (const [i, key] of ["a", "b", "c", "d", "e"].entries()) {
      cache.store(key, key, state(SHA.aaaa, i), 1);
    }
    expect(cache.unseenKeys()).toStrictEqual([]);
    cache.epoch = 1;
    const records = cache.records();
    expect(cache.unseenKeys()).toStrictEqual(["a", "b", "c", "d", "e"]);
    expect(cache.unseenKeys(records)).toStrictEqual(["a", "b", "c", "d", "e"]);
    cache.store("b", "b", state(SHA.bbbb, 9), 2); // replaced: seen in this epoch
    const c = cache.get("c");
    if (c === undefined) throw new Error("c is cached");
    c.seen = 1; // reused by this snapshot
    cache.delete("d"); // dropped
    cache.store("f", "f", state(SHA.bbbb, 10), 2); // new in this epoch
    expect(cache.unseenKeys()).toStrictEqual(["a", "e"]);
    expect(cache.unseenKeys(records)).toStrictEqual(["a", "e"]);
  });

  test("sweep drops the entries not seen in this epoch; records are rebuilt only if it dropped any", () => {
    const cache = new StatCache("/ws");
    cache.store("a", "a", state(SHA.aaaa, 1), 1);
    cache.store("b", "b", state(SHA.bbbb, 2), 1);
    expect(cache.records()).toHaveLength(2); // listed (and kept) before the sweep
    expect(cache.absPaths()).toStrictEqual(["/ws/a", "/ws/b"]);
    cache.epoch = 1;
    const a = cache.get("a");
    if (a === undefined) throw new Error("a is cached");
    a.seen = 1;
    cache.sweep();
    expect(cache.size).toBe(1);
    expect(cache.get("b")).toBeUndefined();
    const after = cache.records();
    expect(after).toStrictEqual([a]);
    expect(cache.absPaths()).toStrictEqual(["/ws/a"]);
    const paths = cache.absPaths();
    cache.sweep(); // nothing stale now
    expect(cache.size).toBe(1);
    expect(cache.records()).toBe(after);
    expect(cache.absPaths()).toBe(paths);
  });

  test("seed replaces the cache with a snapshot's entries, hashed at its taken_at_ms", () => {
    const cache = new StatCache("/ws");
    cache.store("old", "old", state(SHA.aaaa, 1), 1);
    expect(cache.records().map((r) => r.key)).toStrictEqual(["old"]);
    cache.epoch = 4;
    const x = state(SHA.bbbb, 2);
    const y = state(SHA["x\n"], 3);
    cache.seed({
      root: "/ws",
      taken_at_ms: 5678,
      git: true,
      entries: new Map([
        ["d/x", x],
        ["y", y],
      ]),
      outside: new Map(),
      unreadable: [],
    });
    expect(cache.size).toBe(2);
    expect(cache.get("old")).toBeUndefined();
    expect(cache.get("d/x")).toStrictEqual({
      key: "d/x",
      state: x,
      hashed_at_ms: 5678,
      fs_path: "d/x",
      abs_path: "/ws/d/x",
      seen: 4,
      slot: -1,
      slot_epoch: -1,
    });
    expect(cache.get("d/x")?.state).toBe(x);
    expect(cache.records().map((r) => r.key)).toStrictEqual(["d/x", "y"]);
    expect(cache.absPaths()).toStrictEqual(["/ws/d/x", "/ws/y"]);
    expect(cache.unseenKeys()).toStrictEqual([]);
  });

  test("absolutePath joins with one '/', also under the filesystem root", () => {
    expect(absolutePath("/ws", "a/b.txt")).toBe("/ws/a/b.txt");
    expect(absolutePath("/ws/", "a/b.txt")).toBe("/ws/a/b.txt");
    expect(absolutePath("/", "a/b.txt")).toBe("/a/b.txt");
    const cache = new StatCache("/");
    cache.store("etc/x", "etc/x", state(SHA.aaaa, 1), 1);
    expect(cache.absPaths()).toStrictEqual(["/etc/x"]);
  });
});
