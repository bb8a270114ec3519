/**
 * The clean room's dependency setup (docs/design.md §3b, "Dependency folders";
 * docs/guarantees.md "Isolation: clean-room checks"), through the real CLI (`turngate run`, real
 * agent, npm and check processes) on real temporary git repositories. A dependency folder the agent
 * changed is never shown as the agent left it: the preset's setup (`npm ci`) rebuilds it in the
 * room from the in-scope bytes, the result is cached by the digest of the setup's inputs, and a
 * second turn with the same inputs reuses it. npm stays offline: the dependencies are local
 * tarballs (`file:` specs) in the source scope.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { gitProject } from "../helpers.js";
import { type Project, SKIP_REASON, sandbox, turngate } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

/** A package tarball `name-1.0.0.tgz` (npm's `package/` layout) whose index exports `source`. */
function tarball(dest: string, name: string, source: string): void {
  const dir = mkdtempSync(join(tmpdir(), "turngate-pkg-"));
  try {
    mkdirSync(join(dir, "package"));
    writeFileSync(
      join(dir, "package/package.json"),
      JSON.stringify({ name, version: "1.0.0", main: "index.js" }),
    );
    writeFileSync(join(dir, "package/index.js"), source);
    mkdirSync(dest, { recursive: true });
    execFileSync("tar", ["czf", join(dest, `${name}-1.0.0.tgz`), "-C", dir, "package"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const npm = (cwd: string, ...args: string[]) =>
  execFileSync("npm", ["--no-audit", "--no-fund", "--offline", ...args], {
    cwd,
    stdio: "ignore",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });

// biome-ignore lint/suspicious/noTemplateCurlyInString: the check script's own template literal
const TEST =
  "const f = require('./lib.js'); const got = f();\nif (got !== 3) { console.error(`expected 3, got ${got}`); process.exit(1); }\n";

/**
 * A project whose `package.json` depends on `one` (a local tarball, installed in
 * `node_modules/`, which is ignored); `vendor/two-1.0.0.tgz` is in scope for an agent to add.
 */
function project(): Project {
  const p = gitProject({
    ".gitignore": "node_modules/\n",
    "package.json": `${JSON.stringify({ name: "app", version: "1.0.0", private: true })}\n`,
    "lib.js": "module.exports = () => require('one')();\n",
    "test.js": TEST,
  });
  cleanups.push(p.cleanup);
  tarball(join(p.root, "vendor"), "one", "module.exports = () => 1;\n");
  tarball(join(p.root, "vendor"), "two", "module.exports = () => 2;\n");
  npm(p.root, "install", "./vendor/one-1.0.0.tgz");
  execFileSync("git", ["add", "-A"], { cwd: p.root });
  execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "deps"],
    { cwd: p.root },
  );
  return p;
}

/** The agent that adds the dependency `two` with npm (package.json, lockfile, node_modules). */
function addDependency(p: Project, lib: string, name = "add.js"): string {
  return p.agent(
    name,
    `const { execFileSync } = require("node:child_process"); const fs = require("node:fs");
execFileSync("npm", ["--no-audit", "--no-fund", "--offline", "install", "./vendor/two-1.0.0.tgz"], { stdio: "ignore" });
fs.writeFileSync("lib.js", ${JSON.stringify(lib)});`,
  );
}

/** An agent that writes `files` (ignored ones included) and nothing else. */
function writer(p: Project, files: Record<string, string>, name: string): string {
  return p.agent(
    name,
    `const fs = require("node:fs");
for (const [f, t] of Object.entries(${JSON.stringify(files)})) fs.writeFileSync(f, t);`,
  );
}

const CHECK = "node test.js";
const ADDS = "module.exports = () => require('one')() + require('two')();\n";
const runs = (stderr: string) => stderr.split("\n").filter((l) => l.includes("setup: running"));
const hits = (stderr: string) => stderr.split("\n").filter((l) => l.includes("setup: reusing"));

async function turn(p: Project, agent: string, mode?: string) {
  const flags = mode !== undefined ? ["--isolation", mode] : [];
  return turngate(["run", "--json", ...flags, "--check", CHECK, "--", "node", agent], p.root, {
    npm_config_update_notifier: "false",
  });
}

describe.skipIf(!sandbox.available)(`dependency setup in the clean room${SKIP_REASON}`, () => {
  test(
    "an agent that adds a dependency with npm ends verified: npm ci re-runs in the room; the same inputs next turn are a cache hit",
    async () => {
      const p = project();
      const first = await turn(p, addDependency(p, ADDS));
      expect(first.json.isolation.mode).toBe("clean-room");
      // On failure, show what the turn said (the setup line, the outcome, the checks).
      expect({
        verdict: first.json.verdict,
        outcome: first.json.outcome,
        stderr: first.stderr,
      }).toMatchObject({ verdict: "verified" });
      expect(first.json.checks.map((c) => [c.id, c.status])).toEqual([["check:1", "passed"]]);
      expect(first.json.verdict).toBe("verified");
      expect(runs(first.stderr)).toHaveLength(1);
      expect(runs(first.stderr)[0]).toMatch(
        /^turngate: setup: running `npm ci --no-audit --no-fund` in the clean room \(node_modules changed during the turn; cache miss [0-9a-f]{12}\)…$/,
      );
      const key = /cache miss ([0-9a-f]{12})/.exec(first.stderr)?.[1];

      // The agent touches node_modules again without changing the setup's inputs: the result
      // sealed in the first turn is reused, npm does not run again.
      const second = await turn(
        p,
        writer(p, { "node_modules/notes.txt": "hello\n", "lib.js": `${ADDS}// again\n` }, "b.js"),
      );
      expect(second.json.verdict).toBe("verified");
      expect(runs(second.stderr)).toEqual([]);
      expect(hits(second.stderr)).toEqual([
        `turngate: setup: reusing the result of \`npm ci --no-audit --no-fund\` (node_modules changed during the turn; cache hit ${key})`,
      ]);
    },
    testTimeout(120_000),
  );

  test(
    "an agent that patches a file inside node_modules (manifests unchanged): the checks see the setup's clean copy, not the patch",
    async () => {
      const broken = "module.exports = () => require('one')();\n";
      // The attack: lib.js returns 1, and the agent patches `one` to return 3.
      const attack = (p: Project) =>
        writer(
          p,
          { "node_modules/one/index.js": "module.exports = () => 3;\n", "lib.js": `${broken}` },
          "attack.js",
        );
      // Positive control: the same set-up, an honest fix, and a harmless write below node_modules.
      const honest = project();
      const ok = await turn(
        honest,
        writer(
          honest,
          {
            "node_modules/one/extra.js": "// harmless\n",
            "lib.js": "module.exports = () => require('one')() + 2;\n",
          },
          "honest.js",
        ),
      );
      expect(ok.json.verdict).toBe("verified");
      expect(runs(ok.stderr)).toHaveLength(1);

      const p = project();
      const refused = await turn(p, attack(p));
      expect(runs(refused.stderr)).toHaveLength(1);
      expect(refused.code).toBe(2);
      expect(refused.json.verdict).toBe("incomplete");
      expect(refused.json.outcome.reason).toBe("unverified_mutation");
      expect(refused.json.checks.map((c) => [c.id, c.status])).toEqual([["check:1", "failed"]]);
      const log = refused.json.checks[0]?.log_path as string;
      expect(readFileSync(log, "utf8")).toContain("expected 3, got 1");
      // The workspace keeps the agent's patch; only the checks never saw it.
      expect(readFileSync(join(p.root, "node_modules/one/index.js"), "utf8")).toBe(
        "module.exports = () => 3;\n",
      );

      // In place, the patched dependency passes the check: the hole the setup closes.
      const q = project();
      expect((await turn(q, attack(q), "in-place")).json.verdict).toBe("verified");
    },
    testTimeout(180_000),
  );

  test(
    "a setup that fails leaves the turn incomplete with a message naming the command, its log and the fix",
    async () => {
      const p = project();
      // The agent edits the manifest so that it no longer matches the lockfile: npm ci refuses.
      const agent = p.agent(
        "drift.js",
        `const fs = require("node:fs");
const m = JSON.parse(fs.readFileSync("package.json", "utf8"));
m.dependencies.two = "file:vendor/two-1.0.0.tgz";
fs.writeFileSync("package.json", JSON.stringify(m));
fs.mkdirSync("node_modules/two", { recursive: true });
fs.writeFileSync("node_modules/two/package.json", JSON.stringify({ name: "two", version: "1.0.0" }));
fs.writeFileSync("node_modules/two/index.js", "module.exports = () => 2;\\n");
fs.writeFileSync("lib.js", ${JSON.stringify(ADDS)});`,
      );
      const result = await turn(p, agent);
      expect(runs(result.stderr)).toHaveLength(1);
      expect(result.code).toBe(2);
      expect(result.json.verdict).toBe("incomplete");
      expect(result.json.checks.map((c) => [c.id, c.status])).toEqual([["setup", "failed"]]);
      const log = result.json.checks[0]?.log_path as string;
      expect(readFileSync(log, "utf8")).toMatch(/npm (error|ERR!)/);
      expect(result.json.outcome.message).toBe(
        `completion gate: the dependency setup \`npm ci --no-audit --no-fund\` failed in the clean room (it ran because node_modules changed during the turn), so no check ran; its log: ${log}. Make \`npm ci --no-audit --no-fund\` succeed on a clean copy of the change (a lockfile that matches the manifests, dependencies that can be fetched), or set "setup" in turngate.config.json to the command that installs them ("setup": false hides a changed dependency folder instead)`,
      );
    },
    testTimeout(120_000),
  );

  test(
    'the setup is read from the configuration captured at the turn\'s start: "setup": false keeps a changed folder hidden, and an agent that rewrites "setup" changes nothing this turn',
    async () => {
      const p = project();
      p.write("turngate.config.json", `${JSON.stringify({ setup: false })}\n`);
      execFileSync("git", ["add", "-A"], { cwd: p.root });
      execFileSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "cfg"],
        { cwd: p.root },
      );
      const agent = p.agent(
        "cfg.js",
        `const { execFileSync } = require("node:child_process"); const fs = require("node:fs");
fs.writeFileSync("turngate.config.json", JSON.stringify({ setup: "exit 0" }));
execFileSync("npm", ["--no-audit", "--no-fund", "--offline", "install", "./vendor/two-1.0.0.tgz"], { stdio: "ignore" });
fs.writeFileSync("lib.js", ${JSON.stringify(ADDS)});`,
      );
      const result = await turn(p, agent);
      expect(runs(result.stderr)).toEqual([]);
      expect(result.json.verdict).toBe("incomplete");
      const log = result.json.checks[0]?.log_path as string;
      expect(readFileSync(log, "utf8")).toContain("Cannot find module 'one'");
    },
    testTimeout(120_000),
  );
});

/** A pure-Python wheel `dep-1.0-py3-none-any.whl` in `dest` whose `dep.f()` returns `value`. */
function wheel(dest: string, value: number): void {
  mkdirSync(dest, { recursive: true });
  const script = `import sys, zipfile
files = {
  "dep/__init__.py": "def f():\\n    return ${value}\\n",
  "dep-1.0.dist-info/METADATA": "Metadata-Version: 2.1\\nName: dep\\nVersion: 1.0\\n",
  "dep-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
files["dep-1.0.dist-info/RECORD"] = "".join(f"{name},,\\n" for name in files) + "dep-1.0.dist-info/RECORD,,\\n"
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for name, text in files.items():
        z.writestr(name, text)
`;
  execFileSync("python3", ["-c", script, join(dest, "dep-1.0-py3-none-any.whl")]);
}

const PY_REQUIREMENTS = "./vendor/dep-1.0-py3-none-any.whl\n";

/** `python3 -m venv .venv` and `pip install -r requirements.txt` (`PY_REQUIREMENTS`) in `dir`. */
function installVenv(dir: string): void {
  wheel(join(dir, "vendor"), 1);
  writeFileSync(join(dir, "requirements.txt"), PY_REQUIREMENTS);
  execFileSync("python3", ["-m", "venv", ".venv"], { cwd: dir });
  execFileSync(
    ".venv/bin/python",
    [
      "-m",
      "pip",
      "install",
      "-q",
      "--no-index",
      "--disable-pip-version-check",
      "-r",
      "requirements.txt",
    ],
    { cwd: dir },
  );
}

/**
 * The workspace's own `.venv/` (`dep` 1.0 installed), made once for this file and copied into
 * each Python project (`cp -a`): `python3 -m venv` alone (ensurepip) takes seconds, and the test
 * below makes three projects. The copy runs from its new place (`bin/python` finds its
 * `pyvenv.cfg` beside it); what the tests exercise is the room's own venv, which the setup
 * builds from scratch in every turn that needs it.
 */
let venvTemplate: string | undefined;
afterAll(() => {
  if (venvTemplate !== undefined) rmSync(venvTemplate, { recursive: true, force: true });
});
function copyVenv(dest: string): void {
  if (venvTemplate === undefined) {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "turngate-venv-")));
    venvTemplate = dir;
    installVenv(dir);
  }
  execFileSync("cp", ["-a", join(venvTemplate, ".venv"), join(dest, ".venv")]);
}

/** A Python project using `dep` from a local wheel (requirements.txt), installed in `.venv/`. */
function pythonProject(): Project {
  const p = gitProject({
    ".gitignore": ".venv/\n",
    "requirements.txt": PY_REQUIREMENTS,
    "lib.py": "import dep\n\ndef g():\n    return dep.f()\n",
    "test.py": "import lib\nassert lib.g() == 3, f'expected 3, got {lib.g()}'\n",
  });
  cleanups.push(p.cleanup);
  wheel(join(p.root, "vendor"), 1);
  copyVenv(p.root);
  execFileSync("git", ["add", "-A"], { cwd: p.root });
  execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "deps"],
    { cwd: p.root },
  );
  return p;
}

describe.skipIf(!sandbox.available)(
  `dependency setup in the clean room: Python${SKIP_REASON}`,
  () => {
    const PY_CHECK = ".venv/bin/python test.py";
    const pyTurn = (p: Project, agent: string, mode?: string) =>
      turngate(
        [
          "run",
          "--json",
          ...(mode !== undefined ? ["--isolation", mode] : []),
          "--check",
          PY_CHECK,
          "--",
          "node",
          agent,
        ],
        p.root,
        { PIP_NO_INDEX: "1" },
      );
    /** An agent that writes `lib` and patches the installed `dep` (null: adds a harmless file beside it). */
    const patcher = (p: Project, lib: string, value: number | null, name: string) =>
      p.agent(
        name,
        `const fs = require("node:fs"); const path = require("node:path");
const site = path.join(".venv/lib", fs.readdirSync(".venv/lib")[0], "site-packages");
if (${value === null}) fs.writeFileSync(path.join(site, "notes.txt"), "hello\\n");
else fs.writeFileSync(path.join(site, "dep/__init__.py"), "def f():\\n    return ${value}\\n");
fs.writeFileSync("lib.py", ${JSON.stringify(lib)});`,
      );

    test(
      "an agent that patches a package in .venv: the checks see the room venv pip built from requirements.txt, not the patch",
      async () => {
        // Positive control: a harmless write in the venv and an honest fix end verified.
        const honest = pythonProject();
        const ok = await pyTurn(
          honest,
          patcher(honest, "import dep\n\ndef g():\n    return dep.f() + 2\n", null, "honest.js"),
        );
        expect(ok.json.isolation.mode).toBe("clean-room");
        expect(runs(ok.stderr)).toEqual([
          expect.stringMatching(
            /^turngate: setup: running `python3 -m venv \.venv && \.venv\/bin\/python -m pip install --disable-pip-version-check -q -r requirements\.txt` in the clean room \(\.venv changed during the turn; cache miss [0-9a-f]{12}\)…$/,
          ),
        ]);
        expect(ok.json.verdict).toBe("verified");

        const attack = (p: Project) =>
          patcher(p, "import dep\n\ndef g():\n    return dep.f()\n", 3, "attack.js");
        const p = pythonProject();
        const refused = await pyTurn(p, attack(p));
        expect(refused.json.verdict).toBe("incomplete");
        expect(refused.json.checks.map((c) => [c.id, c.status])).toEqual([["check:1", "failed"]]);
        expect(readFileSync(refused.json.checks[0]?.log_path as string, "utf8")).toContain(
          "expected 3, got 1",
        );
        const q = pythonProject();
        expect((await pyTurn(q, attack(q), "in-place")).json.verdict).toBe("verified");
      },
      testTimeout(180_000),
    );
  },
);
