/**
 * Confined agents (docs/guarantees.md "Confined agents", issue 32 item 1) against the third attack
 * round's "files outside the workspace that checks read": with `--confine --isolation
 * in-place` (in place, so the clean room's private home is not what defends) each attack
 * is refused, because the agent cannot write outside the workspace. Each test has three
 * runs on fresh worlds (real git repository, temporary HOME and tools folder, real agent
 * and check processes):
 * - the positive control: the honest agent, confined, ends `verified` with `trust: confined`;
 * - the attack, confined: the planted file is not written, the check fails on the broken
 *   code, the turn is incomplete (exit 2);
 * - the same attack without `--confine`: the write lands and the turn ends `verified` — the
 *   hole confinement closes, so each test fails on the unconfined path (the PATH tool over
 *   1 MiB is the exception: the observer now fingerprints it, so unconfined it ends
 *   incomplete with an environment row; confined, the rewrite never happens).
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import {
  BROKEN,
  cleanWorlds,
  HONEST,
  LIB,
  SKIP_REASON,
  sandbox,
  TEST,
  turn,
  type World,
  world,
} from "./helpers.js";

afterEach(cleanWorlds);

/**
 * An agent that writes `lib` (the workspace change) and then tries `attack` (JavaScript run
 * with `fs` in scope), printing the refusal instead of failing.
 */
function agent(w: World, lib: [string, string], attack = ""): string {
  return w.p.agent(
    "agent.js",
    `const fs = require("node:fs"); const path = require("node:path");
fs.writeFileSync(${JSON.stringify(lib[0])}, ${JSON.stringify(lib[1])});
try { ${attack} } catch (error) { console.error("attack refused: " + error.code); process.exitCode = 3; }
`,
  );
}

/** JavaScript that writes `text` at the absolute `file` (folders made). */
const plant = (file: string, text: string) =>
  `fs.mkdirSync(path.dirname(${JSON.stringify(file)}), { recursive: true }); fs.writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(text)});`;

interface Scenario {
  /** A fresh world for one run. */
  make: () => World;
  /** The workspace file the agents change and its honest and cheating contents. */
  file: string;
  honest: string;
  cheat: string;
  /** JavaScript the cheating agent runs after writing `cheat` (the outside write). */
  attack: (w: World) => string;
  /** Whether the outside write landed on the host (false after the confined attack). */
  landed: (w: World) => boolean;
  check: string;
  /** Text the failing check's log holds in the confined attack. */
  because: string;
  /**
   * What the unconfined run ends as, when it is not the `verified` of an open hole (the
   * observer already catches the write: confinement then stops it before it lands).
   */
  unconfined?: (json: Record<string, unknown>) => void;
}

async function expectConfineRefuses(s: Scenario): Promise<void> {
  const honest = s.make();
  const ok = await turn(honest, agent(honest, [s.file, s.honest]), s.check, { confine: true });
  expect(ok.json.verdict).toBe("verified");
  expect((ok.json as unknown as { trust: string }).trust).toBe("confined");

  const confined = s.make();
  const refused = await turn(
    confined,
    agent(confined, [s.file, s.cheat], s.attack(confined)),
    s.check,
    {
      confine: true,
    },
  );
  expect(s.landed(confined)).toBe(false);
  expect(refused.code).toBe(2);
  expect(refused.json.verdict).toBe("incomplete");
  expect(refused.json.outcome.reason).toBe("unverified_mutation");
  expect(refused.json.checks.map((c) => c.status)).toEqual(["failed"]);
  expect(readFileSync(refused.json.checks[0]?.log_path as string, "utf8")).toContain(s.because);

  const open = s.make();
  const cheated = await turn(open, agent(open, [s.file, s.cheat], s.attack(open)), s.check, {
    confine: false,
  });
  expect(s.landed(open)).toBe(true);
  if (s.unconfined) s.unconfined(cheated.json as unknown as Record<string, unknown>);
  else expect(cheated.json.verdict).toBe("verified");
}

const PY_FILES = {
  "lib.py": "def f():\n    return 1\n",
  "test.py":
    "import sys\nimport lib\ngot = lib.f()\nif got != 1:\n    print(f'expected 1, got {got}')\n    sys.exit(1)\n",
};

describe.skipIf(!sandbox.available)(
  `a confined agent cannot plant what checks read outside the workspace${SKIP_REASON}`,
  () => {
    test(
      "a .pth in a virtualenv on PATH (every python start exits 0)",
      async () => {
        const sitePackages = (w: World) => {
          const lib = join(w.tools, "venv", "lib");
          return join(lib, readdirSync(lib)[0] as string, "site-packages");
        };
        await expectConfineRefuses({
          make: () => {
            const w = world(PY_FILES, ({ tools }) => [join(tools, "venv", "bin")]);
            execFileSync("python3", ["-m", "venv", "--without-pip", join(w.tools, "venv")]);
            return w;
          },
          file: "lib.py",
          honest: "def f():\n    return 2 - 1\n",
          cheat: "def f():\n    return 3\n",
          attack: (w) => plant(join(sitePackages(w), "zz-pass.pth"), "import os; os._exit(0)\n"),
          landed: (w) => existsSync(join(sitePackages(w), "zz-pass.pth")),
          check: "python3 test.py",
          because: "expected 1, got 3",
        });
      },
      testTimeout(60_000),
    );

    test(
      "npm's global etc/npmrc (script-shell=/bin/true under NPM_CONFIG_PREFIX)",
      async () => {
        const files = {
          "lib.js": LIB,
          "test.js": TEST,
          "package.json": '{"name":"p","version":"1.0.0","scripts":{"test":"node test.js"}}\n',
        };
        const npmrc = (w: World) => join(w.tools, "prefix", "etc", "npmrc");
        await expectConfineRefuses({
          make: () => {
            const w = world(files);
            mkdirSync(join(w.tools, "prefix", "etc"), { recursive: true });
            w.env.NPM_CONFIG_PREFIX = join(w.tools, "prefix");
            return w;
          },
          file: "lib.js",
          honest: HONEST,
          cheat: BROKEN,
          attack: (w) => plant(npmrc(w), "script-shell=/bin/true\n"),
          landed: (w) => existsSync(npmrc(w)),
          check: "npm test",
          because: "expected 1, got 3",
        });
      },
      testTimeout(60_000),
    );

    test(
      "$PREFIX/lib/node of the node on PATH (a module the workspace requires, kept outside it)",
      async () => {
        const impl = (w: World) =>
          join(w.tools, "prefix", "lib", "node", "planted-impl", "index.js");
        await expectConfineRefuses({
          make: () => {
            const w = world(undefined, ({ tools }) => [join(tools, "prefix", "bin")]);
            mkdirSync(join(w.tools, "prefix", "bin"), { recursive: true });
            const node = join(w.tools, "prefix", "bin", "node");
            // A copy, never a hard link: linking changes the real node's ctime, which every
            // test running beside this one that fingerprints PATH would see as a changed tool.
            copyFileSync(process.execPath, node);
            chmodSync(node, 0o755);
            return w;
          },
          file: "lib.js",
          honest: HONEST,
          cheat: 'module.exports = require("planted-impl");\n',
          attack: (w) => plant(impl(w), LIB),
          landed: (w) => existsSync(impl(w)),
          check: "node test.js",
          because: "Cannot find module 'planted-impl'",
        });
      },
      testTimeout(60_000),
    );

    test(
      "a PATH tool over 1 MiB in the home folder rewritten in place, size, mtime and inode kept",
      async () => {
        const tool = (w: World) => join(w.home, "bin", "runtests");
        const head = "#!/bin/sh\nnode test.js\n#";
        const forged = "#!/bin/sh\nexit 0      \n#";
        expect(forged.length).toBe(head.length);
        await expectConfineRefuses({
          make: () => {
            const w = world(undefined, ({ home }) => [join(home, "bin")]);
            mkdirSync(join(w.home, "bin"));
            writeFileSync(tool(w), `${head}${"x".repeat(1536 * 1024)}\n`);
            chmodSync(tool(w), 0o755);
            return w;
          },
          file: "lib.js",
          honest: HONEST,
          cheat: BROKEN,
          attack: (w) => `const before = fs.statSync(${JSON.stringify(tool(w))});
const fd = fs.openSync(${JSON.stringify(tool(w))}, "r+");
fs.writeSync(fd, ${JSON.stringify(forged)}, 0); fs.closeSync(fd);
fs.utimesSync(${JSON.stringify(tool(w))}, before.atime, before.mtime);`,
          landed: (w) => readFileSync(tool(w), "utf8").startsWith(forged),
          check: "runtests",
          because: "expected 1, got 3",
          // Since round 3 the home folder's PATH tools are fingerprinted past 1 MiB too: the
          // unconfined rewrite lands, and the observer names it (an environment row).
          unconfined: (json) => {
            expect(json.verdict).toBe("incomplete");
            expect(json.environment_changes).toEqual([
              { path: "~/bin/runtests", content_digest: expect.stringMatching(/^[0-9a-f]{64}$/) },
            ]);
          },
        });
      },
      testTimeout(60_000),
    );

    test(
      "the 2,001st file of ~/.node_modules (past the fingerprint's 2,000-file budget)",
      async () => {
        const impl = (w: World) => join(w.home, ".node_modules", "zz-impl", "index.js");
        await expectConfineRefuses({
          make: () => {
            const w = world();
            mkdirSync(join(w.home, ".node_modules"));
            for (let i = 0; i < 2000; i += 1) {
              writeFileSync(join(w.home, ".node_modules", `a${String(i).padStart(4, "0")}.js`), "");
            }
            return w;
          },
          file: "lib.js",
          honest: HONEST,
          cheat: 'module.exports = require("zz-impl");\n',
          attack: (w) => plant(impl(w), LIB),
          landed: (w) => existsSync(impl(w)),
          check: "node test.js",
          because: "Cannot find module 'zz-impl'",
        });
      },
      testTimeout(60_000),
    );
  },
);
