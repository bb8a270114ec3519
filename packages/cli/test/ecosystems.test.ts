/**
 * Small real projects whose checks write files (issue 10, "What the checks changed"): a
 * Python project with bytecode writing on and no .gitignore (pytest writes .pytest_cache/
 * and __pycache__/), a Rust crate with no .gitignore (target/), a Go module run with
 * `go test -coverprofile=cover.out`, and a Node project whose test writes coverage/. A
 * correct change ends `verified` with the check outputs listed, on the first, second and
 * third turn. Real toolchains (python3 + pytest, cargo, go, node): a missing one fails.
 * Slow: generous timeouts, one project per test.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type CliContext, main } from "../src/index.js";
import { Collector, gitProject, readProofPayload } from "./helpers.js";
import { inPlaceChecks } from "./in-place.js";

// The in-place model (docs/design.md §3a); see inPlaceChecks.
inPlaceChecks();

const TURN_TIMEOUT_MS = 240_000;

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
function project(files: Record<string, string>) {
  const p = gitProject(files);
  cleanups.push(p.cleanup);
  return p;
}

/** Runs the CLI in-process with `env` (the tests' environment minus `drop`). */
async function cliWith(args: string[], cwd: string, drop: string[] = []) {
  const env = { ...process.env };
  for (const name of drop) delete env[name];
  const stdout = new Collector();
  const stderr = new Collector();
  const ctx: CliContext = { stdout, stderr, cwd, env };
  const code = await main(args, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Every file under `dirs` of `root` (relative paths, sorted), walking into subfolders. */
function filesUnder(root: string, dirs: string[]): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else found.push(path);
    }
  };
  for (const dir of dirs) if (existsSync(join(root, dir))) walk(dir);
  return found.sort();
}

interface Output {
  path: string;
  change: string;
  scope: string;
}

/**
 * Three turns of `agentSource(n)` with `check`; each must end `verified` with check
 * outputs (every listed path under `outputDirs` or one of `outputFiles`, the count exact
 * when under the cap). The first turn's outputs are exactly the files the checks created
 * there (none existed before). Turn 3 is rendered as text: its verdict and outputs lines.
 */
async function threeTurns(options: {
  root: string;
  agent: (turn: number) => string;
  check: string;
  outputDirs: string[];
  outputFiles?: string[];
  drop?: string[];
  /** false: the checks must leave no output in the workspace (no `check outputs:` line). */
  expectOutputs?: boolean;
}): Promise<Output[][]> {
  const expectOutputs = options.expectOutputs !== false;
  const seen: Output[][] = [];
  const outputFiles = options.outputFiles ?? [];
  const covered = (path: string) =>
    outputFiles.includes(path) || options.outputDirs.some((d) => path.startsWith(`${d}/`));
  for (let turn = 1; turn <= 3; turn++) {
    const agent = options.agent(turn);
    const json = turn < 3;
    const args = [
      "run",
      ...(json ? ["--json"] : []),
      "--check",
      options.check,
      "--",
      "node",
      agent,
    ];
    const result = await cliWith(args, options.root, options.drop);
    if (!json) {
      const lines = result.stdout.split("\n");
      expect(lines.some((l) => l.startsWith("verified: effect digest "))).toBe(true);
      expect(lines.some((l) => l.startsWith("check outputs: "))).toBe(expectOutputs);
      expect(result.code).toBe(0);
      continue;
    }
    const out = JSON.parse(result.stdout);
    expect({
      turn,
      verdict: out.verdict,
      binding_reason: out.binding?.reason ?? null,
      hint: out.binding?.hint ?? null,
    }).toEqual({
      turn,
      verdict: "verified",
      binding_reason: null,
      hint: null,
    });
    expect(result.code).toBe(0);
    const outputs: Output[] = out.binding.check_outputs?.paths ?? [];
    if (!expectOutputs) {
      expect(outputs).toEqual([]);
      seen.push(outputs);
      continue;
    }
    expect(outputs.length).toBeGreaterThan(0);
    expect(outputs.filter((o) => !covered(o.path))).toEqual([]);
    if (out.binding.check_outputs.count <= 100) {
      expect(out.binding.check_outputs.count).toBe(outputs.length);
    }
    if (turn === 1) {
      const onDisk = [
        ...filesUnder(options.root, options.outputDirs),
        ...outputFiles.filter((f) => existsSync(join(options.root, f))),
      ].sort();
      if (onDisk.length <= 100) {
        expect(outputs.map((o) => `${o.change} ${o.path}`)).toEqual(
          onDisk.map((p) => `added ${p}`),
        );
      }
    }
    seen.push(outputs);
  }
  return seen;
}

describe("real projects whose checks write outputs", () => {
  test(
    "Python, bytecode writing on, no .gitignore: pytest's .pytest_cache/ and __pycache__/ are check outputs; three turns verified",
    async () => {
      expect(execFileSync("python3", ["-m", "pytest", "--version"], { encoding: "utf8" })).toMatch(
        /^pytest \d/,
      );
      const p = project({
        "calc.py": "SCALE = 1\n\ndef scaled(x):\n    return x * SCALE\n",
        "test_calc.py":
          "import calc\n\ndef test_scaled():\n    assert calc.scaled(2) == 2 * calc.SCALE\n    assert calc.SCALE >= 1\n",
      });
      const outputs = await threeTurns({
        root: p.root,
        agent: (n) =>
          p.agent(
            `agent${n}.js`,
            `require("node:fs").writeFileSync("calc.py", "SCALE = ${n + 1}\\n\\ndef scaled(x):\\n    return x * SCALE\\n");`,
          ),
        check: "python3 -m pytest -q",
        outputDirs: [".pytest_cache", "__pycache__"],
        drop: ["PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"],
      });
      expect(outputs[0]?.some((o) => o.path.startsWith(".pytest_cache/"))).toBe(true);
    },
    TURN_TIMEOUT_MS,
  );

  test(
    "Rust crate without .gitignore: cargo builds into the checks' own CARGO_TARGET_DIR, nothing lands in target/; three turns verified",
    async () => {
      const p = project({
        "Cargo.toml":
          '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n\n[lib]\npath = "src/lib.rs"\n',
        "src/lib.rs":
          "pub const STEP: u32 = 1;\npub fn next(x: u32) -> u32 { x + STEP }\n#[cfg(test)]\nmod tests { #[test] fn grows() { assert!(super::next(1) > 1); } }\n",
      });
      // A committed Cargo.lock, so cargo has nothing to write into source scope.
      execFileSync("cargo", ["generate-lockfile", "--offline"], { cwd: p.root, stdio: "ignore" });
      execFileSync("git", ["add", "Cargo.lock"], { cwd: p.root });
      execFileSync(
        "git",
        [
          "-c",
          "user.name=t",
          "-c",
          "user.email=t@example.invalid",
          "commit",
          "-q",
          "--no-gpg-sign",
          "-m",
          "lock",
        ],
        { cwd: p.root },
      );
      rmSync(join(p.root, "target"), { recursive: true, force: true });
      await threeTurns({
        root: p.root,
        agent: (n) =>
          p.agent(
            `agent${n}.js`,
            `const fs = require("node:fs"); fs.writeFileSync("src/lib.rs", fs.readFileSync("src/lib.rs", "utf8").replace(/STEP: u32 = \\d+/, "STEP: u32 = ${n + 1}"));`,
          ),
        check: "cargo test --offline -q",
        outputDirs: [],
        drop: ["CARGO_TARGET_DIR"],
        expectOutputs: false,
      });
      expect(existsSync(join(p.root, "target"))).toBe(false);
      expect(existsSync(join(p.root, ".turngate/cargo-target/debug"))).toBe(true);
    },
    TURN_TIMEOUT_MS,
  );

  test(
    'Rust version bump: cargo rewrites Cargo.lock — unbound with the fix, then verified with "rewrite_paths" after one re-run',
    async () => {
      const p = project({
        "Cargo.toml": '[package]\nname = "bump"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": "#[cfg(test)]\nmod tests { #[test] fn ok() {} }\n",
      });
      execFileSync("cargo", ["generate-lockfile", "--offline"], { cwd: p.root, stdio: "ignore" });
      execFileSync("git", ["add", "Cargo.lock"], { cwd: p.root });
      execFileSync(
        "git",
        [
          "-c",
          "user.name=t",
          "-c",
          "user.email=t@example.invalid",
          "commit",
          "-q",
          "--no-gpg-sign",
          "-m",
          "lock",
        ],
        { cwd: p.root },
      );
      const bump = (version: string) =>
        p.agent(
          `bump-${version}.js`,
          `const fs = require("node:fs"); fs.writeFileSync("Cargo.toml", fs.readFileSync("Cargo.toml", "utf8").replace(/version = "[^"]+"/, 'version = "${version}"'));`,
        );
      const check = "cargo test --offline -q";
      const plain = await cliWith(
        ["run", "--json", "--check", check, "--", "node", bump("0.2.0")],
        p.root,
      );
      expect(plain.code).toBe(2);
      const unbound = JSON.parse(plain.stdout).binding;
      expect({
        reason: unbound.reason,
        changed_paths: unbound.changed_paths,
        hint: unbound.hint,
      }).toEqual({
        reason: "workspace_changed_during_check",
        changed_paths: ["Cargo.lock"],
        hint: 'the check rewrote Cargo.lock: run cargo once in the agent\'s turn, or set "rewrite_paths": ["Cargo.lock"] in turngate.config.json',
      });
      expect(readFileSync(join(p.root, "Cargo.lock"), "utf8")).toContain(
        'name = "bump"\nversion = "0.2.0"',
      );

      p.write(
        "turngate.config.json",
        JSON.stringify({ checks: [check], rewrite_paths: ["Cargo.lock"] }),
      );
      const settled = await cliWith(["run", "--json", "--", "node", bump("0.3.0")], p.root);
      const out = JSON.parse(settled.stdout);
      expect({ verdict: out.verdict, rewrites: out.binding.rewrites }).toEqual({
        verdict: "verified",
        rewrites: [{ path: "Cargo.lock", check_id: "check:1" }],
      });
      expect(settled.code).toBe(0);
      const lock = readFileSync(join(p.root, "Cargo.lock"), "utf8");
      expect(lock).toContain('name = "bump"\nversion = "0.3.0"');
      const paths = out.changes.map((c: { path: string }) => c.path);
      expect(paths).toContain("Cargo.lock");
      const proof = readProofPayload(out.proof_path);
      expect(
        proof.records
          .filter((r: { path: string }) => r.path === "Cargo.lock")
          .map((r: { tool: string }) => r.tool),
      ).toEqual(["check:check:1", "workspace"]);
    },
    TURN_TIMEOUT_MS,
  );

  test(
    "Go module with go test -coverprofile=cover.out: cover.out is a check output; three turns verified",
    async () => {
      const p = project({
        "go.mod": "module example.com/tiny\n\ngo 1.21\n",
        "tiny.go": "package tiny\n\nconst Step = 1\n\nfunc Next(x int) int { return x + Step }\n",
        "tiny_test.go":
          'package tiny\n\nimport "testing"\n\nfunc TestNext(t *testing.T) {\n\tif Next(1) <= 1 {\n\t\tt.Fatal("does not grow")\n\t}\n}\n',
      });
      const outputs = await threeTurns({
        root: p.root,
        agent: (n) =>
          p.agent(
            `agent${n}.js`,
            `const fs = require("node:fs"); fs.writeFileSync("tiny.go", fs.readFileSync("tiny.go", "utf8").replace(/Step = \\d+/, "Step = ${n + 1}"));`,
          ),
        check: "go test -coverprofile=cover.out ./...",
        outputDirs: [],
        outputFiles: ["cover.out"],
      });
      expect(outputs).toEqual([
        [{ path: "cover.out", change: "added", scope: "output" }],
        [{ path: "cover.out", change: "modified", scope: "output" }],
      ]);
    },
    TURN_TIMEOUT_MS,
  );

  test(
    "Node project whose test writes coverage/lcov.info: coverage/ is a check output; three turns verified",
    async () => {
      const p = project({
        "package.json": JSON.stringify({
          name: "tiny",
          private: true,
          scripts: { test: "node test.js" },
        }),
        "index.js": "exports.STEP = 1;\nexports.next = (x) => x + exports.STEP;\n",
        "test.js": [
          'const fs = require("node:fs");',
          'const { next } = require("./index.js");',
          'if (!(next(1) > 1)) { console.error("does not grow"); process.exit(1); }',
          'fs.mkdirSync("coverage", { recursive: true });',
          'fs.writeFileSync("coverage/lcov.info", "TN:\\nSF:index.js\\nDA:1," + Date.now() + "\\nend_of_record\\n");',
          'console.log("ok");',
          "",
        ].join("\n"),
      });
      const outputs = await threeTurns({
        root: p.root,
        agent: (n) =>
          p.agent(
            `agent${n}.js`,
            `const fs = require("node:fs"); fs.writeFileSync("index.js", fs.readFileSync("index.js", "utf8").replace(/STEP = \\d+/, "STEP = ${n + 1}"));`,
          ),
        check: "npm test",
        outputDirs: ["coverage"],
      });
      expect(outputs).toEqual([
        [{ path: "coverage/lcov.info", change: "added", scope: "output" }],
        [{ path: "coverage/lcov.info", change: "modified", scope: "output" }],
      ]);
    },
    TURN_TIMEOUT_MS,
  );
});
