/**
 * `facts.affected_targets`, `facts.code_index_changes_since` and `facts.file_hash_snapshot`
 * with the code index, through the real stdio server on a real pnpm workspace.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

function write(root: string, p: string, text: string): void {
  mkdirSync(join(root, p, ".."), { recursive: true });
  writeFileSync(join(root, p), text);
}

describe("affected targets and the code index over stdio", () => {
  let bridge: BridgeProcess;
  let root: string;
  let state: string;
  beforeAll(() => {
    bridge = new BridgeProcess();
    root = mkdtempSync(join(tmpdir(), "turngate-affected-"));
    state = mkdtempSync(join(tmpdir(), "turngate-affected-state-"));
    write(root, "pnpm-workspace.yaml", "packages:\n  - packages/*\n");
    write(root, "packages/a/package.json", JSON.stringify({ name: "a" }));
    write(root, "packages/a/src/index.ts", "export const a = 1;\n");
    write(
      root,
      "packages/b/package.json",
      JSON.stringify({ name: "b", dependencies: { a: "workspace:*" } }),
    );
    write(root, "packages/b/src/index.ts", 'import { a } from "a";\nexport const b = a;\n');
  });
  afterAll(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  test("detected pnpm adapter: a direct, b dependent via a; a data file is unmapped and run_all", async () => {
    const fact = await bridge.call<Record<string, unknown>>("facts.affected_targets", {
      root,
      changed_paths: ["packages/a/src/index.ts", "notes/data.csv"],
      state_dir: state,
    });
    const targets = fact.targets as Array<Record<string, unknown>>;
    expect(targets.map((t) => [t.id, t.reason, t.via ?? null])).toEqual([
      ["pnpm:a", "direct", null],
      ["pnpm:b", "dependent", ["pnpm:a"]],
      ["file:notes/data.csv", "unmapped", null],
    ]);
    expect(fact.run_all_reasons).toEqual(["unmapped: notes/data.csv"]);
  });

  test("no adapters: the fallback walks the code index (b imports a through the package name)", async () => {
    const fact = await bridge.call<Record<string, unknown>>("facts.affected_targets", {
      root,
      changed_paths: ["packages/a/src/index.ts"],
      adapters: [],
      state_dir: state,
    });
    const targets = fact.targets as Array<Record<string, unknown>>;
    expect(targets.map((t) => [t.id, t.reason, t.via ?? null])).toEqual([
      ["file:packages/a/src/index.ts", "fallback", null],
      ["file:packages/b/src/index.ts", "dependent", ["packages/a/src/index.ts"]],
    ]);
  });

  test("code_index_changes_since after an edit; file_hash_snapshot uses the index", async () => {
    const first = await bridge.call<Record<string, unknown>>("facts.code_index_changes_since", {
      root,
      state_dir: state,
    });
    const seq = first.current_seq as number;
    write(root, "packages/b/src/index.ts", 'import { a } from "a";\nexport const b = a + 1;\n');
    const next = await bridge.call<Record<string, unknown>>("facts.code_index_changes_since", {
      root,
      since: seq,
      state_dir: state,
    });
    expect(next).toMatchObject({
      current_seq: seq + 1,
      since: seq,
      complete: true,
      built: false,
      files: 5,
      go_imports: { source: "none", modules: [], packages: 0 },
    });
    expect(
      (next.changes as Array<Record<string, unknown>>).map((c) => [c.seq, c.path, c.change]),
    ).toEqual([[seq + 1, "packages/b/src/index.ts", "modified"]]);
    const snap = await bridge.call<Record<string, unknown>>("facts.code_index_file_hash_snapshot", {
      root,
      paths: ["packages/b/src/index.ts"],
      state_dir: state,
    });
    expect(snap.seq).toBe(seq + 1);
    expect(snap.files).toEqual([
      expect.objectContaining({
        path: "packages/b/src/index.ts",
        known: true,
        hash_source: "indexed",
        last_edit_seq: seq + 1,
      }),
    ]);
  });

  test("code_index_changes_since on a Go module: go_imports says go list -json was used; a test-only import is an edge the affected fallback follows", async () => {
    const go = mkdtempSync(join(tmpdir(), "turngate-affected-go-"));
    const goState = mkdtempSync(join(tmpdir(), "turngate-affected-go-state-"));
    try {
      write(go, "go.mod", "module example.com/g\n\ngo 1.22\n");
      write(go, "lib/lib.go", "package lib\n\nfunc L() int { return 1 }\n");
      write(go, "helper/helper.go", "package helper\n\nconst H = 2\n");
      write(
        go,
        "lib/lib_test.go",
        'package lib\n\nimport (\n\t"testing"\n\n\t"example.com/g/helper"\n)\n\nfunc TestL(t *testing.T) { _ = helper.H }\n',
      );
      const changes = await bridge.call<Record<string, unknown>>("facts.code_index_changes_since", {
        root: go,
        state_dir: goState,
      });
      expect(changes.go_imports).toMatchObject({ source: "go_list", modules: [""], packages: 2 });
      const fact = await bridge.call<Record<string, unknown>>("facts.affected_targets", {
        root: go,
        changed_paths: ["helper/helper.go"],
        adapters: [],
        state_dir: goState,
      });
      expect((fact.targets as Array<Record<string, unknown>>).map((t) => [t.id, t.reason])).toEqual(
        [
          ["file:helper/helper.go", "fallback"],
          ["file:lib/lib_test.go", "dependent"],
        ],
      );
    } finally {
      rmSync(go, { recursive: true, force: true });
      rmSync(goState, { recursive: true, force: true });
    }
  });

  test("bad params name the field", async () => {
    const data = async (params: unknown) =>
      (await bridge.request("facts.affected_targets", params)).error?.data;
    expect(await data({ root, changed_paths: "x" })).toMatchObject({
      code: "invalid_params",
      path: "changed_paths",
    });
    expect(await data({ root, changed_paths: [], since: 1 })).toMatchObject({
      code: "invalid_params",
    });
    expect(await data({ root: join(root, "missing"), changed_paths: ["a"] })).toMatchObject({
      path: "root",
    });
  });
});
