import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { affectedTargets, detectAdapters } from "../../../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function workspace(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tg-affected-")));
  dirs.push(root);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(root, p, ".."), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  return root;
}
const has = (tool: string) => {
  try {
    execFileSync(tool, ["version"], { stdio: "ignore" });
    return true;
  } catch {
    try {
      execFileSync(tool, ["--version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  }
};
const pnpmWorkspace = {
  "pnpm-workspace.yaml": "packages:\n  - packages/*\n  - '!packages/ignored'\n",
  "package.json": JSON.stringify({ name: "root", private: true }),
  "packages/a/package.json": JSON.stringify({ name: "a", scripts: { test: "vitest" } }),
  "packages/a/src/index.ts": "export const a = 1;\n",
  "packages/b/package.json": JSON.stringify({ name: "b", dependencies: { a: "workspace:*" } }),
  "packages/b/src/index.ts": 'import { a } from "a";\nexport const b = a;\n',
  "packages/c/package.json": JSON.stringify({ name: "c", dependencies: { b: "workspace:*" } }),
  "packages/c/src/index.ts": 'import { b } from "b";\nexport const c = b;\n',
  "packages/ignored/package.json": JSON.stringify({ name: "ignored", dependencies: { a: "1" } }),
};

describe("affectedTargets on real workspaces and real processes", () => {
  test("pnpm workspace (built-in reader, no command): a → a direct, b and c dependent with via", async () => {
    const root = workspace(pnpmWorkspace);
    const fact = await affectedTargets(["packages/a/src/index.ts"], detectAdapters(root), { root });
    expect(fact.targets.map((t) => [t.id, t.reason, t.via ?? null])).toEqual([
      ["pnpm:a", "direct", null],
      ["pnpm:b", "dependent", ["pnpm:a"]],
      ["pnpm:c", "dependent", ["pnpm:a", "pnpm:b"]],
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
        command: null,
      },
    ]);
  });

  // Issue 36 audit: pnpm globs become RegExps; every regex syntax character is a literal.
  test("pnpm globs holding regex syntax (-, (, [, {, +, |, $) are literals and never throw", async () => {
    const manifest = (name: string) => JSON.stringify({ name });
    const root = workspace({
      "pnpm-workspace.yaml":
        "packages:\n  - 'libs/-B(x)+*'\n  - 'apps/[a|b]{c}$'\n  - 'tools/\\\\'\n  - '(unclosed/*'\n",
      "libs/-B(x)+y/package.json": manifest("lib"),
      "libs/-Bx+y/package.json": manifest("not-lib"),
      "apps/[a|b]{c}$/package.json": manifest("app"),
      "apps/a/package.json": manifest("not-app"),
    });
    const fact = await affectedTargets(
      ["libs/-B(x)+y/a.ts", "apps/[a|b]{c}$/a.ts", "libs/-Bx+y/a.ts", "apps/a/a.ts"],
      detectAdapters(root),
      { root },
    );
    expect(fact.adapters[0]?.project_roots).toEqual({
      "pnpm:app": "apps/[a|b]{c}$",
      "pnpm:lib": "libs/-B(x)+y",
    });
  });

  test("paths with spaces and quotes reach the command intact through changed_paths_space", async () => {
    const root = workspace({ "x.txt": "" });
    const paths = ["dir with space/a b.ts", 'it\'s "quoted".ts', "$(touch pwned).ts"];
    const fact = await affectedTargets(
      paths,
      [
        {
          id: "echo",
          parser_id: "harn.targets_lines.v1",
          spec: { mode: "shell", command: "printf '%s\\n' {{ changed_paths_space }}" },
        },
      ],
      { root },
    );
    expect(fact.targets.map((t) => t.id)).toEqual(paths);
    expect(fact.adapters[0]).toMatchObject({
      id: "echo",
      status: "completed",
      ok: true,
      exit: 0,
      target_count: 3,
    });
    expect(() => execFileSync("test", ["-e", join(root, "pwned).ts")])).toThrow();
  });

  test("a command that fails, prints garbage or has a bad spec is a typed fact, not an exception", async () => {
    const root = workspace({ "x.txt": "" });
    const fact = await affectedTargets(
      ["src/a.ts"],
      [
        {
          id: "boom",
          parser_id: "harn.targets_json.v1",
          spec: { mode: "shell", command: "echo 'not json'; echo oops >&2; exit 3" },
        },
        { id: "bad", spec: "just a string" },
        { id: "missing", parser_id: "go.list.v1", spec: ["definitely-not-a-tool-xyz"] },
      ],
      { root, fallback: false },
    );
    expect(fact.adapters[0]).toMatchObject({
      id: "boom",
      status: "failed",
      ok: false,
      exit: 3,
      target_count: 0,
      stderr: "oops\n",
    });
    expect(String(fact.adapters[0]?.error)).toMatch(/^harn\.targets_json\.v1: stdout is not JSON/);
    expect(fact.adapters[1]).toEqual({
      id: "bad",
      parser_id: "harn.targets_json.v1",
      status: "failed",
      ok: false,
      exit: null,
      target_count: 0,
      error:
        "invalid command spec at adapters.bad.spec: command_run: spec must be an argv list or command spec dict",
    });
    expect(fact.adapters[2]).toMatchObject({
      id: "missing",
      status: "failed",
      ok: false,
      exit: 127,
      target_count: 0,
    });
    expect(fact.unmapped).toEqual(["src/a.ts"]);
  });

  test("an adapter command that rewrites a lockfile is reported", async () => {
    const root = workspace({ "Cargo.lock": "v1\n" });
    const fact = await affectedTargets(
      ["src/a.rs"],
      [
        {
          id: "sneaky",
          parser_id: "lines.v1",
          spec: { mode: "shell", command: "echo v2 > Cargo.lock; echo t" },
        },
      ],
      { root },
    );
    expect(fact.adapters[0]).toMatchObject({
      id: "sneaky",
      ok: true,
      workspace_changed: ["Cargo.lock"],
    });
  });

  test("pnpm-lock.yaml changed for one importer (old side from lockfileBefore) → that package", async () => {
    const lock = (v: string) =>
      `lockfileVersion: '9.0'\nimporters:\n  packages/b:\n    dependencies:\n      left-pad:\n        specifier: ^1\n        version: ${v}\npackages:\n  left-pad@${v}:\n    resolution: {integrity: sha512-${v}}\nsnapshots:\n  left-pad@${v}: {}\n`;
    const root = workspace({ ...pnpmWorkspace, "pnpm-lock.yaml": lock("1.3.0") });
    const fact = await affectedTargets(["pnpm-lock.yaml"], detectAdapters(root), {
      root,
      lockfileBefore: async () => lock("1.0.0"),
    });
    expect(fact.targets.map((t) => [t.id, t.reason, t.lockfile_importer])).toEqual([
      ["pnpm:b", "lockfile", "packages/b"],
    ]);
    expect(fact.run_all).toBe(false);
  });

  test.runIf(has("cargo"))(
    "a Cargo workspace of two crates through real `cargo metadata`",
    async () => {
      const root = workspace({
        "Cargo.toml": '[workspace]\nmembers = ["crates/core", "crates/app"]\nresolver = "2"\n',
        "crates/core/Cargo.toml": '[package]\nname = "core"\nversion = "0.1.0"\nedition = "2021"\n',
        "crates/core/src/lib.rs": "pub fn one() -> u32 { 1 }\n",
        "crates/app/Cargo.toml":
          '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ncore = { path = "../core" }\n',
        "crates/app/src/main.rs": 'fn main() { println!("{}", core::one()); }\n',
      });
      const rows = detectAdapters(root).map((r) => ({
        ...r,
        spec: ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
      }));
      const fact = await affectedTargets(["crates/core/src/lib.rs"], rows, { root });
      expect(fact.targets.map((t) => [t.id, t.reason, t.root, t.via ?? null])).toEqual([
        ["cargo:core", "direct", "crates/core", null],
        ["cargo:app", "dependent", "crates/app", ["cargo:core"]],
      ]);
      expect(fact.adapters[0]).toMatchObject({
        id: "cargo",
        ok: true,
        exit: 0,
        target_count: 1,
        project_count: 2,
        project_roots: { "cargo:app": "crates/app", "cargo:core": "crates/core" },
      });
    },
    60_000,
  );

  test.runIf(has("go"))(
    "a Go module through real `go list -json ./...`",
    async () => {
      const root = workspace({
        "go.mod": "module example.com/m\n\ngo 1.22\n",
        "a/a.go": "package a\n\nfunc A() int { return 1 }\n",
        "b/b.go": 'package b\n\nimport "example.com/m/a"\n\nfunc B() int { return a.A() }\n',
        "b/b_test.go": 'package b\n\nimport "testing"\n\nfunc TestB(t *testing.T) { _ = B() }\n',
      });
      const fact = await affectedTargets(["a/a.go"], detectAdapters(root), {
        root,
        env: { ...process.env, GOFLAGS: "", GOWORK: "off" },
      });
      expect(fact.targets.map((t) => [t.id, t.reason, t.test_files, t.via ?? null])).toEqual([
        ["go:example.com/m/a", "direct", [], null],
        ["go:example.com/m/b", "dependent", ["b/b_test.go"], ["go:example.com/m/a"]],
      ]);
    },
    60_000,
  );
});
