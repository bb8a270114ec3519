import { describe, expect, test } from "vitest";
import {
  type EntryState,
  WorkspaceObserver,
  type WorkspaceSnapshot,
} from "../../src/workspace/index.js";
import { SHA } from "./helpers.js";

function file(digest: string, mode = 0o100644): EntryState {
  return { kind: "file", content_digest: digest, size: 1, mtime_ms: 1, ctime_ms: 1, ino: 1, mode };
}

function snap(entries: Record<string, EntryState>, unreadable: string[] = []): WorkspaceSnapshot {
  return {
    root: "/ws",
    taken_at_ms: 0,
    git: false,
    entries: new Map(Object.entries(entries)),
    unreadable,
  };
}

describe("WorkspaceObserver.diff", () => {
  test("reports added, modified and deleted paths sorted by path", () => {
    const before = snap({
      "b.txt": file(SHA["x\n"]),
      "c.txt": file(SHA["x\n"]),
      "d.txt": file(SHA.aaaa),
    });
    const after = snap({
      "a.txt": file(SHA["x\n"]),
      "b.txt": file(SHA.bbbb),
      "d.txt": file(SHA.aaaa),
    });
    expect(WorkspaceObserver.diff(before, after)).toEqual({
      changes: [
        { path: "a.txt", change: "added", content_digest: SHA["x\n"] },
        { path: "b.txt", change: "modified", content_digest: SHA.bbbb },
        { path: "c.txt", change: "deleted", content_digest: "deleted" },
      ],
      complete: true,
      unreadable: [],
    });
  });

  test("a kind change (file to symlink) and a mode change are modifications", () => {
    const before = snap({ l: file(SHA["target.txt"]), m: file(SHA["x\n"]) });
    const after = snap({
      l: { ...file(SHA["target.txt"]), kind: "symlink", mode: 0o120777 },
      m: file(SHA["x\n"], 0o100755),
    });
    expect(WorkspaceObserver.diff(before, after).changes).toEqual([
      { path: "l", change: "modified", content_digest: SHA["target.txt"] },
      { path: "m", change: "modified", content_digest: SHA["x\n"] },
    ]);
  });

  test("timestamps, inode and size alone are not a change", () => {
    const before = snap({ a: file(SHA["x\n"]) });
    const after = snap({ a: { ...file(SHA["x\n"]), mtime_ms: 9, ctime_ms: 9, ino: 9, size: 2 } });
    expect(WorkspaceObserver.diff(before, after).changes).toEqual([]);
  });

  test("a path unreadable now is not reported and makes the delta incomplete", () => {
    const before = snap({ a: file(SHA["x\n"]) });
    const after = snap({}, ["a"]);
    expect(WorkspaceObserver.diff(before, after)).toEqual({
      changes: [],
      complete: false,
      unreadable: ["a"],
    });
  });

  test("a path unreadable before: readable now is modified, gone now is deleted", () => {
    const before = snap({}, ["a", "gone", "dir"]);
    const after = snap({ a: file(SHA["x\n"]), "dir/f": file(SHA.aaaa) });
    expect(WorkspaceObserver.diff(before, after).changes).toEqual([
      { path: "a", change: "modified", content_digest: SHA["x\n"] },
      { path: "dir/f", change: "added", content_digest: SHA.aaaa },
      { path: "gone", change: "deleted", content_digest: "deleted" },
    ]);
  });
});
