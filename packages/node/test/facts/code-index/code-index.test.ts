import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fnv1a64 } from "@turngate/core";
import { afterEach, describe, expect, test } from "vitest";
import {
  affectedTargets,
  CodeIndex,
  CodeIndexError,
  fileHashSnapshot,
  openCodeIndex,
  WorkspaceObserver,
} from "../../../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function workspace(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tg-index-")));
  dirs.push(root);
  for (const [p, text] of Object.entries(files)) write(root, p, text);
  return root;
}
function write(root: string, p: string, text: string): void {
  mkdirSync(join(root, p, ".."), { recursive: true });
  writeFileSync(join(root, p), text);
}

const tsRepo = {
  "tsconfig.base.json":
    '{\n  // comments are allowed\n  "compilerOptions": { "baseUrl": ".", "paths": { "@lib/*": ["libs/*/src/index.ts"] }, },\n}\n',
  "packages/a/package.json": JSON.stringify({
    name: "@w/a",
    exports: { ".": "./dist/index.js", "./util": "./dist/util.js" },
  }),
  "packages/a/src/index.ts": 'export * from "./util.js";\nexport type { T } from "./types";\n',
  "packages/a/src/util.ts": "export const u = 1;\n",
  "packages/a/src/types.ts": "export type T = number;\n",
  "packages/b/package.json": JSON.stringify({ name: "b", main: "src/main.ts" }),
  "packages/b/src/main.ts":
    'import { u } from "@w/a/util";\nimport type { T } from "@w/a";\nimport x from "@lib/shared";\nconst lazy = () => import("./lazy");\nconst cfg = require("./cfg.cjs");\nexport const b: T = u + x;\n',
  "packages/b/src/lazy.ts": "export default 1;\n",
  "packages/b/src/cfg.cjs": "module.exports = {};\n",
  "packages/c/test/c.test.tsx":
    'import { b } from "b";\nimport React from "react";\nconst el = <div>{b}</div>;\n',
  "libs/shared/src/index.ts": "export default 2;\n",
  "py/pkg/__init__.py": "",
  "py/pkg/core.py": "VALUE = 1\n",
  "py/pkg/sub/__init__.py": "from .. import core\n",
  "py/pkg/sub/use.py":
    "from ..core import VALUE\nfrom . import (\n    helper,  # the helper\n)\nimport os, json\n",
  "py/pkg/sub/helper.py": "import pkg.core as c\n",
  "go.mod": "module example.com/m\n\ngo 1.22\n",
  "a/a.go": "package a\n\nfunc A() int { return 1 }\n",
  "a/extra.go": "package a\n",
  "b/b.go":
    'package b\n\nimport (\n\t"fmt"\n\tx "example.com/m/a"\n)\n\nfunc B() { fmt.Println(x.A()) }\n',
  "crate/Cargo.toml": '[package]\nname = "c"\nversion = "0.1.0"\n',
  "crate/src/lib.rs": "mod net;\npub mod util;\n",
  "crate/src/net/mod.rs": "use crate::util::helper;\nmod tcp;\n",
  "crate/src/net/tcp.rs": "use super::super::util;\n",
  "crate/src/util.rs": "pub fn helper() {}\n",
  "data/fixture.json": "{}\n",
};

describe("CodeIndex: import graph", () => {
  test("TS/JS (relative with .js→.ts, tsconfig paths, package exports with dist→src, type-only, dynamic literal, require), Python, Go, Rust", async () => {
    const root = workspace(tsRepo);
    const index = await CodeIndex.build(
      root,
      await new WorkspaceObserver(root, { useGit: false }).snapshot(),
    );
    expect(index.imports("packages/a/src/index.ts")).toEqual([
      "packages/a/src/types.ts",
      "packages/a/src/util.ts",
    ]);
    expect(index.imports("packages/b/src/main.ts")).toEqual([
      "libs/shared/src/index.ts",
      "packages/a/src/index.ts",
      "packages/a/src/util.ts",
      "packages/b/src/cfg.cjs",
      "packages/b/src/lazy.ts",
    ]);
    expect(index.imports("packages/c/test/c.test.tsx")).toEqual(["packages/b/src/main.ts"]);
    // `from . import helper` runs the package's __init__ too.
    expect(index.imports("py/pkg/sub/use.py")).toEqual([
      "py/pkg/core.py",
      "py/pkg/sub/__init__.py",
      "py/pkg/sub/helper.py",
    ]);
    expect(index.imports("py/pkg/sub/__init__.py")).toEqual([
      "py/pkg/__init__.py",
      "py/pkg/core.py",
    ]);
    expect(index.imports("py/pkg/sub/helper.py")).toEqual(["py/pkg/core.py"]);
    expect(index.imports("b/b.go")).toEqual(["a/a.go", "a/extra.go"]);
    expect(index.importers("a/a.go")).toEqual(["a/extra.go", "b/b.go"]);
    expect(index.imports("crate/src/lib.rs")).toEqual([
      "crate/src/net/mod.rs",
      "crate/src/util.rs",
    ]);
    expect(index.imports("crate/src/net/mod.rs")).toEqual([
      "crate/src/net/tcp.rs",
      "crate/src/util.rs",
    ]);
    expect(index.imports("crate/src/net/tcp.rs")).toEqual(["crate/src/util.rs"]);
    expect(index.importers("data/fixture.json")).toEqual([]);
    expect(index.isSource("data/fixture.json")).toBe(false);
    const util = index.pathToId("packages/a/src/util.ts") as number;
    expect(index.depsGet(util, "importers").map((id) => index.idToPath(id))).toEqual([
      "packages/a/src/index.ts",
      "packages/b/src/main.ts",
    ]);
    expect(index.file("packages/a/src/util.ts")).toMatchObject({
      hash: fnv1a64("export const u = 1;\n"),
      size: 20,
      language: "typescript",
      last_edit_seq: 0,
    });
    expect(index.seq).toBe(0);
  });

  test("the fallback follows importers transitively: util.ts → index.ts/main.ts → c.test.tsx; a data file nothing imports is unmapped", async () => {
    const root = workspace(tsRepo);
    const index = await CodeIndex.build(
      root,
      await new WorkspaceObserver(root, { useGit: false }).snapshot(),
    );
    const fact = await affectedTargets(["packages/a/src/util.ts", "data/fixture.json"], [], {
      root,
      codeIndex: index,
    });
    expect(fact.targets.map((t) => [t.id, t.reason, t.via ?? null])).toEqual([
      ["file:packages/a/src/util.ts", "fallback", null],
      ["file:packages/a/src/index.ts", "dependent", ["packages/a/src/util.ts"]],
      ["file:packages/b/src/main.ts", "dependent", ["packages/a/src/util.ts"]],
      [
        "file:packages/c/test/c.test.tsx",
        "dependent",
        ["packages/a/src/util.ts", "packages/b/src/main.ts"],
      ],
      ["file:data/fixture.json", "unmapped", null],
    ]);
    expect(fact.fallback.available).toBe(true);
  });
});

describe("CodeIndex: version log, incremental update from the observer's delta, persistence", () => {
  test("seq after three edits, changesSince, a revert to baseline bytes, a rename counts both paths", async () => {
    const root = workspace(tsRepo);
    const observer = new WorkspaceObserver(root, { useGit: false });
    const index = await CodeIndex.build(root, await observer.baseline());
    write(root, "packages/a/src/util.ts", "export const u = 2;\n");
    write(root, "packages/b/src/lazy.ts", "export default 3;\n");
    write(root, "packages/a/src/new.ts", 'import { u } from "./util.js";\n');
    const u1 = await index.update(await observer.delta());
    expect(u1).toMatchObject({ read: 3, recorded: 3 });
    expect(index.seq).toBe(3);
    expect(index.changesSince(0)).toEqual({
      current_seq: 3,
      since: 0,
      complete: true,
      changes: [
        {
          seq: 1,
          path: "packages/a/src/new.ts",
          change: "added",
          hash: fnv1a64('import { u } from "./util.js";\n'),
        },
        {
          seq: 2,
          path: "packages/a/src/util.ts",
          change: "modified",
          hash: fnv1a64("export const u = 2;\n"),
        },
        {
          seq: 3,
          path: "packages/b/src/lazy.ts",
          change: "modified",
          hash: fnv1a64("export default 3;\n"),
        },
      ],
    });
    expect(index.changesSince(2).changes.map((c) => c.seq)).toEqual([3]);
    expect(index.importers("packages/a/src/util.ts")).toEqual([
      "packages/a/src/index.ts",
      "packages/a/src/new.ts",
      "packages/b/src/main.ts",
    ]);
    // util.ts goes back to its baseline bytes: the delta no longer names it, the index still sees it.
    write(root, "packages/a/src/util.ts", "export const u = 1;\n");
    renameSync(join(root, "packages/b/src/lazy.ts"), join(root, "packages/b/src/lazy2.ts"));
    const u2 = await index.update(await observer.delta());
    expect(u2.recorded).toBe(3);
    expect(index.changesSince(3).changes.map((c) => [c.path, c.change])).toEqual([
      ["packages/a/src/util.ts", "modified"],
      ["packages/b/src/lazy.ts", "deleted"],
      ["packages/b/src/lazy2.ts", "added"],
    ]);
    expect(index.file("packages/a/src/util.ts")?.hash).toBe(fnv1a64("export const u = 1;\n"));
    // The deleted file's importers are still known to the fallback (old path counts).
    expect(index.importers("packages/b/src/lazy.ts")).toEqual(["packages/b/src/main.ts"]);
    expect(() => index.changesSince(-1)).toThrow(
      "changesSince: since must be a non-negative integer",
    );
  });

  test("save and load round-trip; another root's file is a typed error", async () => {
    const root = workspace(tsRepo);
    const observer = new WorkspaceObserver(root, { useGit: false });
    const index = await CodeIndex.build(root, await observer.baseline());
    write(root, "packages/a/src/util.ts", "export const u = 9;\n");
    await index.update(await observer.delta());
    const state = mkdtempSync(join(tmpdir(), "tg-state-"));
    dirs.push(state);
    await index.save(join(state, "code-index.json"));
    const loaded = await CodeIndex.load(root, join(state, "code-index.json"));
    expect(loaded.seq).toBe(1);
    expect(loaded.importers("packages/a/src/util.ts")).toEqual(
      index.importers("packages/a/src/util.ts"),
    );
    expect(loaded.changesSince(0)).toEqual(index.changesSince(0));
    await expect(CodeIndex.load("/elsewhere", join(state, "code-index.json"))).rejects.toThrow(
      CodeIndexError,
    );
  });
});

describe("openCodeIndex with the caller's snapshot (issue 33: one listing per observation)", () => {
  test("the index is brought up to date from the given snapshot, not from the disk, and saved as compact JSON", async () => {
    const root = workspace({
      "src/a.ts": 'import { b } from "./b.js";\n',
      "src/b.ts": "export const b = 1;\n",
    });
    const state = mkdtempSync(join(tmpdir(), "tg-state-"));
    dirs.push(state);
    const observer = new WorkspaceObserver(root, { useGit: false });
    const first = await openCodeIndex(root, {
      stateDir: state,
      snapshot: await observer.baseline(),
    });
    expect(first.built).toBe(true);
    write(root, "src/b.ts", "export const b = 2;\n");
    const taken = await observer.snapshot();
    // Written after the snapshot: a second observation would see it, the given snapshot does not.
    write(root, "src/c.ts", 'import { b } from "./b.js";\n');
    write(root, "src/b.ts", "export const b = 3;\n");
    const opened = await openCodeIndex(root, { stateDir: state, snapshot: taken });
    expect(opened.built).toBe(false);
    expect(opened.update).toMatchObject({ read: 1, recorded: 1 });
    // Which files to read again comes from the snapshot (b.ts changed in it, c.ts is not in it).
    expect(opened.index.file("src/c.ts")).toBeUndefined();
    expect(opened.index.importers("src/b.ts")).toEqual(["src/a.ts"]);
    const text = readFileSync(join(state, "code-index.json"), "utf8");
    expect(text.startsWith('{"schema":"turngate.code_index.v1","root":')).toBe(true);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.split("\n")).toHaveLength(2);
    // Without a snapshot the workspace is observed again: c.ts is found.
    const again = await openCodeIndex(root, { stateDir: state, observer: { useGit: false } });
    expect(again.update).toMatchObject({ read: 2, recorded: 2 });
    expect(again.index.file("src/b.ts")?.hash).toBe(fnv1a64("export const b = 3;\n"));
    expect(again.index.importers("src/b.ts")).toEqual(["src/a.ts", "src/c.ts"]);
    await observer.close();
  });
});

describe("fileHashSnapshot with the code index (harn-verification.md §1.1)", () => {
  test("indexed fast path, known, indexed_hash, last_edit_seq; an unknown file is hashed from disk", async () => {
    const root = workspace({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 1;\n" });
    const observer = new WorkspaceObserver(root, { useGit: false });
    const index = await CodeIndex.build(root, await observer.baseline());
    write(root, "b.ts", "export const b = 22;\n");
    utimesSync(join(root, "b.ts"), new Date(1_700_000_000_000), new Date(1_700_000_000_000));
    await index.update(await observer.delta());
    write(root, "c.ts", "new\n");
    const snap = await fileHashSnapshot(root, ["a.ts", "b.ts", "c.ts", "gone.ts"], {
      index,
      now: () => 5,
    });
    const a = index.file("a.ts");
    expect(snap).toEqual({
      seq: 1,
      captured_at_ms: 5,
      algorithm: "fnv1a64",
      snapshot: {
        "a.ts": fnv1a64("export const a = 1;\n"),
        "b.ts": fnv1a64("export const b = 22;\n"),
        "c.ts": fnv1a64("new\n"),
      },
      missing: ["gone.ts"],
      files: [
        {
          path: "a.ts",
          known: true,
          readable: true,
          hash: fnv1a64("export const a = 1;\n"),
          hash_source: "indexed",
          size: 20,
          mtime_ms: a?.mtime_ms,
          indexed_hash: fnv1a64("export const a = 1;\n"),
          indexed_mtime_ms: a?.mtime_ms,
          last_edit_seq: 0,
        },
        {
          path: "b.ts",
          known: true,
          readable: true,
          hash: fnv1a64("export const b = 22;\n"),
          hash_source: "indexed",
          size: 21,
          mtime_ms: 1_700_000_000_000,
          indexed_hash: fnv1a64("export const b = 22;\n"),
          indexed_mtime_ms: 1_700_000_000_000,
          last_edit_seq: 1,
        },
        {
          path: "c.ts",
          known: false,
          readable: true,
          hash: fnv1a64("new\n"),
          hash_source: "disk",
          size: 4,
          mtime_ms: expect.any(Number),
          indexed_hash: null,
          indexed_mtime_ms: null,
          last_edit_seq: 0,
        },
        {
          path: "gone.ts",
          known: false,
          readable: false,
          hash: null,
          hash_source: "missing",
          size: null,
          mtime_ms: null,
          indexed_hash: null,
          indexed_mtime_ms: null,
          last_edit_seq: 0,
        },
      ],
    });
    // Same size, other mtime: read from disk, the index's values still shown.
    write(root, "a.ts", "export const a = 2;\n");
    utimesSync(join(root, "a.ts"), new Date(1_600_000_000_000), new Date(1_600_000_000_000));
    const again = await fileHashSnapshot(root, ["a.ts"], { index });
    expect(again.files[0]).toMatchObject({
      known: true,
      hash: fnv1a64("export const a = 2;\n"),
      hash_source: "disk",
      indexed_hash: fnv1a64("export const a = 1;\n"),
    });
  });
});
