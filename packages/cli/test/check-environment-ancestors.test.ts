/**
 * Security findings F3 / F4 (issue 10, the checks' environment): an agent that plants a
 * tool configuration in a PARENT folder of the workspace (`../.cargo/config.toml`,
 * `../pytest.ini` + `../conftest.py`, `../node_modules/dep`), or a program in a writable
 * `PATH` folder outside the home directory, must not get `verified`. Each test is a real
 * git repository in a fresh temporary parent folder (nothing touches real ancestors but
 * the OS temp folder's own top level, which is only read), a real agent process and real
 * checks (cargo, pytest, node).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { type CliContext, main } from "../src/index.js";
import { Collector } from "./helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(120_000), hookTimeout: testTimeout(120_000) });

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
/** A git repository at `<fresh parent>/ws` with `files` committed; the agent script lives elsewhere. */
function nestedProject(files: Record<string, string>) {
  const parent = tempDir("turngate-parent-");
  const root = join(parent, "ws");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  mkdirSync(root, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
      cwd: root,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", "base");
  const agents = tempDir("turngate-agents-");
  const agent = (script: string) => {
    writeFileSync(join(agents, "agent.sh"), script);
    return ["sh", join(agents, "agent.sh")];
  };
  return { parent, root, agent };
}
async function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const stdout = new Collector();
  const stderr = new Collector();
  const ctx: CliContext = { stdout, stderr, cwd, env };
  const code = await main(args, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}
const envWith = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  // The in-place model's controlled environment (docs/design.md §3a); clean-room checks
  // see none of the home folder or the workspace's parents at all (test/clean-room).
  TURNGATE_ISOLATION: "in-place",
  HOME: tempDir("turngate-home-"),
  LANG: "C",
  ...extra,
});

const ancestorsCheck = (json: { reports: { checks: { id: string; status: string }[] }[] }) =>
  json.reports[0]?.checks.find((c) => c.id === "turngate:ancestors");

describe("F3: tool configs planted in the workspace's parent folders", () => {
  test("../.cargo/config.toml with runner = true makes a failing cargo test pass: an environment row, not verified", async () => {
    const p = nestedProject({
      "Cargo.toml": '[package]\nname = "tg_anc"\nversion = "0.1.0"\nedition = "2021"\n',
      "src/lib.rs": "#[test]\nfn t() { assert_eq!(1, 2); }\n",
    });
    execFileSync("cargo", ["generate-lockfile", "--offline"], { cwd: p.root, stdio: "ignore" });
    execFileSync("git", ["add", "Cargo.lock"], { cwd: p.root, stdio: "ignore" });
    execFileSync(
      "git",
      ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "lock"],
      { cwd: p.root, stdio: "ignore" },
    );
    const hostRunner = `[target.'cfg(all())']\nrunner = "true"\n`;
    const out = await cli(
      [
        "run",
        "--json",
        "--check",
        "cargo test --offline -q",
        "--",
        ...p.agent(`mkdir -p ../.cargo\ncat > ../.cargo/config.toml <<'X'\n${hostRunner}X\n`),
      ],
      p.root,
      envWith({
        CARGO_HOME: process.env.CARGO_HOME ?? join(process.env.HOME ?? "", ".cargo"),
        RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(process.env.HOME ?? "", ".rustup"),
      }),
    );
    const json = JSON.parse(out.stdout);
    // The planted runner does make the failing test "pass" …
    expect(json.checks.map((c: { status: string }) => c.status)).toEqual(["passed"]);
    // … but the planted file is an environment row, and the turn is not verified.
    expect(json.environment_changes).toEqual([
      { path: `${p.parent}/.cargo/config.toml`, content_digest: sha256(hostRunner) },
    ]);
    expect(json.verdict).toBe("incomplete");
    expect(ancestorsCheck(json)?.status).toBe("needs_review");
  });

  test("../pytest.ini + ../conftest.py forcing every test to pass (real pytest): environment rows, not verified", async () => {
    const p = nestedProject({ "test_x.py": "def test_x():\n    assert 1 == 2\n" });
    const ini = "[pytest]\n";
    const conftest = [
      "import pytest",
      "@pytest.hookimpl(hookwrapper=True)",
      "def pytest_runtest_makereport(item, call):",
      "    outcome = yield",
      "    report = outcome.get_result()",
      "    report.outcome = 'passed'",
      "",
    ].join("\n");
    const out = await cli(
      [
        "run",
        "--json",
        "--check",
        "python3 -m pytest -q -p no:cacheprovider test_x.py",
        "--",
        ...p.agent(
          `cat > ../pytest.ini <<'X'\n${ini}X\ncat > ../conftest.py <<'X'\n${conftest}X\n`,
        ),
      ],
      p.root,
      envWith(),
    );
    const json = JSON.parse(out.stdout);
    expect(json.checks.map((c: { status: string }) => c.status)).toEqual(["passed"]);
    expect(json.environment_changes).toEqual([
      { path: `${p.parent}/conftest.py`, content_digest: sha256(conftest) },
      { path: `${p.parent}/pytest.ini`, content_digest: sha256(ini) },
    ]);
    expect(json.verdict).toBe("incomplete");
    expect(ancestorsCheck(json)?.status).toBe("needs_review");
  });

  test("../node_modules/dep planted so require('dep') resolves: environment rows, not verified", async () => {
    const p = nestedProject({ "t.js": "process.exit(require('dep').ok ? 0 : 1)\n" });
    const out = await cli(
      [
        "run",
        "--json",
        "--check",
        "node t.js",
        "--",
        ...p.agent(
          "mkdir -p ../node_modules/dep && echo 'module.exports = { ok: true }' > ../node_modules/dep/index.js\n",
        ),
      ],
      p.root,
      envWith(),
    );
    const json = JSON.parse(out.stdout);
    expect(json.checks.map((c: { status: string }) => c.status)).toEqual(["passed"]);
    expect(
      json.environment_changes.map((c: { path: string; content_digest: string }) => c.path),
    ).toEqual([`${p.parent}/node_modules`, `${p.parent}/node_modules/dep`]);
    expect(json.environment_changes[0].content_digest).toBe(sha256("folder"));
    expect(json.verdict).toBe("incomplete");
    expect(ancestorsCheck(json)?.status).toBe("needs_review");
  });
});

describe("F4: programs planted in a writable PATH folder outside the home directory", () => {
  test("PATH=/tmp/…/bin:$PATH and a planted node there: turngate:path needs_review and an environment row", async () => {
    const p = nestedProject({ "a.txt": "1\n" });
    const bin = join(tempDir("turngate-qabin-"), "bin");
    mkdirSync(bin);
    // A symlinked PATH entry resolves to the same folder (realpath), counted once.
    const link = join(tempDir("turngate-qalink-"), "l");
    execFileSync("ln", ["-s", bin, link]);
    const out = await cli(
      [
        "run",
        "--json",
        "--check",
        "node -e 'process.exit(0)'",
        "--",
        ...p.agent(
          `printf '#!/bin/sh\\nexit 0\\n' > ${link}/node; chmod +x ${bin}/node; echo 2 > a.txt\n`,
        ),
      ],
      p.root,
      envWith({ PATH: `${link}:${bin}:${process.env.PATH}` }),
    );
    const json = JSON.parse(out.stdout);
    expect(json.verdict).toBe("incomplete");
    expect(
      json.environment_changes.map((c: { path: string; content_digest: string }) => c.path),
    ).toEqual([`${bin}/node`]);
    expect(json.reports[0].checks.find((c: { id: string }) => c.id === "turngate:path")).toEqual({
      id: "turngate:path",
      kind: "review",
      description: "no program on the checks' PATH changed since the baseline",
      status: "needs_review",
      required: true,
      residual_risk: `${bin}/node changed during the turn in a folder of the checks' PATH, so the checks may have run it: review it, then start a new turn`,
    });
  });
});
