import { lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  isRacy,
  RACY_WINDOW_MS,
  sha256Hex,
  WorkspaceObserver,
  type WorkspaceSnapshot,
} from "../../src/workspace/index.js";
import { initRepo, makeTempDir, removeDir, SHA, write } from "./helpers.js";

let root: string;

beforeEach(() => {
  root = makeTempDir();
  initRepo(root, { "a.txt": "bbbb", "b.txt": "x\n" });
});

afterEach(() => removeDir(root));

/**
 * A baseline whose entries carry the files' current lstat identity but a stale digest
 * (as if the bytes had changed without changing the stat), taken `ageMs` after a.txt's
 * last change (b.txt was written after a.txt). Its ignore-rule record is a real baseline's.
 */
async function staleBaseline(ageMs: number): Promise<WorkspaceSnapshot> {
  const { ignore_state, outside } = await new WorkspaceObserver(root).baseline();
  const entries = new Map();
  const a = lstatSync(join(root, "a.txt"));
  for (const [path, digest] of [
    ["a.txt", SHA.aaaa],
    ["b.txt", SHA["x\n"]],
  ] as const) {
    const st = lstatSync(join(root, path));
    entries.set(path, {
      kind: "file",
      content_digest: digest,
      size: st.size,
      mtime_ms: st.mtimeMs,
      ctime_ms: st.ctimeMs,
      ino: st.ino,
      mode: st.mode,
    });
  }
  return {
    root,
    taken_at_ms: Math.max(a.mtimeMs, a.ctimeMs) + ageMs,
    git: true,
    entries,
    outside,
    unreadable: [],
    ...(ignore_state === undefined ? {} : { ignore_state }),
  };
}

describe("stat cache and the racy rule", () => {
  test("isRacy: the later of mtime and ctime must be strictly older than hashed_at - window", () => {
    expect(RACY_WINDOW_MS).toBe(2000);
    const stat = { size: 4, mtime_ms: 10_000, ctime_ms: 10_000, ino: 1, mode: 0o100644 };
    expect(isRacy(stat, 12_000)).toBe(true);
    expect(isRacy(stat, 12_000.5)).toBe(false);
    expect(isRacy(stat, 9_000)).toBe(true);
    // utimes can move mtime back, but ctime still records the write.
    expect(isRacy({ ...stat, mtime_ms: 1_000 }, 12_000)).toBe(true);
    expect(isRacy({ ...stat, mtime_ms: 1_000, ctime_ms: 1_000 }, 12_000)).toBe(false);
  });

  test("a cached digest whose stat is unchanged and old enough is reused, not re-read", async () => {
    const observer = new WorkspaceObserver(root);
    observer.restoreBaseline(await staleBaseline(RACY_WINDOW_MS + 1000));
    // The stale digest of a.txt is trusted: the stat matches and is not racy.
    expect((await observer.delta()).changes).toEqual([]);
    expect((await observer.snapshot()).entries.get("a.txt")?.content_digest).toBe(SHA.aaaa);
  });

  test("a racy entry with an unchanged stat is hashed again, so a same-size rewrite is seen", async () => {
    const observer = new WorkspaceObserver(root);
    observer.restoreBaseline(await staleBaseline(RACY_WINDOW_MS));
    expect(await observer.delta()).toEqual({
      changes: [{ path: "a.txt", change: "modified", content_digest: SHA.bbbb, scope: "source" }],
      complete: true,
      unreadable: [],
    });
  });

  test("only files whose stat changed are hashed (counted through the nativeHasher hook)", async () => {
    const hashed: string[] = [];
    const nativeHasher = {
      async hashFiles(paths: readonly string[]) {
        hashed.push(...paths.map((p) => p.slice(root.length + 1)));
        return paths.map((p) => sha256Hex(readFileSync(p)));
      },
    };
    const observer = new WorkspaceObserver(root, { nativeHasher });
    observer.restoreBaseline(await staleBaseline(RACY_WINDOW_MS + 1000));
    write(root, "b.txt", "hello\n");
    write(root, "c.txt", "kept\n");
    expect((await observer.delta()).changes).toEqual([
      { path: "b.txt", change: "modified", content_digest: SHA["hello\n"], scope: "source" },
      { path: "c.txt", change: "added", content_digest: SHA["kept\n"], scope: "source" },
    ]);
    expect(hashed.sort()).toEqual(["b.txt", "c.txt"]);
  });

  test("a nativeHasher without hashFiles is rejected, naming the option", () => {
    expect(() => new WorkspaceObserver(root, { nativeHasher: { hash: () => "" } })).toThrow(
      expect.objectContaining({ code: "invalid_option", field: "nativeHasher" }),
    );
  });

  test("restoreBaseline refuses a snapshot of another root", async () => {
    const observer = new WorkspaceObserver(root);
    const other = { ...(await staleBaseline(0)), root: "/elsewhere" };
    expect(() => observer.restoreBaseline(other)).toThrow(
      expect.objectContaining({ code: "invalid_snapshot", field: "root" }),
    );
  });
});
