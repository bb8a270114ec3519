import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { VerificationCommand, VerificationPreset } from "@turngate/core";

/**
 * The verification presets for a workspace root, in A3S order (§2.17): Rust, Node, Python,
 * Go. Only the root itself is inspected (no recursion, no monorepo discovery).
 *
 * - `Cargo.toml` file → `rust-default` (fmt, check, test required; clippy optional).
 * - `package.json` that parses and has a `scripts` object → `node-default` with `test`
 *   (required), `typecheck`, `lint` (optional) for the scripts that exist, run through the
 *   detected package manager (`packageManagerFor`); omitted when none exists.
 * - `pyproject.toml` or `pytest.ini` → `python-default` with pytest / ruff / mypy when their
 *   markers are present; omitted when none is.
 * - `go.mod` file → `go-default` (`go test ./...` required, `go vet ./...` optional).
 *
 * Input: the workspace root path. Output: presets with snake_case command records
 * (`expect_exit` 0, no `timeout_ms`). Unreadable or invalid files count as absent; never
 * throws.
 */
export function verificationPresets(root: string): VerificationPreset[] {
  const presets: VerificationPreset[] = [];
  if (isFile(join(root, "Cargo.toml"))) presets.push(rustPreset());
  const node = nodePreset(root);
  if (node) presets.push(node);
  const python = pythonPreset(root);
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

function pythonPreset(root: string): VerificationPreset | undefined {
  const pyprojectPath = join(root, "pyproject.toml");
  const hasPyproject = isFile(pyprojectPath);
  const hasPytestIni = isFile(join(root, "pytest.ini"));
  if (!hasPyproject && !hasPytestIni) return undefined;
  const pyproject = hasPyproject ? readText(pyprojectPath) : "";
  const commands: VerificationCommand[] = [];
  if (isDirectory(join(root, "tests")) || pyproject.includes("[tool.pytest") || hasPytestIni) {
    commands.push(command("python:test", "test", "Run Python tests", "python -m pytest", true));
  }
  if (
    isFile(join(root, "ruff.toml")) ||
    isFile(join(root, ".ruff.toml")) ||
    pyproject.includes("[tool.ruff")
  ) {
    commands.push(
      command("python:ruff", "lint", "Run Ruff lint checks", "python -m ruff check .", false),
    );
  }
  if (
    isFile(join(root, "mypy.ini")) ||
    isFile(join(root, ".mypy.ini")) ||
    pyproject.includes("[tool.mypy")
  ) {
    commands.push(
      command("python:mypy", "type_check", "Run mypy type checking", "python -m mypy .", false),
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

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
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
