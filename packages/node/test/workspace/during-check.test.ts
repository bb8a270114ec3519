/**
 * `checkChanges` and its helpers (issue 10, "What the checks changed"): the pure rule that
 * sorts the difference between the snapshots around the checks into unbinding changes and
 * check outputs.
 */
import { describe, expect, test } from "vitest";
import {
  AdoptedCheckOutputs,
  CHECK_OUTPUTS_CAP,
  capCheckOutputs,
  checkChanges,
  checkChangesHint,
  onlyRewrites,
  outputsPatternFor,
  sourceDirectories,
} from "../../src/workspace/diff/during-check.js";
import { rewritePathMatcher } from "../../src/workspace/diff/rewrite-paths.js";
import type { EntryState, OutsideEntry, WorkspaceSnapshot } from "../../src/workspace/snapshot.js";

const D1 = "1".repeat(64);
const D2 = "2".repeat(64);
const file = (over: Partial<EntryState> = {}): EntryState => ({
  kind: "file",
  content_digest: D1,
  size: 4,
  mtime_ms: 1000,
  ctime_ms: 1000,
  ino: 7,
  mode: 0o100644,
  ...over,
});
const out = (scope: OutsideEntry["scope"], over: Partial<OutsideEntry> = {}): OutsideEntry => ({
  ...file(),
  scope,
  hashed: true,
  ...over,
});
const snap = (
  entries: Record<string, EntryState>,
  outside: Record<string, OutsideEntry> = {},
  unreadable: string[] = [],
): WorkspaceSnapshot => ({
  root: "/w",
  taken_at_ms: 0,
  git: true,
  entries: new Map(Object.entries(entries)),
  outside: new Map(Object.entries(outside)),
  unreadable,
});

describe("checkChanges", () => {
  test("each identity field of a pre-existing source file counts; equal states do not", () => {
    const before = snap({
      same: file(),
      size: file(),
      mtime: file(),
      ctime: file(),
      ino: file(),
      mode: file(),
      bytes: file(),
      gone: file(),
    });
    const after = snap({
      same: file(),
      size: file({ size: 5 }),
      mtime: file({ mtime_ms: 1001 }),
      ctime: file({ ctime_ms: 1000.5 }),
      ino: file({ ino: 8 }),
      mode: file({ mode: 0o100755 }),
      bytes: file({ content_digest: D2 }),
      fresh: file(),
    });
    expect(checkChanges(before, after)).toEqual({
      changed: [
        { path: "bytes", change: "modified" },
        { path: "ctime", change: "metadata" },
        { path: "gone", change: "deleted" },
        { path: "ino", change: "metadata" },
        { path: "mode", change: "modified" },
        { path: "mtime", change: "metadata" },
        { path: "size", change: "metadata" },
      ],
      created: ["fresh"],
      harness: [],
      outputs: [],
      unreadable: [],
    });
  });

  test("ignored and output changes are check outputs; harness changes are not", () => {
    const before = snap(
      { "a.py": file() },
      {
        "node_modules/x.js": out("ignored", { hashed: false, content_digest: "" }),
        "target/old": out("output"),
        ".git/config": out("harness"),
        "kept.log": out("ignored"),
      },
    );
    const after = snap(
      { "a.py": file() },
      {
        "node_modules/x.js": out("ignored", { mtime_ms: 2000, content_digest: D2 }),
        "__pycache__/a.pyc": out("output"),
        ".git/config": out("harness", { content_digest: D2 }),
        ".git/hooks/pre-commit": out("harness"),
        "kept.log": out("ignored"),
      },
      ["sock"],
    );
    expect(checkChanges(before, after)).toEqual({
      changed: [],
      created: [],
      harness: [".git/config", ".git/hooks/pre-commit"],
      outputs: [
        { path: "__pycache__/a.pyc", change: "added", scope: "output" },
        { path: "node_modules/x.js", change: "modified", scope: "ignored" },
        { path: "target/old", change: "deleted", scope: "output" },
      ],
      unreadable: ["sock"],
    });
  });

  test("a stat-only outside entry with the same identity is unchanged (its digest is not compared)", () => {
    const before = snap({}, { "dist/a": out("ignored", { hashed: false, content_digest: "" }) });
    const after = snap({}, { "dist/a": out("ignored", { content_digest: D2 }) });
    expect(checkChanges(before, after).outputs).toEqual([]);
  });

  test("a source file that moves out of scope is deleted from source scope (it unbinds)", () => {
    const before = snap({ "gen.txt": file() });
    const after = snap({}, { "gen.txt": out("ignored") });
    const changes = checkChanges(before, after);
    expect(changes.changed).toEqual([{ path: "gen.txt", change: "deleted" }]);
    expect(changes.outputs).toEqual([{ path: "gen.txt", change: "modified", scope: "ignored" }]);
  });
});

describe("rewrites, patterns, caps and hints", () => {
  test("onlyRewrites: every unbinding change a rewrite path, none deleted, no harness", () => {
    const is = rewritePathMatcher(["Cargo.lock", "web/package-lock.json"]);
    const base = { harness: [], outputs: [], unreadable: [] };
    expect(
      onlyRewrites(
        {
          ...base,
          changed: [{ path: "crates/a/Cargo.lock", change: "modified" }],
          created: ["Cargo.lock", "web/package-lock.json"],
        },
        is,
      ),
    ).toEqual(["Cargo.lock", "crates/a/Cargo.lock", "web/package-lock.json"]);
    expect(onlyRewrites({ ...base, changed: [], created: ["package-lock.json"] }, is)).toEqual([]);
    expect(
      onlyRewrites(
        { ...base, changed: [{ path: "Cargo.lock", change: "deleted" }], created: [] },
        is,
      ),
    ).toEqual([]);
    expect(
      onlyRewrites({ ...base, harness: [".git/config"], changed: [], created: ["Cargo.lock"] }, is),
    ).toEqual([]);
    expect(onlyRewrites({ ...base, changed: [], created: [] }, is)).toEqual([]);
  });

  test("outputsPatternFor: the shallowest folder without source files, else the path", () => {
    const dirs = sourceDirectories(snap({ "src/lib/a.rs": file(), README: file() }));
    expect([...dirs].sort()).toEqual(["src", "src/lib"]);
    expect(outputsPatternFor("build/x/y.o", dirs)).toBe("build/");
    expect(outputsPatternFor("src/gen/y.rs", dirs)).toBe("src/gen/");
    expect(outputsPatternFor("src/lib/b.rs", dirs)).toBe("src/lib/b.rs");
    expect(outputsPatternFor("report.xml", dirs)).toBe("report.xml");
  });

  test("capCheckOutputs merges lists (later wins), sorts, caps the list and keeps the exact count", () => {
    const many = Array.from({ length: CHECK_OUTPUTS_CAP + 5 }, (_, i) => ({
      path: `t/${String(i).padStart(3, "0")}`,
      change: "added" as const,
      scope: "output" as const,
    }));
    const merged = capCheckOutputs([
      many,
      [{ path: "t/000", change: "modified", scope: "output" }],
    ]);
    expect(merged.count).toBe(CHECK_OUTPUTS_CAP + 5);
    expect(merged.paths).toHaveLength(CHECK_OUTPUTS_CAP);
    expect(merged.paths[0]).toEqual({ path: "t/000", change: "modified", scope: "output" });
    expect(merged.paths.at(-1)?.path).toBe(`t/${String(CHECK_OUTPUTS_CAP - 1).padStart(3, "0")}`);
  });

  test("AdoptedCheckOutputs: while an output holds the checks' state, deltas show it as the agent left it", () => {
    // The agent changed dist/y.js before the checks; the checks then wrote x, y and z.
    const before = snap(
      { "a.py": file() },
      { "dist/x.js": out("ignored"), "dist/y.js": out("ignored", { mtime_ms: 5 }) },
    );
    const after = snap(
      { "a.py": file() },
      {
        "dist/x.js": out("ignored", { mtime_ms: 9, content_digest: D2 }),
        "dist/y.js": out("ignored", { mtime_ms: 9, content_digest: D2 }),
        "coverage/z": out("output"),
      },
    );
    const agentY = {
      path: "dist/y.js",
      change: "modified" as const,
      content_digest: D1,
      scope: "ignored" as const,
    };
    const adopted = new AdoptedCheckOutputs();
    adopted.adopt([agentY], after, checkChanges(before, after).outputs);
    expect(adopted.size).toBe(3);
    const checksY = { ...agentY, content_digest: D2 };
    const x = {
      path: "dist/x.js",
      change: "modified" as const,
      content_digest: D2,
      scope: "ignored" as const,
    };
    const z = {
      path: "coverage/z",
      change: "added" as const,
      content_digest: D1,
      scope: "output" as const,
    };
    // Against the baseline, the state after the checks shows x, y (the checks' bytes) and z.
    expect(adopted.apply([z, x, checksY], after)).toEqual([agentY]);
    // The agent's change comes back even when the delta lacks the path.
    expect(adopted.apply([], after)).toEqual([agentY]);
    // A later write to x is a change again; z deleted since is a change again (here: none).
    const later = snap(
      { "a.py": file() },
      {
        "dist/x.js": out("ignored", { mtime_ms: 10 }),
        "dist/y.js": out("ignored", { mtime_ms: 9, content_digest: D2 }),
      },
    );
    const x2 = { ...x, content_digest: D1 };
    expect(adopted.apply([x2, checksY], later)).toEqual([x2, agentY]);
  });

  test("checkChangesHint: clauses in order, paths capped at three", () => {
    const hint = checkChangesHint(
      {
        changed: [
          { path: "go.sum", change: "modified" },
          { path: "a.go", change: "modified" },
        ],
        created: ["out/1", "out/2", "out/3", "out/4"],
        harness: [".git/info/exclude"],
        outputs: [],
        unreadable: ["fifo"],
      },
      { isRewritePath: () => false, sourceDirs: new Set() },
    );
    expect(hint).toBe(
      [
        'the check rewrote go.sum: run go once in the agent\'s turn, or set "rewrite_paths": ["go.sum"] in turngate.config.json',
        "the checks changed a.go while they ran: a check must not write source files; do that step in the agent's turn, or write to an output location",
        'the checks created out/1, out/2, out/3 and 1 more: add "out/" to "outputs" in turngate.config.json, or to .gitignore',
        "the checks changed .git/info/exclude: a check must not change git's config, hooks or info/, or turngate's folder (that changes what later commands run); remove that step from the checks",
        "the checks left fifo that cannot be read (a special file, or no permission): remove it or make it readable",
      ].join("; "),
    );
  });

  test("checkChangesHint: an untracked file the checks modified gets the outputs hint, a tracked one does not (QA P2)", () => {
    const hint = checkChangesHint(
      {
        changed: [
          { path: "a.go", change: "modified" },
          { path: "reports/out.log", change: "modified" },
        ],
        created: [],
        harness: [],
        outputs: [],
        unreadable: [],
      },
      {
        isRewritePath: () => false,
        sourceDirs: new Set(["reports"]),
        untracked: new Set(["reports/out.log"]),
      },
    );
    expect(hint).toBe(
      [
        "the checks changed a.go while they ran: a check must not write source files; do that step in the agent's turn, or write to an output location",
        'the checks rewrote reports/out.log, which git does not track: add "reports/out.log" to "outputs" in turngate.config.json, or to .gitignore',
      ].join("; "),
    );
  });
});
