import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parseJsonStream } from "../../../src/facts/affected/parsers/go-list.js";
import {
  type AdapterRun,
  adapterTemplateContext,
  classifyChangedFile,
  importGraphFromData,
  parseAffectedOutput,
  pnpmLockChangedImporters,
  readAdapterRow,
  reduceAffectedTargets,
  renderSpec,
} from "../../../src/index.js";

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/affected/${name}`, import.meta.url), "utf8");
const ok = (stdout: string) => ({ status: "completed", ok: true, exit_code: 0, stdout });
const run = (id: string, parser_id: string, stdout: string): AdapterRun => ({
  id,
  parser_id,
  result: ok(stdout),
});
const ids = (fact: { targets: { id: string; reason: string }[] }) =>
  fact.targets.map((t) => `${t.id} ${t.reason}`);

const pnpmPackages = JSON.stringify({
  packages: [
    { root: "packages/a", manifest: { name: "a", scripts: { test: "vitest", build: "tsc" } } },
    { root: "packages/b", manifest: { name: "b", dependencies: { a: "workspace:*" } } },
    { root: "packages/c", manifest: { name: "c", devDependencies: { b: "workspace:^" } } },
  ],
});

describe("Harn's adapter rows and parsers (harn-verification.md §1.3, §1.3.1)", () => {
  test("row fields: id/name, parser_id/parser with the default, spec/command", () => {
    expect(readAdapterRow({ name: " web ", parser: "lines.v1", command: ["x"] }, 3)).toEqual({
      id: "web",
      parser_id: "lines.v1",
      spec: ["x"],
      template_context: {},
      command_options: {},
    });
    expect(readAdapterRow({ parser_id: "  " }, 2)).toMatchObject({
      id: "adapter/2",
      parser_id: "harn.targets_json.v1",
      spec: undefined,
    });
  });

  test("lines parser: trimmed lines, blanks skipped, files = every changed path", () => {
    const r = parseAffectedOutput("harn.targets_lines.v1", "app:test\r\n\n  lib:test  \n", {
      adapterId: "l",
      changedPaths: ["a.ts", "b.ts"],
    });
    expect(r.targets).toEqual([
      {
        id: "app:test",
        label: "app:test",
        adapter_id: "l",
        source: "adapter",
        kind: "target",
        files: ["a.ts", "b.ts"],
        reason: "direct",
      },
      {
        id: "lib:test",
        label: "lib:test",
        adapter_id: "l",
        source: "adapter",
        kind: "target",
        files: ["a.ts", "b.ts"],
        reason: "direct",
      },
    ]);
  });

  test("json parser: a list or {targets}, scalars become targets, given files and adapter_id rules", () => {
    const r = parseAffectedOutput(
      "json.targets.v1",
      JSON.stringify({
        affected_targets: [
          "x",
          7,
          { name: "y", files: ["only.ts"], adapter_id: "spoof", kind: "suite" },
          { id: "  " },
        ],
      }),
      { adapterId: "j", changedPaths: ["p.ts"] },
    );
    expect(r.targets).toEqual([
      {
        id: "x",
        label: "x",
        adapter_id: "j",
        source: "adapter",
        kind: "target",
        files: ["p.ts"],
        reason: "direct",
      },
      {
        id: "7",
        label: "7",
        adapter_id: "j",
        source: "adapter",
        kind: "target",
        files: ["p.ts"],
        reason: "direct",
      },
      {
        id: "y",
        name: "y",
        label: "y",
        adapter_id: "j",
        source: "adapter",
        kind: "suite",
        files: ["only.ts"],
        reason: "direct",
      },
    ]);
  });

  test("an unknown parser id is Harn's error text; empty stdout is a JSON error, both recorded in the fact", () => {
    const fact = reduceAffectedTargets({
      changedPaths: ["a.ts"],
      adapters: [
        run("u", "nope.v9", "[]"),
        {
          id: "e",
          parser_id: "harn.targets_json.v1",
          result: { status: "failed", exit_code: 2, stdout: "" },
        },
      ],
      fallback: false,
    });
    expect(fact.adapters).toEqual([
      {
        id: "u",
        parser_id: "nope.v9",
        status: "completed",
        ok: false,
        exit: 0,
        target_count: 0,
        error: "verification_affected_targets: unsupported parser_id `nope.v9`",
      },
      {
        id: "e",
        parser_id: "harn.targets_json.v1",
        status: "failed",
        ok: false,
        exit: 2,
        target_count: 0,
        error: expect.stringMatching(/^harn\.targets_json\.v1: stdout is not JSON/),
      },
    ]);
    expect(() =>
      reduceAffectedTargets({
        changedPaths: ["a.ts"],
        adapters: [run("u", "nope.v9", "[]")],
        failOnAdapterError: true,
      }),
    ).toThrow("verification_affected_targets: unsupported parser_id `nope.v9`");
  });

  test("a failed command whose stdout parses still gives targets (fact ok: false); a row without spec is not_configured", () => {
    const fact = reduceAffectedTargets({
      changedPaths: ["a.ts"],
      adapters: [
        {
          id: "f",
          parser_id: "lines.v1",
          result: { status: "failed", exit_code: 1, stdout: "t1\n" },
        },
        { id: "n", parser_id: "lines.v1" },
      ],
    });
    expect(fact.adapters).toEqual([
      { id: "f", parser_id: "lines.v1", status: "failed", ok: false, exit: 1, target_count: 1 },
      { id: "n", parser_id: "lines.v1", status: "not_configured", ok: false, target_count: 0 },
    ]);
    expect(ids(fact)).toEqual(["t1 direct"]);
    expect(fact.fallback).toEqual({ enabled: false, available: false, targets: [] });
  });

  test("js.workspace_graph.v1, Harn's {projects} form: sorted keys, root '' matches all, target_names sorted", () => {
    const stdout = JSON.stringify({
      projects: {
        web: { root: "apps/web", targets: { test: {}, build: {} } },
        all: { name: "ignored", tasks: [{ name: "lint" }, "fmt", "lint"] },
      },
    });
    const r = parseAffectedOutput("js.workspace_graph.v1", stdout, {
      adapterId: "web",
      changedPaths: ["apps/web/src/index.ts", "crates/app/src/lib.rs"],
    });
    expect(r.targets).toEqual([
      {
        id: "js:all",
        label: "all",
        kind: "js-project",
        adapter_id: "web",
        source: "adapter",
        files: ["apps/web/src/index.ts", "crates/app/src/lib.rs"],
        root: "",
        target_names: ["fmt", "lint"],
        reason: "direct",
      },
      {
        id: "js:web",
        label: "web",
        kind: "js-project",
        adapter_id: "web",
        source: "adapter",
        files: ["apps/web/src/index.ts"],
        root: "apps/web",
        target_names: ["build", "test"],
        reason: "direct",
      },
    ]);
  });

  test("js.workspace_graph.v1, Nx nx graph --file form: nodes and dependencies (ours, Harn §7 item 6)", () => {
    const stdout = JSON.stringify({
      graph: {
        nodes: {
          lib: { name: "lib", type: "lib", data: { root: "libs/lib", targets: { test: {} } } },
          web: { name: "web", type: "app", data: { root: "apps/web" } },
        },
        dependencies: {
          web: [
            { source: "web", target: "lib", type: "static" },
            { source: "web", target: "npm:react", type: "static" },
          ],
          lib: [],
        },
      },
    });
    const fact = reduceAffectedTargets({
      changedPaths: ["libs/lib/src/x.ts"],
      adapters: [run("nx", "nx.project_graph.v1", stdout)],
    });
    expect(fact.targets).toEqual([
      {
        id: "js:lib",
        label: "lib",
        kind: "js-project",
        adapter_id: "nx",
        source: "adapter",
        files: ["libs/lib/src/x.ts"],
        root: "libs/lib",
        target_names: ["test"],
        reason: "direct",
      },
      {
        id: "js:web",
        label: "web",
        kind: "js-project",
        adapter_id: "nx",
        source: "adapter",
        files: ["libs/lib/src/x.ts"],
        root: "apps/web",
        target_names: [],
        reason: "dependent",
        via: ["js:lib"],
      },
    ]);
  });
});

describe("pnpm.workspace.v1: c imports b imports a", () => {
  test("a change in a → a direct, b and c dependent with via", () => {
    const fact = reduceAffectedTargets({
      changedPaths: ["packages/a/src/index.ts"],
      adapters: [run("pnpm", "pnpm.workspace.v1", pnpmPackages)],
    });
    expect(fact.targets).toEqual([
      {
        id: "pnpm:a",
        label: "a",
        kind: "pnpm-package",
        adapter_id: "pnpm",
        source: "adapter",
        root: "packages/a",
        target_names: ["build", "test"],
        files: ["packages/a/src/index.ts"],
        reason: "direct",
      },
      {
        id: "pnpm:b",
        label: "b",
        kind: "pnpm-package",
        adapter_id: "pnpm",
        source: "adapter",
        root: "packages/b",
        target_names: [],
        files: ["packages/a/src/index.ts"],
        reason: "dependent",
        via: ["pnpm:a"],
      },
      {
        id: "pnpm:c",
        label: "c",
        kind: "pnpm-package",
        adapter_id: "pnpm",
        source: "adapter",
        root: "packages/c",
        target_names: [],
        files: ["packages/a/src/index.ts"],
        reason: "dependent",
        via: ["pnpm:a", "pnpm:b"],
      },
    ]);
    expect(fact.adapters).toEqual([
      {
        id: "pnpm",
        parser_id: "pnpm.workspace.v1",
        status: "completed",
        ok: true,
        exit: 0,
        target_count: 1,
        project_count: 3,
        project_roots: { "pnpm:a": "packages/a", "pnpm:b": "packages/b", "pnpm:c": "packages/c" },
      },
    ]);
    expect(fact.run_all).toBe(false);
    expect(fact.unmapped).toEqual([]);
  });

  test("the root babel.config.json changed → all three, global_file, run_all", () => {
    const fact = reduceAffectedTargets({
      changedPaths: ["babel.config.json"],
      adapters: [run("pnpm", "pnpm.workspace.v1", pnpmPackages)],
    });
    expect(ids(fact)).toEqual(["pnpm:a global_file", "pnpm:b global_file", "pnpm:c global_file"]);
    expect(fact.targets[0]?.files).toEqual(["babel.config.json"]);
    expect(fact.global_files).toEqual(["babel.config.json"]);
    expect(fact.run_all_reasons).toEqual(["global_file: babel.config.json"]);
  });

  test("pnpm-lock.yaml changed for one importer → that package only (reason lockfile)", () => {
    const before =
      "lockfileVersion: '9.0'\nimporters:\n  packages/a:\n    dependencies:\n      left-pad:\n        specifier: ^1.0.0\n        version: 1.0.0\n  packages/b:\n    dependencies:\n      a:\n        specifier: workspace:*\n        version: link:../a\npackages:\n  left-pad@1.0.0:\n    resolution: {integrity: sha512-x}\nsnapshots:\n  left-pad@1.0.0: {}\n";
    const after = before.replaceAll("1.0.0", "1.3.0").replace("sha512-x", "sha512-y");
    expect(pnpmLockChangedImporters(before, after)).toEqual({
      importers: ["packages/a"],
      all: false,
    });
    const fact = reduceAffectedTargets({
      changedPaths: ["pnpm-lock.yaml"],
      adapters: [run("pnpm", "pnpm.workspace.v1", pnpmPackages)],
      lockfiles: { "pnpm-lock.yaml": { before, after } },
    });
    expect(fact.targets).toEqual([
      {
        id: "pnpm:a",
        label: "a",
        kind: "pnpm-package",
        adapter_id: "pnpm",
        source: "adapter",
        root: "packages/a",
        target_names: ["build", "test"],
        files: ["pnpm-lock.yaml"],
        reason: "lockfile",
        lockfile_importer: "packages/a",
      },
    ]);
    expect(fact.run_all).toBe(false);
    // Without the old side the change cannot be narrowed: every package, run_all.
    const blind = reduceAffectedTargets({
      changedPaths: ["pnpm-lock.yaml"],
      adapters: [run("pnpm", "pnpm.workspace.v1", pnpmPackages)],
    });
    expect(ids(blind)).toEqual(["pnpm:a lockfile", "pnpm:b lockfile", "pnpm:c lockfile"]);
    expect(blind.run_all_reasons).toEqual(["lockfile: pnpm-lock.yaml"]);
  });

  test("a transitive dependency bump reaches the importer through snapshots; the root importer means all", () => {
    const before =
      "lockfileVersion: '9.0'\nimporters:\n  packages/b:\n    dependencies:\n      x:\n        specifier: ^1\n        version: 1.0.0\nsnapshots:\n  x@1.0.0:\n    dependencies:\n      y: 2.0.0\n  y@2.0.0: {}\n";
    const after = before.replace("y: 2.0.0", "y: 2.1.0").replace("y@2.0.0: {}", "y@2.1.0: {}");
    expect(pnpmLockChangedImporters(before, after)).toEqual({
      importers: ["packages/b"],
      all: false,
    });
    const rootBefore =
      "lockfileVersion: '9.0'\nimporters:\n  .:\n    devDependencies:\n      t:\n        specifier: ^5\n        version: 5.0.0\n";
    expect(pnpmLockChangedImporters(rootBefore, rootBefore.replaceAll("5.0.0", "5.1.0"))).toEqual({
      importers: ["."],
      all: true,
      why: "the root importer `.` changed",
    });
    expect(pnpmLockChangedImporters("a: [", "b: 1").all).toBe(true);
  });

  test("a data file nothing maps → unmapped (listed, never dropped, run_all); renamed file counts by both paths", () => {
    const fact = reduceAffectedTargets({
      changedPaths: ["docs/data.json", "packages/b/src/old.ts", "packages/c/src/new.ts"],
      adapters: [run("pnpm", "pnpm.workspace.v1", pnpmPackages)],
    });
    expect(ids(fact)).toEqual(["pnpm:b direct", "pnpm:c direct", "file:docs/data.json unmapped"]);
    expect(fact.unmapped).toEqual(["docs/data.json"]);
    expect(fact.run_all_reasons).toEqual(["unmapped: docs/data.json"]);
    expect(fact.targets[2]).toEqual({
      id: "file:docs/data.json",
      label: "docs/data.json",
      kind: "file",
      source: "unmapped",
      files: ["docs/data.json"],
      reason: "unmapped",
    });
  });
});

describe("cargo.metadata.v1 on real cargo metadata output (absolute manifest paths)", () => {
  const stdout = fixture("cargo-metadata-workspace.json");
  test("Harn's mapping with root-relative manifests; app depends on core", () => {
    const fact = reduceAffectedTargets({
      changedPaths: ["crates/core/src/lib.rs"],
      adapters: [run("cargo", "cargo.metadata.v1", stdout)],
      root: "/tmp/ws",
    });
    expect(fact.targets).toEqual([
      {
        id: "cargo:core",
        label: "core",
        kind: "cargo-package",
        adapter_id: "cargo",
        source: "adapter",
        files: ["crates/core/src/lib.rs"],
        manifest_path: "/tmp/ws/crates/core/Cargo.toml",
        target_names: ["core"],
        root: "crates/core",
        reason: "direct",
      },
      {
        id: "cargo:app",
        label: "app",
        kind: "cargo-package",
        adapter_id: "cargo",
        source: "adapter",
        manifest_path: "/tmp/ws/crates/app/Cargo.toml",
        target_names: ["app"],
        root: "crates/app",
        files: ["crates/core/src/lib.rs"],
        reason: "dependent",
        via: ["cargo:core"],
      },
    ]);
  });
  test("without a root, absolute manifests match nothing (Harn's behaviour, §7 item 6); Cargo.lock → every crate", () => {
    const harn = reduceAffectedTargets({
      changedPaths: ["crates/core/src/lib.rs"],
      adapters: [run("cargo", "cargo.metadata.v1", stdout)],
      fallback: false,
    });
    expect(ids(harn)).toEqual(["file:crates/core/src/lib.rs unmapped"]);
    const lock = reduceAffectedTargets({
      changedPaths: ["Cargo.lock"],
      adapters: [run("cargo", "cargo.metadata.v1", stdout)],
      root: "/tmp/ws",
    });
    expect(ids(lock)).toEqual(["cargo:core lockfile", "cargo:app lockfile"]);
  });
});

describe("go.list.v1 on real go list -json ./... output", () => {
  const stdout = fixture("go-list-module.json");
  test("a change in a → a direct (with its test files), b dependent, c dependent through its external test", () => {
    const fact = reduceAffectedTargets({
      changedPaths: ["a/a.go"],
      adapters: [run("go", "go.list.v1", stdout)],
      root: "/tmp/gows",
    });
    expect(fact.targets).toEqual([
      {
        id: "go:example.com/m/a",
        label: "example.com/m/a",
        kind: "go-package",
        adapter_id: "go",
        source: "adapter",
        root: "a",
        name: "a",
        test_files: ["a/a_test.go"],
        target_names: ["a_test.go"],
        files: ["a/a.go"],
        reason: "direct",
      },
      {
        id: "go:example.com/m/b",
        label: "example.com/m/b",
        kind: "go-package",
        adapter_id: "go",
        source: "adapter",
        root: "b",
        name: "b",
        test_files: [],
        target_names: [],
        files: ["a/a.go"],
        reason: "dependent",
        via: ["go:example.com/m/a"],
      },
      {
        id: "go:example.com/m/c",
        label: "example.com/m/c",
        kind: "go-package",
        adapter_id: "go",
        source: "adapter",
        root: "c",
        name: "c",
        test_files: ["c/c_test.go"],
        target_names: ["c_test.go"],
        files: ["a/a.go"],
        reason: "dependent",
        via: ["go:example.com/m/a", "go:example.com/m/b"],
      },
    ]);
  });
  test("garbage is a typed adapter fact; the stream splitter reads strings with braces", () => {
    const fact = reduceAffectedTargets({
      changedPaths: ["a/a.go"],
      adapters: [run("go", "go.list.v1", "go: no Go files\n")],
      fallback: false,
    });
    expect(fact.adapters[0]).toEqual({
      id: "go",
      parser_id: "go.list.v1",
      status: "completed",
      ok: false,
      exit: 0,
      target_count: 0,
      error: "go.list.v1: stdout is not a JSON stream (offset 0)",
    });
    expect(parseJsonStream('{"a":"}{\\""}\n[1]')).toEqual([{ a: '}{"' }, [1]]);
  });
});

describe("parseJsonStream bad input (issue #11: typed errors, one depth limit)", () => {
  test("a non-string is a TurngateValidationError at text; 513 levels is an AffectedParseError", () => {
    expect(() => parseJsonStream(null as unknown as string)).toThrow(
      "invalid JSON stream at text: expected a string, got null",
    );
    expect(parseJsonStream(`${"[".repeat(512)}${"]".repeat(512)}`)).toHaveLength(1);
    expect(() => parseJsonStream(`{"a":1}\n${"[".repeat(513)}${"]".repeat(513)}`)).toThrow(
      "go.list.v1: the JSON value at offset 8 nests deeper than 512 levels",
    );
    // Brackets inside a string are text, not nesting.
    expect(parseJsonStream(`["${"[".repeat(600)}"]`)).toEqual([["[".repeat(600)]]);
  });
});

describe("templates (§1.3 step 2–3, §2.12)", () => {
  test("paths with spaces and quotes through changed_paths_space; unknown names stay; keys untouched", () => {
    const ctx = adapterTemplateContext(["a b.ts", "it's.ts"], "/w", {
      root: "ignored",
      extra: "x",
    });
    expect(ctx.changed_paths_space).toBe(`'a b.ts' 'it'"'"'s.ts'`);
    expect(
      renderSpec(
        {
          mode: "shell",
          command: "tool {{ changed_paths_space }} --root={{root}} {{ missing }} {{extra}}",
          "{{k}}": ["{{ changed_paths_json }}", 3],
        },
        ctx,
      ),
    ).toEqual({
      mode: "shell",
      command: `tool 'a b.ts' 'it'"'"'s.ts' --root=/w {{ missing }} x`,
      "{{k}}": ['["a b.ts","it\'s.ts"]', 3],
    });
  });
});

describe("fallback (§1.3.2): transitive, with via", () => {
  const graph = importGraphFromData({
    importers: {
      "src/a.ts": ["src/b.ts"],
      "src/b.ts": ["src/c.ts", "test/b.test.ts"],
      "src/c.ts": ["test/c.test.ts"],
    },
    sources: ["src/a.ts", "src/b.ts", "src/c.ts", "test/b.test.ts", "test/c.test.ts"],
  });
  test("no adapters: the changed file, then every importer transitively; a data file is unmapped", () => {
    const fact = reduceAffectedTargets({
      changedPaths: ["src/a.ts", "assets/logo.png"],
      adapters: [],
      importGraph: graph,
    });
    expect(fact.targets.map((t) => [t.id, t.reason, t.via ?? null])).toEqual([
      ["file:src/a.ts", "fallback", null],
      ["file:src/b.ts", "dependent", ["src/a.ts"]],
      ["file:src/c.ts", "dependent", ["src/a.ts", "src/b.ts"]],
      ["file:test/b.test.ts", "dependent", ["src/a.ts", "src/b.ts"]],
      ["file:test/c.test.ts", "dependent", ["src/a.ts", "src/b.ts", "src/c.ts"]],
      ["file:assets/logo.png", "unmapped", null],
    ]);
    expect(fact.fallback.available).toBe(true);
    expect(fact.unmapped).toEqual(["assets/logo.png"]);
  });
  test("without an index the fallback keeps each changed file and says it is not available; {fallback:false} disables it", () => {
    const fact = reduceAffectedTargets({ changedPaths: ["src/a.ts"], adapters: [] });
    expect(fact.fallback).toEqual({
      enabled: true,
      available: false,
      errors: [],
      targets: [
        {
          id: "file:src/a.ts",
          label: "src/a.ts",
          kind: "file",
          source: "code_index",
          files: ["src/a.ts"],
          reason: "fallback",
          fallback_reason: "changed_file",
        },
      ],
    });
    const off = reduceAffectedTargets({
      changedPaths: ["src/a.ts"],
      adapters: [],
      importGraph: graph,
      fallback: false,
    });
    expect(ids(off)).toEqual(["file:src/a.ts unmapped"]);
  });
  test("an index that throws is recorded in errors, not thrown", () => {
    const broken = {
      importers: () => {
        throw new Error("index gone");
      },
      isSource: () => true,
    };
    const fact = reduceAffectedTargets({
      changedPaths: ["x.ts"],
      adapters: [],
      importGraph: broken,
    });
    expect(fact.fallback).toMatchObject({
      enabled: true,
      available: false,
      errors: ["index gone"],
    });
  });
});

describe("classifyChangedFile", () => {
  test.each([
    ["tsconfig.base.json", "global_file"],
    ["babel.config.cjs", "global_file"],
    [".eslintrc.json", "global_file"],
    ["turbo.json", "global_file"],
    ["nx.json", "global_file"],
    ["Cargo.toml", "global_file"],
    ["go.work", "global_file"],
    [".github/workflows/ci.yml", "global_file"],
    ["packages/a/tsconfig.json", "source"],
    ["packages/a/yarn.lock", "lockfile"],
    ["uv.lock", "lockfile"],
    ["go.sum", "lockfile"],
    ["src/index.ts", "source"],
  ])("%s → %s", (path, cls) => {
    expect(classifyChangedFile(path)).toBe(cls);
  });
  test("extra globs", () => {
    expect(classifyChangedFile("config/app.yaml", ["config/*"])).toBe("global_file");
  });
});
