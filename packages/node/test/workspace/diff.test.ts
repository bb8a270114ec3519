import { describe, expect, test } from "vitest";
import {
  type EntryState,
  ledgerPaths,
  type OutsideEntry,
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
    outside: new Map(),
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
        { path: "a.txt", change: "added", content_digest: SHA["x\n"], scope: "source" },
        { path: "b.txt", change: "modified", content_digest: SHA.bbbb, scope: "source" },
        { path: "c.txt", change: "deleted", content_digest: "deleted", scope: "source" },
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
      { path: "l", change: "modified", content_digest: SHA["target.txt"], scope: "source" },
      { path: "m", change: "modified", content_digest: SHA["x\n"], scope: "source" },
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
      { path: "a", change: "modified", content_digest: SHA["x\n"], scope: "source" },
      { path: "dir/f", change: "added", content_digest: SHA.aaaa, scope: "source" },
      { path: "gone", change: "deleted", content_digest: "deleted", scope: "source" },
    ]);
  });
});

function outside(
  scope: OutsideEntry["scope"],
  digest: string,
  hashed: boolean,
  mtime = 1,
): OutsideEntry {
  return { ...file(hashed ? digest : ""), mtime_ms: mtime, scope, hashed };
}

function withOutside(
  entries: Record<string, EntryState>,
  out: Record<string, OutsideEntry>,
): WorkspaceSnapshot {
  return { ...snap(entries), outside: new Map(Object.entries(out)) };
}

describe("diffSnapshots outside the source scope (issue 10)", () => {
  test("stat-only entries change on any stat difference, hashed ones only on bytes or mode", () => {
    const before = withOutside(
      {},
      {
        "node_modules/.bin/node": outside("ignored", "", false),
        "x.pyc": outside("output", "", false),
        ".git/config": outside("harness", SHA.aaaa, true),
        "gone.pyc": outside("output", "", false),
      },
    );
    const after = withOutside(
      {},
      {
        // touched: stat-only before, so any stat difference counts
        "node_modules/.bin/node": outside("ignored", SHA.bbbb, true, 2),
        "x.pyc": outside("output", "", false),
        // touched, same bytes, both hashed: not a change
        ".git/config": outside("harness", SHA.aaaa, true, 9),
        ".git/hooks/pre-commit": outside("harness", SHA["x\n"], true),
      },
    );
    expect(WorkspaceObserver.diff(before, after).changes).toEqual([
      {
        path: ".git/hooks/pre-commit",
        change: "added",
        content_digest: SHA["x\n"],
        scope: "harness",
      },
      { path: "gone.pyc", change: "deleted", content_digest: "deleted", scope: "output" },
      {
        path: "node_modules/.bin/node",
        change: "modified",
        content_digest: SHA.bbbb,
        scope: "ignored",
      },
    ]);
  });

  test("a path that moved between source and outside is one change, only when its bytes differ", () => {
    const before = withOutside(
      { "a.txt": file(SHA.aaaa), "b.txt": file(SHA.aaaa) },
      { "c.txt": outside("ignored", SHA.aaaa, true) },
    );
    const after = withOutside(
      { "c.txt": file(SHA.bbbb) },
      { "a.txt": outside("ignored", SHA.aaaa, true), "b.txt": outside("output", SHA.bbbb, true) },
    );
    expect(WorkspaceObserver.diff(before, after).changes).toEqual([
      { path: "b.txt", change: "modified", content_digest: SHA.bbbb, scope: "output" },
      { path: "c.txt", change: "modified", content_digest: SHA.bbbb, scope: "source" },
    ]);
  });
});

describe("ledgerPaths", () => {
  test("harness rows, and outside rows inside a .git, carry harness: true; source rows and other outside rows do not", () => {
    const change = (scope: "source" | "ignored" | "output" | "harness", path: string) => ({
      path,
      change: "added" as const,
      content_digest: SHA["x\n"],
      scope,
    });
    expect(
      ledgerPaths([
        change("harness", ".git/config"),
        change("ignored", "node_modules/dep/.git/impl.js"),
        change("output", "coverage/.git/x"),
        change("ignored", "node_modules/dep/index.js"),
        change("source", "src/.git/impl.js"),
      ]),
    ).toEqual([
      { path: ".git/config", contentDigest: SHA["x\n"], harness: true },
      { path: "node_modules/dep/.git/impl.js", contentDigest: SHA["x\n"], harness: true },
      { path: "coverage/.git/x", contentDigest: SHA["x\n"], harness: true },
      { path: "node_modules/dep/index.js", contentDigest: SHA["x\n"] },
      { path: "src/.git/impl.js", contentDigest: SHA["x\n"] },
    ]);
  });
});
