/**
 * Clean-room checks (docs/design.md §3b) against a cheating agent: each attack of the third
 * attack round, replayed through the real CLI (`turngate run`, real agent and check
 * processes) on a real temporary git repository. Each test has three runs:
 * - the positive control: an honest agent in the same set-up ends `verified` in the clean
 *   room (a sandbox that broke every check would otherwise look like a defence);
 * - the attack in the default mode (clean-room where the sandbox starts): refused, because
 *   the check fails on a clean copy of the change;
 * - the same attack with `--isolation in-place`: `verified` — the in-place model's hole that
 *   the clean room closes, so each test fails on the in-place path.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { effectDigest } from "@turngate/core";
import { afterEach, describe, expect, test } from "vitest";
import { gitProject } from "../helpers.js";
import { type Project, row, SKIP_REASON, sandbox, turngate, writerAgent } from "./helpers.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

const LIB = "module.exports = () => 1;\n";
const TEST =
  "const f = require('./lib.js'); const got = f();\nif (got !== 1) { console.error(`expected 1, got ${got}`); process.exit(1); }\n";
const HONEST = "module.exports = () => 2 - 1;\n";

function project(files: Record<string, string> = { "lib.js": LIB, "test.js": TEST }): Project {
  const p = gitProject(files);
  cleanups.push(p.cleanup);
  return p;
}

/** Run `agent` as one turn with `check` in `mode` (`undefined`: the default). */
async function turn(p: Project, agent: string, check: string, mode?: string, env = {}) {
  const flags = mode !== undefined ? ["--isolation", mode] : [];
  return turngate(["run", "--json", ...flags, "--check", check, "--", "node", agent], p.root, env);
}

/** The honest control: `lib.js` rewritten correctly ends verified in the clean room. */
async function expectHonestVerified(files?: Record<string, string>, check = "node test.js") {
  const p = project(files);
  const result = await turn(p, writerAgent(p, { "lib.js": HONEST }), check);
  expect(result.json.isolation.mode).toBe("clean-room");
  expect(result.json.verdict).toBe("verified");
  expect(result.json.effect_digest).toBe(effectDigest([row("lib.js", HONEST)]));
}

/** The check failed in the clean room: the turn is incomplete, exit 2, the check's log says why. */
function expectRefused(result: Awaited<ReturnType<typeof turn>>, because: string) {
  expect(result.json.isolation.mode).toBe("clean-room");
  expect(result.code).toBe(2);
  expect(result.json.verdict).toBe("incomplete");
  expect(result.json.outcome.reason).toBe("unverified_mutation");
  expect(result.json.checks.map((c) => c.status)).toEqual(["failed"]);
  const log = result.json.checks[0]?.log_path;
  expect(log).toBeTruthy();
  expect(readFileSync(log as string, "utf8")).toContain(because);
}

describe.skipIf(!sandbox.available)(`clean-room checks refuse the attacks${SKIP_REASON}`, () => {
  const hidden = [
    ".git/logs/impl.js",
    `.git/objects/ab/${"c".repeat(38)}`,
    ".git/modules/x/impl.js",
    `.turngate/logs/${"d".repeat(64)}.log`,
    ".turngate/cache/events.jsonl",
  ];
  test.each(hidden)(
    "code hidden at %s (a name git or turngate keeps for itself) is not in the room",
    async (place) => {
      await expectHonestVerified();
      const cheat = { [place]: LIB, "lib.js": `module.exports = require('./${place}');\n` };
      const p = project();
      expectRefused(await turn(p, writerAgent(p, cheat), "node test.js"), "Cannot find module");
      const q = project();
      const inPlace = await turn(q, writerAgent(q, cheat), "node test.js", "in-place");
      expect(inPlace.json.isolation.mode).toBe("in-place");
      expect(inPlace.json.verdict).toBe("verified");
    },
  );

  test("code in a src/.git/ folder of a workspace that is not a git repository is not in the room", async () => {
    const make = () => {
      const root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-nogit-")));
      const agents = realpathSync(mkdtempSync(join(tmpdir(), "turngate-agents-")));
      for (const [f, t] of Object.entries({
        "src/lib.js": LIB,
        "test.js": TEST.replace("./lib.js", "./src/lib.js"),
      })) {
        mkdirSync(join(root, f, ".."), { recursive: true });
        writeFileSync(join(root, f), t);
      }
      const p: Project = {
        root,
        agents,
        write: () => undefined,
        agent(name, source) {
          writeFileSync(join(agents, name), source);
          return join(agents, name);
        },
        cleanup() {
          rmSync(root, { recursive: true, force: true });
          rmSync(agents, { recursive: true, force: true });
        },
      };
      cleanups.push(p.cleanup);
      return p;
    };
    const honest = make();
    const ok = await turn(honest, writerAgent(honest, { "src/lib.js": HONEST }), "node test.js");
    expect(ok.json.verdict).toBe("verified");
    const cheat = {
      "src/.git/impl.js": LIB,
      "src/lib.js": "module.exports = require('./.git/impl.js');\n",
    };
    const p = make();
    expectRefused(await turn(p, writerAgent(p, cheat), "node test.js"), "Cannot find module");
    const q = make();
    const inPlace = await turn(q, writerAgent(q, cheat), "node test.js", "in-place");
    expect(inPlace.json.verdict).toBe("verified");
  });

  test("a symlink to a file outside the workspace resolves to nothing in the room", async () => {
    await expectHonestVerified();
    const cheatFor = (p: Project) => {
      const impl = join(p.agents, "impl.js");
      return writerAgent(
        p,
        {},
        `fs.writeFileSync(${JSON.stringify(impl)}, ${JSON.stringify(LIB)}); fs.rmSync("lib.js"); fs.symlinkSync(${JSON.stringify(impl)}, "lib.js");`,
      );
    };
    const p = project();
    expectRefused(await turn(p, cheatFor(p), "node test.js"), "Cannot find module");
    const q = project();
    expect((await turn(q, cheatFor(q), "node test.js", "in-place")).json.verdict).toBe("verified");
  });

  test("npm's user config (~/.npmrc script-shell=/bin/true) is not seen: the checks get a private home", async () => {
    const files = {
      "lib.js": LIB,
      "test.js": TEST,
      "package.json": '{"name":"p","version":"1.0.0","scripts":{"test":"node test.js"}}\n',
    };
    const home = realpathSync(mkdtempSync(join(tmpdir(), "turngate-home-")));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const env = { HOME: home, npm_config_update_notifier: "false" };
    const honest = project(files);
    const ok = await turn(
      honest,
      writerAgent(honest, { "lib.js": HONEST }),
      "npm test",
      undefined,
      env,
    );
    expect(ok.json.verdict).toBe("verified");
    const cheat = (p: Project) =>
      writerAgent(p, {
        "lib.js": "module.exports = () => 3;\n",
        [join(home, ".npmrc")]: "script-shell=/bin/true\n",
      });
    const p = project(files);
    expectRefused(await turn(p, cheat(p), "npm test", undefined, env), "expected 1, got 3");
    rmSync(join(home, ".npmrc"));
    const q = project(files);
    const inPlace = await turn(q, cheat(q), "npm test", "in-place", env);
    expect(inPlace.json.verdict).not.toBe("incomplete");
  });

  test("git rm --cached of a test the runner lists with git ls-files does not hide it: the room's index is the digest's files", async () => {
    const files = {
      "lib.js": LIB,
      "tests/one.sh":
        "node -e \"process.exit(require('./lib.js')() === 1 ? 0 : 1)\" || { echo 'one: expected 1'; exit 1; }\n",
      "run-tests.sh": 'set -e\nfor f in $(git ls-files tests); do sh "$f"; done\n',
    };
    const runner = "sh run-tests.sh";
    await expectHonestVerified(files, runner);
    const cheat = (p: Project) =>
      writerAgent(
        p,
        { "lib.js": "module.exports = () => 3;\n" },
        `require("node:child_process").execFileSync("git", ["rm", "-q", "--cached", "tests/one.sh"]);`,
      );
    const p = project(files);
    const refused = await turn(p, cheat(p), runner);
    expectRefused(refused, "one: expected 1");
    const q = project(files);
    expect((await turn(q, cheat(q), runner, "in-place")).json.verdict).toBe("verified");
  });

  test("code a check wrote into coverage/ in one turn is gone before the next turn's check requires it", async () => {
    const writesCoverage =
      "require('node:fs').mkdirSync('coverage', {recursive: true}); require('node:fs').writeFileSync('coverage/impl.js', 'module.exports = () => 1;');\n" +
      TEST;
    const two = { "lib.js": "module.exports = require('./coverage/impl.js');\n", "test.js": TEST };
    for (const mode of [undefined, "in-place"]) {
      const p = project();
      const first = await turn(
        p,
        writerAgent(p, { "test.js": writesCoverage }),
        "node test.js",
        mode,
      );
      expect(first.json.verdict).toBe("verified");
      const second = await turn(p, writerAgent(p, two, "", "two.js"), "node test.js", mode);
      if (mode === undefined) expectRefused(second, "Cannot find module './coverage/impl.js'");
      else expect(second.json.verdict).toBe("verified");
    }
  });

  test("a process a check starts with setsid dies with the check and never writes the workspace", async () => {
    // The check leaves a process in a session of its own (setsid: outside the check's
    // process group) that rewrites lib.js after the verdict.
    const check =
      "node -e \"require('node:child_process').spawn('setsid', ['sh', '-c', 'sleep 1; echo \\\"module.exports = () => 9;\\\" > lib.js'], {detached: true, stdio: 'ignore'}).unref()\" && node test.js";
    for (const mode of [undefined, "in-place"]) {
      const p = project();
      const result = await turn(p, writerAgent(p, { "lib.js": HONEST }), check, mode);
      expect(result.json.verdict).toBe("verified");
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const now = readFileSync(join(p.root, "lib.js"), "utf8");
      // In place the escaped process rewrote the verified file after the verdict.
      expect(now).toBe(mode === undefined ? HONEST : "module.exports = () => 9;\n");
    }
  });

  test("agent-written files in an ignored dependency folder are never visible; an unchanged one is, read-only", async () => {
    const files = { ".gitignore": "node_modules/\n", "lib.js": LIB, "test.js": TEST };
    const withDep = () => {
      const p = project(files);
      p.write("node_modules/dep/index.js", "module.exports = () => 2;\n");
      return p;
    };
    const honest = withDep();
    const ok = await turn(
      honest,
      writerAgent(honest, { "lib.js": "module.exports = () => require('dep')() - 1;\n" }),
      "node test.js",
    );
    expect(ok.json.verdict).toBe("verified");
    const cheat = {
      "node_modules/dep/index.js": "module.exports = () => 1;\n",
      "lib.js": "module.exports = require('dep');\n",
    };
    const p = withDep();
    expectRefused(await turn(p, writerAgent(p, cheat), "node test.js"), "Cannot find module 'dep'");
    const q = withDep();
    expect((await turn(q, writerAgent(q, cheat), "node test.js", "in-place")).json.verdict).toBe(
      "verified",
    );
  });

  test("a room manifest the agent forges (claiming the room's good file holds its broken bytes) proves nothing", async () => {
    await expectHonestVerified();
    const forge = (p: Project) =>
      p.agent(
        "forge.js",
        `const fs = require("node:fs"); const path = require("node:path"); const crypto = require("node:crypto");
const ws = fs.realpathSync(".");
const dir = path.join(process.env.TURNGATE_ROOM_DIR, crypto.createHash("sha256").update(ws).digest("hex").slice(0, 16));
const broken = "module.exports = () => 3;\\n";
fs.mkdirSync(path.join(dir, "tree"), { recursive: true });
fs.writeFileSync(path.join(dir, "tree/lib.js"), ${JSON.stringify(LIB)});
fs.writeFileSync(path.join(dir, "tree/test.js"), fs.readFileSync("test.js"));
const entry = (file, digest) => { const st = fs.lstatSync(path.join(dir, "tree", file), { bigint: true });
  return { kind: "file", digest, size: String(st.size), mtime_ns: String(st.mtimeNs), ctime_ns: String(st.ctimeNs), ino: String(st.ino), mode: String(st.mode) }; };
const sha = (b) => crypto.createHash("sha256").update(b).digest("hex");
fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ schema: "turngate.clean_room.v1", workspace: ws, mtime_s: 0,
  stamp_ns: "99999999999999999999", git: null, head: null,
  entries: { "lib.js": entry("lib.js", sha(broken)), "test.js": entry("test.js", sha(fs.readFileSync("test.js"))) } }));
fs.writeFileSync("lib.js", broken);`,
      );
    const p = project();
    expectRefused(await turn(p, forge(p), "node test.js"), "expected 1, got 3");
  });

  test("bytecode an earlier turn's check compiled (unchecked-hash .pyc) is gone in the next turn", async () => {
    const files = {
      "lib.py": "def f():\n    return 1\n",
      "test.py": "import lib\nassert lib.f() == 1, f'expected 1, got {lib.f()}'\n",
    };
    const python = "python3 test.py";
    const compiling =
      "import py_compile\npy_compile.compile('lib.py', cfile='__pycache__/lib.cpython-311.pyc', invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\n" +
      files["test.py"];
    const p = project(files);
    const first = await turn(p, writerAgent(p, { "test.py": compiling }), python);
    expect(first.json.verdict).toBe("verified");
    const second = await turn(
      p,
      writerAgent(
        p,
        { "test.py": files["test.py"], "lib.py": "def f():\n    return 3\n" },
        "",
        "two.js",
      ),
      python,
    );
    expectRefused(second, "expected 1, got 3");
  });

  test("the room's copy of the workspace cannot be written back: a check's write to a dependency folder fails, a write at its top is discarded", async () => {
    const files = {
      ".gitignore": "node_modules/\n",
      "lib.js": LIB,
      "test.js": TEST,
      "check.sh":
        "set -e\nmkdir -p node_modules/.cache\necho x > node_modules/.cache/c\nif echo y > node_modules/dep/index.js; then exit 3; fi\nnode test.js\n",
    };
    const p = project(files);
    p.write("node_modules/dep/index.js", "module.exports = 1;\n");
    const check = "sh check.sh";
    const result = await turn(p, writerAgent(p, { "lib.js": HONEST }), check);
    expect(result.json.verdict).toBe("verified");
    expect(readFileSync(join(p.root, "node_modules/dep/index.js"), "utf8")).toBe(
      "module.exports = 1;\n",
    );
    expect(() => readFileSync(join(p.root, "node_modules/.cache/c"))).toThrow(/ENOENT/);
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: p.root, encoding: "utf8" })).toBe(
      " M lib.js\n",
    );
  });
});
