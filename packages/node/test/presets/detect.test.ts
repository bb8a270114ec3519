import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  packageManagerFor,
  packageScriptCommand,
  verificationPresets,
} from "../../src/presets/detect.js";
import { requiredPresetCommands } from "../../src/presets/required.js";
import { tempDir } from "../runner/helpers.js";

let dir: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir("presets");
});
afterEach(async () => {
  await dir.cleanup();
});

function write(path: string, text = ""): void {
  writeFileSync(join(dir.path, path), text);
}

const cmd = (
  id: string,
  kind: string,
  description: string,
  command: string,
  required: boolean,
) => ({
  id,
  kind,
  description,
  command,
  required,
  expect_exit: 0,
});

describe("verificationPresets", () => {
  test("an empty folder has no presets", () => {
    expect(verificationPresets(dir.path)).toEqual([]);
  });

  test("all four kinds, in A3S order rust, node, python, go", () => {
    write("go.mod", "module x\n");
    write("pyproject.toml", "[tool.pytest.ini_options]\n[tool.ruff]\n[tool.mypy]\n");
    write("package.json", JSON.stringify({ scripts: { lint: "x", test: "x", typecheck: "x" } }));
    write("Cargo.toml", "[package]\n");
    expect(verificationPresets(dir.path)).toEqual([
      {
        id: "rust-default",
        project_kind: "rust",
        description: "Rust cargo verification",
        commands: [
          cmd("rust:fmt", "format", "Check Rust formatting", "cargo fmt -- --check", true),
          cmd("rust:check", "type_check", "Run Rust type checking", "cargo check", true),
          cmd("rust:test", "test", "Run Rust tests", "cargo test", true),
          cmd("rust:clippy", "lint", "Run Rust clippy lints", "cargo clippy -- -D warnings", false),
        ],
      },
      {
        id: "node-default",
        project_kind: "node",
        description: "Node.js package verification",
        commands: [
          cmd("node:test", "test", "Run JavaScript tests", "npm test", true),
          cmd(
            "node:typecheck",
            "type_check",
            "Run JavaScript type checks",
            "npm run typecheck",
            false,
          ),
          cmd("node:lint", "lint", "Run JavaScript lint checks", "npm run lint", false),
        ],
      },
      {
        id: "python-default",
        project_kind: "python",
        description: "Python project verification",
        commands: [
          cmd("python:test", "test", "Run Python tests", "python -m pytest", true),
          cmd("python:ruff", "lint", "Run Ruff lint checks", "python -m ruff check .", false),
          cmd("python:mypy", "type_check", "Run mypy type checking", "python -m mypy .", false),
        ],
      },
      {
        id: "go-default",
        project_kind: "go",
        description: "Go module verification",
        commands: [
          cmd("go:test", "test", "Run Go tests", "go test ./...", true),
          cmd("go:vet", "lint", "Run go vet", "go vet ./...", false),
        ],
      },
    ]);
  });

  test("required commands keep preset order and drop optional ones", () => {
    write("go.mod");
    write("Cargo.toml");
    write("package.json", JSON.stringify({ scripts: { test: "x", lint: "x" } }));
    expect(requiredPresetCommands(verificationPresets(dir.path)).map((c) => c.command)).toEqual([
      "cargo fmt -- --check",
      "cargo check",
      "cargo test",
      "npm test",
      "go test ./...",
    ]);
  });

  test("node: no preset for invalid JSON, missing or non-object scripts, or no known script", () => {
    write("package.json", "{not json");
    expect(verificationPresets(dir.path)).toEqual([]);
    write("package.json", JSON.stringify({ name: "x" }));
    expect(verificationPresets(dir.path)).toEqual([]);
    write("package.json", JSON.stringify({ scripts: ["test"] }));
    expect(verificationPresets(dir.path)).toEqual([]);
    write("package.json", JSON.stringify({ scripts: { build: "tsc" } }));
    expect(verificationPresets(dir.path)).toEqual([]);
  });

  test("node: a package.json folder is not a file", () => {
    mkdirSync(join(dir.path, "package.json"));
    expect(verificationPresets(dir.path)).toEqual([]);
  });

  test("python: pytest.ini alone gives the test command; tests/ folder alone too", () => {
    write("pytest.ini", "[pytest]\n");
    expect(verificationPresets(dir.path)[0]?.commands.map((c) => c.id)).toEqual(["python:test"]);
    const other = join(dir.path, "other");
    mkdirSync(join(other, "tests"), { recursive: true });
    writeFileSync(join(other, "pyproject.toml"), "[project]\n");
    expect(verificationPresets(other)[0]?.commands.map((c) => c.id)).toEqual(["python:test"]);
  });

  test("python: ruff.toml and mypy.ini markers without pytest; nothing without markers", () => {
    write("pyproject.toml", "[project]\n");
    expect(verificationPresets(dir.path)).toEqual([]);
    write("ruff.toml");
    write(".mypy.ini");
    expect(verificationPresets(dir.path)[0]?.commands.map((c) => c.id)).toEqual([
      "python:ruff",
      "python:mypy",
    ]);
  });
});

describe("packageManagerFor", () => {
  test("packageManager field before lockfiles; scoped values give an empty name", () => {
    write("yarn.lock");
    expect(packageManagerFor(dir.path, { packageManager: "pnpm@9.1.0" })).toBe("pnpm");
    expect(packageManagerFor(dir.path, { packageManager: "pnpm" })).toBe("yarn");
    expect(packageManagerFor(dir.path, { packageManager: "@scope/pm@1" })).toBe("");
  });

  test("lockfiles: pnpm, then yarn, then bun; npm by default", () => {
    expect(packageManagerFor(dir.path, {})).toBe("npm");
    write("bun.lock");
    expect(packageManagerFor(dir.path, {})).toBe("bun");
    write("yarn.lock");
    expect(packageManagerFor(dir.path, {})).toBe("yarn");
    write("pnpm-lock.yaml");
    expect(packageManagerFor(dir.path, {})).toBe("pnpm");
  });

  test("script commands per manager", () => {
    expect(packageScriptCommand("pnpm", "lint")).toBe("pnpm lint");
    expect(packageScriptCommand("yarn", "test")).toBe("yarn test");
    expect(packageScriptCommand("bun", "test")).toBe("bun run test");
    expect(packageScriptCommand("npm", "test")).toBe("npm test");
    expect(packageScriptCommand("npm", "typecheck")).toBe("npm run typecheck");
    expect(packageScriptCommand("deno", "lint")).toBe("deno run lint");
    expect(packageScriptCommand("", "test")).toBe(" run test");
  });

  test("a pnpm lockfile changes the node preset's commands", () => {
    write("pnpm-lock.yaml");
    write("package.json", JSON.stringify({ scripts: { test: "vitest", typecheck: "tsc" } }));
    expect(verificationPresets(dir.path)[0]?.commands.map((c) => c.command)).toEqual([
      "pnpm test",
      "pnpm typecheck",
    ]);
  });
});
