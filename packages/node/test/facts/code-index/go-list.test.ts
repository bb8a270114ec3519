import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { CodeIndex, goListWorkspace, WorkspaceObserver } from "../../../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function workspace(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tg-golist-")));
  dirs.push(root);
  for (const [p, text] of Object.entries(files)) write(root, p, text);
  return root;
}
function write(root: string, p: string, text: string): void {
  mkdirSync(join(root, p, ".."), { recursive: true });
  writeFileSync(join(root, p), text);
}
async function build(root: string, env?: NodeJS.ProcessEnv): Promise<CodeIndex> {
  const observer = new WorkspaceObserver(root, { useGit: false });
  try {
    const snapshot = await observer.snapshot();
    return await CodeIndex.build(root, snapshot, env !== undefined ? { go: { env } } : {});
  } finally {
    await observer.close();
  }
}

// A module where the test-only import (b_test.go → example.com/m/testutil) is visible to
// go list (TestImports) and a file excluded by a build constraint is not part of the package.
const goModule = {
  "go.mod": "module example.com/m\n\ngo 1.22\n",
  "a/a.go": "package a\n\nfunc A() int { return 1 }\n",
  "a/ignored_windows.go": 'package a\n\nimport _ "example.com/m/c"\n',
  "b/b.go": 'package b\n\nimport "example.com/m/a"\n\nfunc B() int { return a.A() }\n',
  "b/b_test.go":
    'package b\n\nimport (\n\t"testing"\n\n\t"example.com/m/testutil"\n)\n\nfunc TestB(t *testing.T) { testutil.Check(t, B()) }\n',
  "b/x_test.go":
    'package b_test\n\nimport (\n\t"testing"\n\n\t"example.com/m/b"\n)\n\nfunc TestX(t *testing.T) { _ = b.B() }\n',
  "c/c.go": "package c\n",
  "testutil/testutil.go":
    'package testutil\n\nimport "testing"\n\nfunc Check(t *testing.T, v int) { if v == 0 { t.Fatal("zero") } }\n',
};

describe("CodeIndex: Go packages from go list -json", () => {
  test("real go list: package imports, a test-only import (TestImports), an external test package, a build-constrained file keeps its import lines; go.mod untouched", async () => {
    const root = workspace(goModule);
    const goMod = readFileSync(join(root, "go.mod"), "utf8");
    const index = await build(root);
    expect(index.goImports).toMatchObject({ source: "go_list", modules: [""], packages: 4 });
    expect(index.imports("b/b.go")).toEqual(["a/a.go"]);
    // The test file sees its package, its test-only import and the package's imports (not
    // the external test package, which imports b).
    expect(index.imports("b/b_test.go")).toEqual(["a/a.go", "b/b.go", "testutil/testutil.go"]);
    expect(index.imports("b/x_test.go")).toEqual(["b/b.go", "b/b_test.go"]);
    expect(index.importers("testutil/testutil.go")).toEqual(["b/b_test.go"]);
    // go list leaves ignored_windows.go out of package a (GOOS=linux); a file it does not
    // list keeps its import-line edges (it is built on another platform: no false negative).
    expect(index.importers("c/c.go")).toEqual(["a/ignored_windows.go"]);
    expect(readFileSync(join(root, "go.mod"), "utf8")).toBe(goMod);

    // An edit that adds an import re-runs go list and moves the edge.
    write(
      root,
      "c/c.go",
      'package c\n\nimport "example.com/m/testutil"\n\nvar _ = testutil.Check\n',
    );
    const observer = new WorkspaceObserver(root, { useGit: false });
    try {
      await index.refresh(await observer.snapshot());
    } finally {
      await observer.close();
    }
    expect(index.importers("testutil/testutil.go")).toEqual(["b/b_test.go", "c/c.go"]);
  });

  test("go absent from PATH: the import lines are used, and the index facts say why", async () => {
    const root = workspace(goModule);
    const empty = mkdtempSync(join(tmpdir(), "tg-nogo-"));
    dirs.push(empty);
    const index = await build(root, { ...process.env, PATH: empty });
    expect(index.goImports).toEqual({
      source: "import_lines",
      reason: "go is not on PATH",
      modules: [""],
      packages: 0,
    });
    // Import lines: a test file's imports come from its own lines (and its package's files).
    expect(index.imports("b/b_test.go")).toEqual(["b/b.go", "testutil/testutil.go"]);
  });

  test("a module that needs a go.sum entry it lacks: go list is frozen (-mod=readonly, GOPROXY=off), go.mod/go.sum are not written, the index facts report it", async () => {
    const goMod = "module example.com/n\n\ngo 1.22\n\nrequire example.org/absent v1.0.0\n";
    const root = workspace({
      "go.mod": goMod,
      "n.go": 'package n\n\nimport _ "example.org/absent"\n',
      "sub/s.go": 'package sub\n\nimport _ "example.com/n"\n',
    });
    const index = await build(root);
    expect(index.goImports).toMatchObject({
      source: "go_list",
      packages: 2,
      frozen:
        "go list would change go.mod/go.sum (run with -mod=readonly, nothing written): missing go.sum entry for module providing package example.org/absent (imported by example.com/n); to add:",
    });
    expect(index.importers("n.go")).toEqual(["sub/s.go"]);
    expect(readFileSync(join(root, "go.mod"), "utf8")).toBe(goMod);
    expect(() => readFileSync(join(root, "go.sum"))).toThrow(/ENOENT/);
  });

  test("a go.mod go list cannot read: the import lines are used and the reason is the first stderr line", async () => {
    const root = workspace({ "go.mod": "module\n", "m.go": "package m\n" });
    const r = await goListWorkspace(root, [""], false, {});
    expect(r).toMatchObject({ source: "import_lines", modules: [""] });
    expect(r.source === "import_lines" ? r.reason : "").toBe(
      "go list exited 1 in .: go: errors parsing go.mod: go.mod:1: usage: module module/path",
    );
  });

  test("go.work: one go list run at the root covers both modules", async () => {
    const root = workspace({
      "go.work": "go 1.22\n\nuse (\n\t./lib\n\t./app\n)\n",
      "lib/go.mod": "module example.com/lib\n\ngo 1.22\n",
      "lib/lib.go": "package lib\n\nfunc L() int { return 1 }\n",
      "app/go.mod": "module example.com/app\n\ngo 1.22\n",
      "app/main.go": 'package main\n\nimport "example.com/lib"\n\nfunc main() { _ = lib.L() }\n',
    });
    const index = await build(root);
    expect(index.goImports).toMatchObject({ source: "go_list", modules: [""], packages: 2 });
    expect(index.importers("lib/lib.go")).toEqual(["app/main.go"]);
  });
});
