import { accessSync, constants, type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { VerificationCommand, VerificationPreset } from "@turngate/core";
import { parse as parseTomlText } from "smol-toml";

/**
 * The verification presets for a workspace root, in A3S order (§2.17): Rust, Node, Python,
 * Go. Only the root itself is inspected (no recursion, no monorepo discovery).
 *
 * - `Cargo.toml` file → `rust-default` (fmt, check, test required; clippy optional).
 * - `package.json` that parses and has a `scripts` object → `node-default` with `test`
 *   (required), `typecheck`, `lint` (optional) for the scripts that exist, run through the
 *   detected package manager (`packageManagerFor`); omitted when none exists.
 * - `pyproject.toml`, `setup.py`, `setup.cfg`, `tox.ini`, `pytest.ini` or `conftest.py` →
 *   `python-default`: pytest (required) when pytest would collect something there
 *   (`pytestWouldCollect`: a pytest configuration section, a root `conftest.py`, or
 *   `test_*.py` / `*_test.py` at the root or under `tests/`), ruff and mypy (optional) when
 *   configured; run with the interpreter that exists (`pythonInterpreter`: the project's
 *   `.venv/bin/python`, else `python3`, else `python`); omitted when none applies. A3S
 *   looked only at `pyproject.toml`/`pytest.ini` and ran `python` (issue #12 item 2).
 * - `go.mod` file → `go-default` (`go test ./...` required, `go vet ./...` optional).
 *
 * Input: the workspace root path; `options.env` (its `PATH` finds the Python interpreter,
 * default `process.env`). Output: presets with snake_case command records
 * (`expect_exit` 0, no `timeout_ms`). Unreadable or invalid files count as absent; never
 * throws.
 */
export function verificationPresets(
  root: string,
  options: PresetOptions = {},
): VerificationPreset[] {
  const presets: VerificationPreset[] = [];
  if (isFile(join(root, "Cargo.toml"))) presets.push(rustPreset());
  const node = nodePreset(root);
  if (node) presets.push(node);
  const python = pythonPreset(root, options.env ?? process.env);
  if (python) presets.push(python);
  if (isFile(join(root, "go.mod"))) presets.push(goPreset());
  return presets;
}

/**
 * The package manager of a Node workspace root (§2.17): the part of `packageManager` before
 * the first `@` when that field is a string containing `@` (so `"pnpm@9.1.0"` → `pnpm`,
 * and a scoped value such as `"@x/y@1"` → `""`, as in A3S); otherwise by lockfile:
 * `pnpm-lock.yaml` → pnpm, `yarn.lock` → yarn, `bun.lockb`/`bun.lock` → bun; else npm.
 */
export function packageManagerFor(root: string, packageJson: Record<string, unknown>): string {
  const field = packageJson.packageManager;
  if (typeof field === "string" && field.includes("@")) return field.slice(0, field.indexOf("@"));
  if (isFile(join(root, "pnpm-lock.yaml"))) return "pnpm";
  if (isFile(join(root, "yarn.lock"))) return "yarn";
  if (isFile(join(root, "bun.lockb")) || isFile(join(root, "bun.lock"))) return "bun";
  return "npm";
}

/**
 * The command that runs package script `script` with package manager `manager` (§2.17):
 * pnpm/yarn → `{pm} {script}`; bun → `bun run {script}`; npm → `npm test` for `test`,
 * else `npm run {script}`; any other name → `{name} run {script}`.
 */
export function packageScriptCommand(manager: string, script: string): string {
  if (manager === "pnpm" || manager === "yarn") return `${manager} ${script}`;
  if (manager === "bun") return `bun run ${script}`;
  if (manager === "npm") return script === "test" ? "npm test" : `npm run ${script}`;
  return `${manager} run ${script}`;
}

function command(
  id: string,
  kind: string,
  description: string,
  text: string,
  required: boolean,
): VerificationCommand {
  return { id, kind, description, command: text, required, expect_exit: 0 };
}

/** A `VerificationPreset` with its fields in schema order (id, project_kind, description, commands). */
function preset(
  id: string,
  project_kind: string,
  description: string,
  commands: VerificationCommand[],
): VerificationPreset {
  return { id, project_kind, description, commands };
}

function rustPreset(): VerificationPreset {
  return preset("rust-default", "rust", "Rust cargo verification", [
    command("rust:fmt", "format", "Check Rust formatting", "cargo fmt -- --check", true),
    command("rust:check", "type_check", "Run Rust type checking", "cargo check", true),
    command("rust:test", "test", "Run Rust tests", "cargo test", true),
    command("rust:clippy", "lint", "Run Rust clippy lints", "cargo clippy -- -D warnings", false),
  ]);
}

const NODE_SCRIPTS: ReadonlyArray<{
  script: string;
  kind: string;
  description: string;
  required: boolean;
}> = [
  { script: "test", kind: "test", description: "Run JavaScript tests", required: true },
  {
    script: "typecheck",
    kind: "type_check",
    description: "Run JavaScript type checks",
    required: false,
  },
  { script: "lint", kind: "lint", description: "Run JavaScript lint checks", required: false },
];

function nodePreset(root: string): VerificationPreset | undefined {
  const path = join(root, "package.json");
  if (!isFile(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !isRecord(parsed.scripts)) return undefined;
  const scripts = parsed.scripts;
  const manager = packageManagerFor(root, parsed);
  const commands = NODE_SCRIPTS.filter(({ script }) => Object.hasOwn(scripts, script)).map(
    ({ script, kind, description, required }) =>
      command(`node:${script}`, kind, description, packageScriptCommand(manager, script), required),
  );
  if (commands.length === 0) return undefined;
  return preset("node-default", "node", "Node.js package verification", commands);
}

/** Options of `verificationPresets`. */
export interface PresetOptions {
  /** Environment whose `PATH` is searched for `python3` / `python`; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The Python interpreter the Python preset runs, as a shell word relative to the workspace
 * root: the project's own `.venv/bin/python` when it exists, else `python3` when it is on
 * `PATH` (`env.PATH`), else `python` when it is, else `python3` (the command then fails
 * with exit 127, which the CLI reports as `infrastructure`). A plain Debian has only
 * `python3`; A3S hard-coded `python`. Input: root and environment. Never throws.
 */
export function pythonInterpreter(root: string, env: NodeJS.ProcessEnv = process.env): string {
  if (isExecutable(join(root, ".venv", "bin", "python"))) return ".venv/bin/python";
  const dirs = (env.PATH ?? "").split(delimiter).filter((dir) => dir !== "");
  for (const name of ["python3", "python"]) {
    if (dirs.some((dir) => isExecutable(join(dir, name)))) return name;
  }
  return "python3";
}

/** Test file names pytest collects by default (`python_files = test_*.py *_test.py`). */
const PYTEST_FILE = /^(test_.*|.*_test)\.py$/;
/** Folders under `tests/` searched for test files (pytest recurses; we stop at this depth). */
const TESTS_SEARCH_DEPTH = 4;

/**
 * Whether pytest run in `root` would find something to run: a pytest configuration
 * (`pytest.ini`, `pyproject.toml [tool.pytest.ini_options]`, `tox.ini [pytest]`,
 * `setup.cfg [tool:pytest]`), a root `conftest.py`, or a test file (`test_*.py`,
 * `*_test.py`) at the root or under `tests/` (4 levels deep).
 */
function pytestWouldCollect(root: string, pyproject: Record<string, unknown>): boolean {
  if (isFile(join(root, "pytest.ini")) || isFile(join(root, "conftest.py"))) return true;
  const tool = isRecord(pyproject.tool) ? pyproject.tool : {};
  if (isRecord(tool.pytest) && isRecord(tool.pytest.ini_options)) return true;
  if (iniHasSection(join(root, "tox.ini"), "pytest")) return true;
  if (iniHasSection(join(root, "setup.cfg"), "tool:pytest")) return true;
  if (hasTestFile(root, 0)) return true;
  return hasTestFile(join(root, "tests"), TESTS_SEARCH_DEPTH);
}

function hasTestFile(dir: string, depth: number): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  if (entries.some((entry) => entry.isFile() && PYTEST_FILE.test(entry.name))) return true;
  if (depth === 0) return false;
  return entries.some(
    (entry) =>
      entry.isDirectory() &&
      !entry.name.startsWith(".") &&
      hasTestFile(join(dir, entry.name), depth - 1),
  );
}

/** Whether the INI file at `path` has a `[section]` header line. */
function iniHasSection(path: string, section: string): boolean {
  return readText(path)
    .split(/\r?\n/)
    .some((line) => line.trim() === `[${section}]`);
}

function parseToml(path: string): Record<string, unknown> {
  try {
    return parseTomlText(readText(path)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Files that make the root a Python project for the preset. */
const PYTHON_MARKERS = [
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "tox.ini",
  "pytest.ini",
  "conftest.py",
];

function pythonPreset(root: string, env: NodeJS.ProcessEnv): VerificationPreset | undefined {
  if (!PYTHON_MARKERS.some((name) => isFile(join(root, name)))) return undefined;
  const pyproject = parseToml(join(root, "pyproject.toml"));
  const tool = isRecord(pyproject.tool) ? pyproject.tool : {};
  const python = pythonInterpreter(root, env);
  const commands: VerificationCommand[] = [];
  if (pytestWouldCollect(root, pyproject)) {
    commands.push(command("python:test", "test", "Run Python tests", `${python} -m pytest`, true));
  }
  if (isFile(join(root, "ruff.toml")) || isFile(join(root, ".ruff.toml")) || "ruff" in tool) {
    commands.push(
      command("python:ruff", "lint", "Run Ruff lint checks", `${python} -m ruff check .`, false),
    );
  }
  if (
    isFile(join(root, "mypy.ini")) ||
    isFile(join(root, ".mypy.ini")) ||
    "mypy" in tool ||
    iniHasSection(join(root, "setup.cfg"), "mypy")
  ) {
    commands.push(
      command("python:mypy", "type_check", "Run mypy type checking", `${python} -m mypy .`, false),
    );
  }
  if (commands.length === 0) return undefined;
  return preset("python-default", "python", "Python project verification", commands);
}

function goPreset(): VerificationPreset {
  return preset("go-default", "go", "Go module verification", [
    command("go:test", "test", "Run Go tests", "go test ./...", true),
    command("go:vet", "lint", "Run go vet", "go vet ./...", false),
  ]);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
