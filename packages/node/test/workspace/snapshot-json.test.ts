import { describe, expect, test } from "vitest";
import {
  deserializeSnapshot,
  serializeSnapshot,
  WORKSPACE_SNAPSHOT_SCHEMA,
  type WorkspaceSnapshot,
} from "../../src/workspace/index.js";
import { SHA } from "./helpers.js";

const snapshot: WorkspaceSnapshot = {
  root: "/ws",
  taken_at_ms: 1_796_000_000_123.5,
  git: true,
  entries: new Map([
    [
      "z.txt",
      {
        kind: "file",
        content_digest: SHA["x\n"],
        size: 2,
        mtime_ms: 1_795_999_999_000.25,
        ctime_ms: 1_795_999_999_001.75,
        ino: 42,
        mode: 0o100644,
      },
    ],
    [
      "a/link",
      {
        kind: "symlink",
        content_digest: SHA["target.txt"],
        size: 10,
        mtime_ms: 1,
        ctime_ms: 2,
        ino: 43,
        mode: 0o120777,
      },
    ],
  ]),
  unreadable: ["pipe"],
};

describe("snapshot serialisation", () => {
  test("serializeSnapshot writes the schema id and entries sorted by path", () => {
    const json = serializeSnapshot(snapshot);
    expect(json.schema).toBe("turngate.workspace_snapshot.v1");
    expect(WORKSPACE_SNAPSHOT_SCHEMA).toBe("turngate.workspace_snapshot.v1");
    expect(json.entries.map((e) => e.path)).toEqual(["a/link", "z.txt"]);
    expect(json.entries[1]).toEqual({
      path: "z.txt",
      kind: "file",
      content_digest: SHA["x\n"],
      size: 2,
      mtime_ms: 1_795_999_999_000.25,
      ctime_ms: 1_795_999_999_001.75,
      ino: 42,
      mode: 0o100644,
    });
  });

  test("a snapshot survives JSON text unchanged", () => {
    const text = JSON.stringify(serializeSnapshot(snapshot));
    expect(deserializeSnapshot(JSON.parse(text))).toEqual(snapshot);
  });

  test.each([
    [{ ...serializeSnapshot(snapshot), schema: "other" }, "schema"],
    [{ ...serializeSnapshot(snapshot), git: "yes" }, "git"],
    [{ ...serializeSnapshot(snapshot), taken_at_ms: "now" }, "taken_at_ms"],
    [{ ...serializeSnapshot(snapshot), unreadable: [3] }, "unreadable[0]"],
    [
      {
        ...serializeSnapshot(snapshot),
        entries: [{ ...serializeSnapshot(snapshot).entries[0], content_digest: "ABC" }],
      },
      "entries[0].content_digest",
    ],
    [
      {
        ...serializeSnapshot(snapshot),
        entries: [{ ...serializeSnapshot(snapshot).entries[0], kind: "dir" }],
      },
      "entries[0].kind",
    ],
    [
      {
        ...serializeSnapshot(snapshot),
        entries: [serializeSnapshot(snapshot).entries[0], serializeSnapshot(snapshot).entries[0]],
      },
      "entries[1].path",
    ],
  ])("deserializeSnapshot rejects bad input naming the field (%#)", (input, field) => {
    expect(() => deserializeSnapshot(input)).toThrow(
      expect.objectContaining({ name: "WorkspaceObserverError", code: "invalid_snapshot", field }),
    );
  });

  test("deserializeSnapshot rejects a non-object with a clear message", () => {
    expect(() => deserializeSnapshot(null)).toThrow("snapshot: must be an object");
  });
});
