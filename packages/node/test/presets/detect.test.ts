import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
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
  mkdirSync(join(dir.path, path, ".."), { recursive: true });
  writeFileSync(join(dir.path, path), text);
}

/** An environment whose PATH is one folder holding executables named `names`. */
function pathWith(...names: string[]): NodeJS.ProcessEnv {
  const bin = join(dir.path, `.bin-${names.join("-") || "none"}`);
  mkdirSync(bin, { recursive: true });
  for (const name of names) {
    writeFileSync(join(bin, name), "#!/bin/sh\n");
    chmodSync(join(bin, name), 0o755);
  }
  return { PATH: bin };
}
/** The commands of the Python preset of the temporary folder, with only `python` on PATH. */
const pythonCommands = (root = dir.path, env = pathWith("python")) =>
  verificationPresets(root, { env })
    .find((p) => p.id === "python-default")
    ?.commands.map((c) => `${c.id}=${c.command}`) ?? [];

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
    expect(verificationPresets(dir.path, { env: pathWith("python") })).toEqual([
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

  test("python: pytest.ini alone gives the test command; a tests/ folder needs a test file in it", () => {
    write("pytest.ini", "[pytest]\n");
    expect(pythonCommands()).toEqual(["python:test=python -m pytest"]);
    const other = join(dir.path, "other");
    mkdirSync(join(other, "tests"), { recursive: true });
    writeFileSync(join(other, "pyproject.toml"), "[project]\n");
    expect(pythonCommands(other)).toEqual([]);
    mkdirSync(join(other, "tests", "unit"), { recursive: true });
    writeFileSync(join(other, "tests", "unit", "test_parse.py"), "");
    expect(pythonCommands(other)).toEqual(["python:test=python -m pytest"]);
  });

  test("python: ruff.toml and mypy.ini markers without pytest; nothing without markers", () => {
    write("pyproject.toml", "[project]\n");
    expect(verificationPresets(dir.path)).toEqual([]);
    write("ruff.toml");
    write(".mypy.ini");
    expect(pythonCommands()).toEqual([
      "python:ruff=python -m ruff check .",
      "python:mypy=python -m mypy .",
    ]);
  });
});

describe("verificationPresets: what pytest would collect (issue #12 item 2)", () => {
  test("pyproject.toml with a root test_*.py (more-itertools' layout)", () => {
    write("pyproject.toml", '[project]\nname = "more-itertools"\n');
    write("test_more.py", "def test_x(): pass\n");
    expect(pythonCommands()).toEqual(["python:test=python -m pytest"]);
  });

  test("a root *_test.py counts; a test file that pytest would not collect does not", () => {
    write("pyproject.toml", "[project]\n");
    write("tests.py", "");
    write("testing_helpers.py", "");
    expect(pythonCommands()).toEqual([]);
    write("parse_test.py", "");
    expect(pythonCommands()).toEqual(["python:test=python -m pytest"]);
  });

  test("setup.py with tests/test_*.py; setup.cfg [tool:pytest]; tox.ini [pytest]; conftest.py", () => {
    write("setup.py", "from setuptools import setup\nsetup()\n");
    expect(pythonCommands()).toEqual([]);
    write("tests/test_six.py", "");
    expect(pythonCommands()).toEqual(["python:test=python -m pytest"]);
    for (const [name, text] of [
      ["setup.cfg", "[metadata]\nname = six\n\n[tool:pytest]\nminversion = 2.2.0\n"],
      ["tox.ini", "[tox]\nenvlist = py3\n\n[pytest]\naddopts = -q\n"],
      ["conftest.py", ""],
    ] as const) {
      const root = join(dir.path, name.replace(".", "-"));
      mkdirSync(root);
      writeFileSync(join(root, name), text);
      expect(pythonCommands(root)).toEqual(["python:test=python -m pytest"]);
    }
    const other = join(dir.path, "no-section");
    mkdirSync(other);
    writeFileSync(join(other, "setup.cfg"), "[metadata]\nname = x\n# [tool:pytest]\n");
    writeFileSync(join(other, "tox.ini"), "[testenv]\ncommands = pytest\n");
    expect(pythonCommands(other)).toEqual([]);
  });

  test("pyproject.toml is parsed: [tool.pytest.ini_options], [tool.ruff] and [tool.mypy] as TOML, not text", () => {
    write(
      "pyproject.toml",
      '[project]\ndescription = "mentions [tool.pytest.ini_options] and [tool.ruff] in a string"\n',
    );
    expect(pythonCommands()).toEqual([]);
    write(
      "pyproject.toml",
      '[tool.pytest.ini_options]\naddopts = "-q"\n\n[tool.ruff.lint]\nselect = ["E"]\n\n[tool.mypy]\nstrict = true\n',
    );
    expect(pythonCommands()).toEqual([
      "python:test=python -m pytest",
      "python:ruff=python -m ruff check .",
      "python:mypy=python -m mypy .",
    ]);
  });

  test("the interpreter that exists: the project's .venv, else python3, else python", () => {
    write("pytest.ini", "[pytest]\n");
    expect(pythonCommands(dir.path, pathWith("python3", "python"))).toEqual([
      "python:test=python3 -m pytest",
    ]);
    expect(pythonCommands(dir.path, pathWith("python"))).toEqual(["python:test=python -m pytest"]);
    expect(pythonCommands(dir.path, pathWith())).toEqual(["python:test=python3 -m pytest"]);
    write(".venv/bin/python", "#!/bin/sh\n");
    expect(pythonCommands(dir.path, pathWith("python"))).toEqual(["python:test=python -m pytest"]);
    chmodSync(join(dir.path, ".venv/bin/python"), 0o755);
    expect(pythonCommands(dir.path, pathWith("python"))).toEqual([
      "python:test=.venv/bin/python -m pytest",
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
