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
  outside: new Map([
    [
      "node_modules/.bin/node",
      {
        kind: "file",
        content_digest: "",
        size: 7,
        mtime_ms: 5,
        ctime_ms: 6,
        ino: 44,
        mode: 0o100755,
        scope: "ignored",
        hashed: false,
      },
    ],
    [
      ".git/config",
      {
        kind: "file",
        content_digest: SHA["x\n"],
        size: 2,
        mtime_ms: 7,
        ctime_ms: 8,
        ino: 45,
        mode: 0o100644,
        scope: "harness",
        hashed: true,
      },
    ],
  ]),
  unreadable: ["pipe"],
};

const withIgnoreState: WorkspaceSnapshot = {
  ...snapshot,
  unreadable_reasons: { pipe: "a FIFO has no bytes to bind" },
  ignore_state: {
    taken_at_ms: 1_796_000_000_000,
    repos: [
      {
        dir: "",
        toplevel: "/ws",
        prefix: "",
        git_entry: "dir 7",
        excludes_file: null,
        ignore_case: null,
        config_files: [{ path: "/ws/.git/config", digest: null }],
        sources: [
          {
            kind: "gitignore",
            path: "src/.gitignore",
            digest: SHA["*\n"],
            content: "Kgo=",
            symlink: false,
          },
        ],
        ignored: ["build/", "debug.log"],
        dirs: [{ path: "src", mtime_ms: 1.5, ctime_ms: 2.5, ino: 9 }],
        nested: ["vendor/lib"],
      },
    ],
    unrecorded: [],
  },
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

  test("outside entries are written sorted by path with scope and hashed", () => {
    const json = serializeSnapshot(snapshot);
    expect(json.outside.map((e) => [e.path, e.scope, e.hashed, e.content_digest])).toEqual([
      [".git/config", "harness", true, SHA["x\n"]],
      ["node_modules/.bin/node", "ignored", false, ""],
    ]);
  });

  test("a stored snapshot without outside (written before issue 10) reads back with none", () => {
    const { outside: _, ...old } = serializeSnapshot(snapshot);
    expect(deserializeSnapshot(old).outside).toEqual(new Map());
  });

  test("a snapshot survives JSON text unchanged", () => {
    const text = JSON.stringify(serializeSnapshot(snapshot));
    expect(deserializeSnapshot(JSON.parse(text))).toEqual(snapshot);
  });

  test("ignore_state and unreadable_reasons survive JSON text unchanged", () => {
    const text = JSON.stringify(serializeSnapshot(withIgnoreState));
    expect(deserializeSnapshot(JSON.parse(text))).toEqual(withIgnoreState);
    expect(serializeSnapshot(snapshot)).not.toHaveProperty("ignore_state");
  });

  const badSource = (path: string): unknown => {
    const json = JSON.parse(JSON.stringify(serializeSnapshot(withIgnoreState)));
    json.ignore_state.repos[0].sources[0].path = path;
    return json;
  };

  test.each([
    "../../home/user/.gitignore",
    "src/../../x/.gitignore",
    "/etc/.gitignore",
    ".git/hooks/.gitignore",
    "src/gitignore",
  ])("deserializeSnapshot refuses the .gitignore source path %s", (path) => {
    expect(() => deserializeSnapshot(badSource(path))).toThrow(
      expect.objectContaining({
        code: "invalid_snapshot",
        field: "ignore_state.repos[0].sources[0].path",
      }),
    );
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
    [
      { ...serializeSnapshot(snapshot), unreadable_reasons: { pipe: 3 } },
      "unreadable_reasons.pipe",
    ],
    [{ ...serializeSnapshot(snapshot), ignore_state: { repos: [] } }, "ignore_state.taken_at_ms"],
    [{ ...serializeSnapshot(snapshot), outside: {} }, "outside"],
    [
      {
        ...serializeSnapshot(snapshot),
        outside: [{ ...serializeSnapshot(snapshot).outside[0], scope: "source" }],
      },
      "outside[0].scope",
    ],
    [
      {
        ...serializeSnapshot(snapshot),
        outside: [{ ...serializeSnapshot(snapshot).outside[1], content_digest: SHA["x\n"] }],
      },
      "outside[0].content_digest",
    ],
    [
      {
        ...serializeSnapshot(snapshot),
        outside: [{ ...serializeSnapshot(snapshot).outside[0], path: "z.txt" }],
      },
      "outside[0].path",
    ],
    [
      {
        ...serializeSnapshot(snapshot),
        outside: [{ ...serializeSnapshot(snapshot).outside[0], hashed: 1 }],
      },
      "outside[0].hashed",
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
