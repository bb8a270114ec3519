import { describe, expect, test } from "vitest";
import {
  diffSnapshots,
  type EntryState,
  ledgerPaths,
  type OutsideEntry,
  type WorkspaceChange,
  type WorkspaceSnapshot,
} from "../../src/workspace/index.js";
import { SHA } from "./helpers.js";

// The change rules of diffSnapshots (packages/node/src/workspace/diff/diff.ts), one rule per
// test, on hand-made snapshots: which difference is a change, in which scope, and what the
// delta carries besides its changes.

function file(digest: string, fields: Partial<EntryState> = {}): EntryState {
  return {
    kind: "file",
    content_digest: digest,
    size: 4,
    mtime_ms: 1_000,
    ctime_ms: 1_000,
    ino: 7,
    mode: 0o100644,
    ...fields,
  };
}

/** An outside entry: stat-only (`hashed` false, digest "") unless a digest is given. */
function out(
  scope: OutsideEntry["scope"],
  digest: string | undefined,
  fields: Partial<EntryState> = {},
): OutsideEntry {
  return { ...file(digest ?? "", fields), scope, hashed: digest !== undefined };
}

function snap(
  entries: Record<string, EntryState>,
  outside: Record<string, OutsideEntry> = {},
  unreadable: string[] = [],
): WorkspaceSnapshot {
  return {
    root: "/ws",
    taken_at_ms: 0,
    git: true,
    entries: new Map(Object.entries(entries)),
    outside: new Map(Object.entries(outside)),
    unreadable,
  };
}

const changes = (before: WorkspaceSnapshot, after: WorkspaceSnapshot): WorkspaceChange[] =>
  diffSnapshots(before, after).changes;

describe("source entries", () => {
  test("a change of kind alone (same digest and mode) is a modification", () => {
    const before = snap({ l: file(SHA["target.txt"]) });
    const after = snap({ l: file(SHA["target.txt"], { kind: "symlink" }) });
    expect(changes(before, after)).toEqual([
      { path: "l", change: "modified", content_digest: SHA["target.txt"], scope: "source" },
    ]);
  });

  test("the same state object in both snapshots (a reused cache record) is no change", () => {
    const state = file(SHA.aaaa);
    expect(changes(snap({ a: state }), snap({ a: state }))).toEqual([]);
  });
});

describe("unreadable directories of the baseline", () => {
  test("one whose files are now listed several levels down is not deleted", () => {
    const before = snap({}, {}, ["a"]);
    const after = snap({ "a/b/c.txt": file(SHA.aaaa), "a/b/d.txt": file(SHA.bbbb) });
    expect(changes(before, after)).toEqual([
      { path: "a/b/c.txt", change: "added", content_digest: SHA.aaaa, scope: "source" },
      { path: "a/b/d.txt", change: "added", content_digest: SHA.bbbb, scope: "source" },
    ]);
  });

  test("one that is only a name prefix of a listed directory (lib vs lib64/) is deleted", () => {
    const before = snap({}, {}, ["lib", "lib6"]);
    const after = snap({ "lib64/x.so": file(SHA.aaaa) });
    expect(changes(before, after)).toEqual([
      { path: "lib", change: "deleted", content_digest: "deleted", scope: "source" },
      { path: "lib6", change: "deleted", content_digest: "deleted", scope: "source" },
      { path: "lib64/x.so", change: "added", content_digest: SHA.aaaa, scope: "source" },
    ]);
  });
});

describe("paths that moved between the outside and the source scope", () => {
  test("from a hashed outside entry to the source scope with the same bytes: no change", () => {
    const before = snap({}, { "a.txt": out("ignored", SHA.aaaa, { mtime_ms: 5 }) });
    const after = snap({ "a.txt": file(SHA.aaaa) });
    expect(changes(before, after)).toEqual([]);
  });

  test("from a stat-only outside entry to the source scope: modified (its old bytes are unknown)", () => {
    const before = snap({}, { "a.txt": out("output", undefined) });
    const after = snap({ "a.txt": file(SHA.aaaa) });
    expect(changes(before, after)).toEqual([
      { path: "a.txt", change: "modified", content_digest: SHA.aaaa, scope: "source" },
    ]);
  });
});

describe("outside entries compared by stat when either side is stat-only", () => {
  const fields: [string, Partial<EntryState>][] = [
    ["kind", { kind: "symlink" }],
    ["size", { size: 5 }],
    ["mtime", { mtime_ms: 1_001 }],
    ["ctime", { ctime_ms: 1_001 }],
    ["inode", { ino: 8 }],
    ["mode", { mode: 0o100755 }],
  ];
  for (const [name, field] of fields) {
    test(`a difference of ${name} alone between two stat-only entries is a modification`, () => {
      const before = snap({}, { "node_modules/x.js": out("ignored", undefined) });
      const after = snap({}, { "node_modules/x.js": out("ignored", undefined, field) });
      expect(changes(before, after)).toEqual([
        { path: "node_modules/x.js", change: "modified", content_digest: "", scope: "ignored" },
      ]);
    });
  }

  test("a stat-only entry hashed later with the very same stat is no change", () => {
    const before = snap({}, { "x.pyc": out("output", undefined) });
    const after = snap({}, { "x.pyc": out("output", SHA.aaaa) });
    expect(changes(before, after)).toEqual([]);
  });

  test("two stat-only entries with the same stat are no change", () => {
    const before = snap({}, { "x.pyc": out("output", undefined) });
    const after = snap({}, { "x.pyc": out("output", undefined) });
    expect(changes(before, after)).toEqual([]);
  });
});

describe("what the delta carries besides its changes", () => {
  test("the later snapshot's unreadable paths and their reasons, copied", () => {
    const reasons = { ".": "no ignore-rule record", fifo: "special file" };
    const after: WorkspaceSnapshot = {
      ...snap({ a: file(SHA.aaaa) }, {}, [".", "fifo"]),
      unreadable_reasons: reasons,
    };
    const delta = diffSnapshots(snap({ a: file(SHA.aaaa) }), after);
    expect(delta).toStrictEqual({
      changes: [],
      complete: false,
      unreadable: [".", "fifo"],
      unreadable_reasons: { ".": "no ignore-rule record", fifo: "special file" },
    });
    expect(delta.unreadable_reasons).not.toBe(reasons);
    expect(delta.unreadable).not.toBe(after.unreadable);
  });

  test("no unreadable_reasons key when the later snapshot has none", () => {
    expect(diffSnapshots(snap({}), snap({}))).toStrictEqual({
      changes: [],
      complete: true,
      unreadable: [],
    });
  });
});

describe("ledgerPaths", () => {
  test("maps each change to {path, contentDigest}, adding harness: true only for harness rows", () => {
    const rows: WorkspaceChange[] = [
      { path: "a.txt", change: "added", content_digest: SHA.aaaa, scope: "source" },
      { path: ".git/config", change: "modified", content_digest: SHA.bbbb, scope: "harness" },
      { path: "gone.pyc", change: "deleted", content_digest: "deleted", scope: "output" },
      { path: "node_modules/x", change: "added", content_digest: SHA["x\n"], scope: "ignored" },
    ];
    expect(ledgerPaths(rows)).toStrictEqual([
      { path: "a.txt", contentDigest: SHA.aaaa },
      { path: ".git/config", contentDigest: SHA.bbbb, harness: true },
      { path: "gone.pyc", contentDigest: "deleted" },
      { path: "node_modules/x", contentDigest: SHA["x\n"] },
    ]);
    expect(ledgerPaths([])).toStrictEqual([]);
  });
});
