/**
 * Clean-room checks (docs/design.md §3b): the four false alarms of in-place checks end
 * verified with zero configuration in the default mode, because what checks write stays in
 * the room; and the modes: `auto` falls back to in-place with one line saying why, a
 * required clean room whose sandbox cannot start fails closed (`isolation_unavailable`),
 * the configuration is the one captured when the turn starts, and the proof records the
 * mode that ran. The fallback and fail-closed tests run on every machine (they force the
 * sandbox off with TURNGATE_BWRAP=none).
 */
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { effectDigest } from "@turngate/core";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { gitProject, readProofPayload } from "../helpers.js";
import {
  type Project,
  row,
  SKIP_REASON,
  sandbox,
  sha256,
  turngate,
  writerAgent,
} from "./helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(240_000), hookTimeout: testTimeout(240_000) });

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

function project(files: Record<string, string>): Project {
  const p = gitProject(files);
  cleanups.push(p.cleanup);
  return p;
}

const LIB = "module.exports = () => 1;\n";
const TEST = "if (require('./lib.js')() !== 1) { console.error('expected 1'); process.exit(1); }\n";
const HONEST = "module.exports = () => 2 - 1;\n";

async function both(p: () => Project, check: string, agentFiles: Record<string, string>) {
  const clean = p();
  const inRoom = await turngate(
    ["run", "--json", "--check", check, "--", "node", writerAgent(clean, agentFiles)],
    clean.root,
  );
  const other = p();
  const inPlace = await turngate(
    [
      "run",
      "--json",
      "--isolation",
      "in-place",
      "--check",
      check,
      "--",
      "node",
      writerAgent(other, agentFiles),
    ],
    other.root,
  );
  return { clean, inRoom, inPlace };
}

describe.skipIf(!sandbox.available)(
  `check outputs are no false alarm in the clean room${SKIP_REASON}`,
  () => {
    test("a snapshot file the test runner writes on its first run (__snapshots__/*.snap)", async () => {
      const snap =
        "const fs = require('node:fs'); const v = String(require('./lib.js')());\n" +
        "if (!fs.existsSync('__snapshots__/lib.snap')) { fs.mkdirSync('__snapshots__', {recursive: true}); fs.writeFileSync('__snapshots__/lib.snap', v); }\n" +
        "if (fs.readFileSync('__snapshots__/lib.snap', 'utf8') !== '1') process.exit(1);\n";
      const { clean, inRoom, inPlace } = await both(
        () => project({ "lib.js": LIB, "snap.js": snap }),
        "node snap.js",
        { "lib.js": HONEST },
      );
      expect(inRoom.json.verdict).toBe("verified");
      expect(inRoom.json.effect_digest).toBe(effectDigest([row("lib.js", HONEST)]));
      expect(existsSync(join(clean.root, "__snapshots__"))).toBe(false);
      expect(inPlace.json.verdict).toBe("incomplete");
      expect(inPlace.json.binding?.reason).toBe("workspace_changed_during_check");
    });

    test("a check that reads an ignored file fails in the clean room (the file is not there, by design), and the text says why and what to do; in place it passes", async () => {
      const reads =
        "const fs = require('node:fs');\n" +
        "const s = JSON.parse(fs.readFileSync('settings.local.json', 'utf8'));\n" +
        "if (require('./lib.js')() !== s.expected) process.exit(1);\n";
      const files = { "lib.js": LIB, "t.js": reads, ".gitignore": "settings.local.json\n" };
      const make = () => {
        const p = project(files);
        execFileSync("sh", ["-c", `printf '{"expected": 1}' > settings.local.json`], {
          cwd: p.root,
        });
        return p;
      };
      const room = make();
      const failed = await turngate(
        ["run", "--check", "node t.js", "--", "node", writerAgent(room, { "lib.js": HONEST })],
        room.root,
      );
      expect(failed.code).toBe(2);
      expect(failed.stdout).toContain(
        'clean room: the checks ran on a copy of the tracked and unignored files only; an ignored file a check reads (a local settings file, a generated one) is not there. If a check needs one: track it, create it in the check or its setup, or run with --isolation in-place. Unless the configuration sets "network": true, the room has no network either: a dependency missing from your caches (~/go/pkg/mod, ~/.cargo/registry) cannot be fetched there; fetch it before the checks (a confined agent needs that cache in "agent_writable")\n',
      );
      // The positive control: in place, the same change passes, and no such line is printed.
      const other = make();
      const passed = await turngate(
        [
          "run",
          "--isolation",
          "in-place",
          "--check",
          "node t.js",
          "--",
          "node",
          writerAgent(other, { "lib.js": HONEST }),
        ],
        other.root,
      );
      expect(passed.code).toBe(0);
      expect(passed.stdout).not.toContain("clean room:");
    });

    test("a pretest step that rewrites a tracked file with the same bytes", async () => {
      const gen = "require('node:fs').writeFileSync('generated.js', 'module.exports = 1;\\n');\n";
      const { inRoom, inPlace } = await both(
        () =>
          project({
            "lib.js": LIB,
            "test.js": TEST,
            "gen.js": gen,
            "generated.js": "module.exports = 1;\n",
          }),
        "node gen.js && node test.js",
        { "lib.js": HONEST },
      );
      expect(inRoom.json.verdict).toBe("verified");
      expect(inPlace.json.verdict).toBe("incomplete");
      expect(inPlace.json.binding?.reason).toBe("workspace_changed_during_check");
    });

    test("git gc in a nested repository", async () => {
      const make = () => {
        const p = project({ "lib.js": LIB, "test.js": TEST });
        p.write("vendor/dep/index.js", "module.exports = 1;\n");
        const git = (...args: string[]) =>
          execFileSync(
            "git",
            ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args],
            {
              cwd: join(p.root, "vendor/dep"),
              stdio: "ignore",
            },
          );
        git("init", "-q");
        git("add", "-A");
        git("commit", "-q", "--no-gpg-sign", "-m", "dep");
        return p;
      };
      const { inRoom, inPlace } = await both(make, "git -C vendor/dep gc -q && node test.js", {
        "lib.js": HONEST,
      });
      expect(inRoom.json.verdict).toBe("verified");
      expect(inPlace.json.verdict).toBe("incomplete");
    });

    test('reports the configuration\'s "outputs" names are copied out of the room; the workspace stays as the agent left it', async () => {
      const p = project({
        "lib.js": LIB,
        "test.js": TEST,
        "turngate.config.json": '{"outputs": ["coverage/", "junit.xml"]}\n',
      });
      const check =
        "mkdir -p coverage/html && echo lcov > coverage/lcov.info && echo page > coverage/html/index.html && echo '<testsuite/>' > junit.xml && echo other > other.txt && node test.js";
      const result = await turngate(
        ["run", "--json", "--check", check, "--", "node", writerAgent(p, { "lib.js": HONEST })],
        p.root,
      );
      expect(result.json.verdict).toBe("verified");
      const copied = (
        result.json as unknown as { copied_outputs: { dir: string; paths: string[] } }
      ).copied_outputs;
      expect(copied.paths).toEqual(["coverage/html/index.html", "coverage/lcov.info", "junit.xml"]);
      const dir = copied.dir;
      // Outside the workspace, under the room's folder, per effect digest.
      expect(dir.startsWith(`${process.env.TURNGATE_ROOM_DIR}/`)).toBe(true);
      expect(dir.endsWith(`/outputs/${result.json.effect_digest}`)).toBe(true);
      expect(readFileSync(join(dir, "coverage/lcov.info"), "utf8")).toBe("lcov\n");
      expect(existsSync(join(dir, "other.txt"))).toBe(false);
      expect(existsSync(join(p.root, "coverage"))).toBe(false);
      expect(existsSync(join(p.root, "junit.xml"))).toBe(false);
      // `show` lists them with their paths outside the workspace; the page links them.
      const shown = await turngate(["show", "last"], p.root);
      const lines = shown.stdout.split("\n");
      const at = lines.findIndex((l) => l.startsWith("  outputs: "));
      expect(lines.slice(at, at + 4)).toEqual([
        `  outputs: 3 files the checks wrote, copied out of the clean room to ${dir}`,
        `    ${dir}/coverage/html/index.html`,
        `    ${dir}/coverage/lcov.info`,
        `    ${dir}/junit.xml`,
      ]);
      const html = join(p.root, "..", `${p.root.split("/").pop()}-view.html`);
      cleanups.push(() => rmSync(html, { force: true }));
      await turngate(["show", "last", "--html", html], p.root);
      expect(readFileSync(html, "utf8")).toContain(
        `<a href="file://${dir}/junit.xml"><code>junit.xml</code></a>`,
      );
    });

    test("cargo creating Cargo.lock in a crate that had none", async () => {
      const crate = {
        "Cargo.toml": '[package]\nname = "one"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs":
          "pub fn one() -> u32 { 1 }\n#[cfg(test)]\nmod tests { #[test] fn is_one() { assert_eq!(super::one(), 1); } }\n",
      };
      const honest = { "src/lib.rs": crate["src/lib.rs"].replace("{ 1 }", "{ 2 - 1 }") };
      const { clean, inRoom, inPlace } = await both(
        () => project(crate),
        "cargo test --offline -q",
        honest,
      );
      expect(inRoom.json.verdict).toBe("verified");
      expect(existsSync(join(clean.root, "Cargo.lock"))).toBe(false);
      expect(existsSync(join(clean.root, "target"))).toBe(false);
      expect(inPlace.json.verdict).toBe("incomplete");
      expect(inPlace.json.binding?.reason).toBe("workspace_changed_during_check");
    });
  },
);

describe("modes", () => {
  const none = { TURNGATE_BWRAP: "none" };

  test("auto falls back to in-place where the sandbox cannot start, with one line saying why", async () => {
    const p = project({ "lib.js": LIB, "test.js": TEST });
    const result = await turngate(
      [
        "run",
        "--json",
        "--check",
        "node test.js",
        "--",
        "node",
        writerAgent(p, { "lib.js": HONEST }),
      ],
      p.root,
      none,
    );
    expect(result.json.verdict).toBe("verified");
    expect(result.json.isolation).toEqual({
      mode: "in-place",
      requested: "auto",
      available: true,
      reason: "TURNGATE_BWRAP=none",
    });
    const lines = result.stderr.split("\n").filter((line) => line.includes("checks run in place"));
    expect(lines).toEqual([
      'turngate: checks run in place, not in a clean room: TURNGATE_BWRAP=none. In place, the checks see the agent\'s whole workspace (ignored files, .git) and your home folder, so a cheating agent has more ways to a false verified; install bubblewrap to check a clean copy, or set "isolation": "in-place" to silence this line',
    ]);
  });

  test("a required clean room whose sandbox cannot start fails closed: no check runs, incomplete isolation_unavailable", async () => {
    const p = project({ "lib.js": LIB, "test.js": TEST });
    const agent = writerAgent(p, { "lib.js": HONEST });
    const result = await turngate(
      [
        "run",
        "--json",
        "--isolation",
        "clean-room",
        "--check",
        "node test.js",
        "--",
        "node",
        agent,
      ],
      p.root,
      none,
    );
    expect(result.code).toBe(2);
    expect(result.json.verdict).toBe("incomplete");
    expect(result.json.outcome.reason).toBe("isolation_unavailable");
    expect(result.json.outcome.message).toBe(
      'completion gate: clean-room checks are required but the check sandbox cannot start here (TURNGATE_BWRAP=none); no check ran. Fix the sandbox, or run with --isolation in-place (or "isolation": "in-place" in turngate.config.json), which checks in the workspace and guarantees less',
    );
    expect(result.json.checks).toEqual([]);
    expect(result.json.isolation).toEqual({
      mode: "clean-room",
      requested: "clean-room",
      available: false,
      reason: "TURNGATE_BWRAP=none",
    });
    expect(result.json.binding?.reason).toBe("isolation_unavailable");
    const text = await turngate(
      ["run", "--isolation", "clean-room", "--check", "node test.js", "--", "node", agent],
      project({ "lib.js": LIB, "test.js": TEST }).root,
      none,
    );
    expect(text.stdout).toContain(
      "isolation: clean-room required, but the sandbox could not start: no check ran\n",
    );
  });

  test('"isolation": "clean-room" in the configuration fails closed the same way; an unknown mode is refused naming the field', async () => {
    const p = project({
      "lib.js": LIB,
      "test.js": TEST,
      "turngate.config.json": '{"isolation": "clean-room", "checks": ["node test.js"]}\n',
    });
    const result = await turngate(
      ["run", "--json", "--", "node", writerAgent(p, { "lib.js": HONEST })],
      p.root,
      none,
    );
    expect(result.json.outcome.reason).toBe("isolation_unavailable");
    const bad = await turngate(["run", "--isolation", "sealed", "--", "true"], p.root);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(
      'turngate: error: invalid --isolation value at --isolation: "sealed" is not an isolation mode: use auto, clean-room, in-place [invalid_input]',
    );
  });

  test('baseline → verify: the captured "isolation": "clean-room" holds though the agent switches the file to in-place (it failed open: the captured configuration dropped isolation, setup and network)', async () => {
    const p = project({
      "lib.js": LIB,
      "test.js": TEST,
      "turngate.config.json": '{"isolation": "clean-room", "checks": ["node test.js"]}\n',
    });
    expect((await turngate(["baseline"], p.root, none)).code).toBe(0);
    p.write("turngate.config.json", '{"isolation": "in-place", "checks": ["node test.js"]}\n');
    p.write("lib.js", HONEST);
    const result = await turngate(["verify", "--json"], p.root, none);
    expect(result.code).toBe(2);
    expect(result.json.outcome.reason).toBe("isolation_unavailable");
    expect(result.json.isolation).toEqual({
      mode: "clean-room",
      requested: "clean-room",
      available: false,
      reason: "TURNGATE_BWRAP=none",
    });
  });

  test.skipIf(!sandbox.available)(
    "the mode is read from the configuration captured at the turn's start, and the proof records the mode that ran",
    async () => {
      const p = project({
        "lib.js": LIB,
        "test.js": TEST,
        "turngate.config.json": '{"isolation": "clean-room", "checks": ["node test.js"]}\n',
      });
      // The agent switches the file to in-place and plants code only an in-place check would load.
      const agent = writerAgent(p, {
        "turngate.config.json": '{"isolation": "in-place", "checks": ["node test.js"]}\n',
        ".git/x/impl.js": LIB,
        "lib.js": "module.exports = require('./.git/x/impl.js');\n",
      });
      const result = await turngate(["run", "--json", "--", "node", agent], p.root);
      expect(result.json.isolation.mode).toBe("clean-room");
      expect(result.json.verdict).toBe("incomplete");
      const honest = project({ "lib.js": LIB, "test.js": TEST });
      const ok = await turngate(
        [
          "run",
          "--json",
          "--check",
          "node test.js",
          "--",
          "node",
          writerAgent(honest, { "lib.js": HONEST }),
        ],
        honest.root,
      );
      expect(ok.json.verdict).toBe("verified");
      const proof = readProofPayload(
        join(honest.root, ".turngate", "proofs", `${ok.json.effect_digest}.json`),
      );
      expect(proof.isolation).toEqual({ mode: "clean-room", requested: "auto", available: true });
      expect(readFileSync(join(honest.root, "lib.js"), "utf8")).toBe(HONEST);
    },
  );

  test.skipIf(!sandbox.available)(
    "chained verifies keep the room: a turn trusts what the previous turn left in its room (not cloned again), and bytes planted in the room between the turns are not trusted (cloned again)",
    async () => {
      const p = project({ "lib.js": LIB, "test.js": TEST });
      const id = sha256(realpathSync(p.root)).slice(0, 16);
      const roomGit = join(process.env.TURNGATE_ROOM_DIR as string, id, "tree", ".git");
      const turn = async (lib: string) => {
        expect((await turngate(["baseline"], p.root)).code).toBe(0);
        p.write("lib.js", lib);
        const result = await turngate(["verify", "--json", "--check", "node test.js"], p.root);
        expect(result.json.verdict).toBe("verified");
        return statSync(roomGit).ino;
      };
      const first = await turn(HONEST);
      // The previous turn's own room work came after its judged snapshot (this turn's
      // baseline): it was cloned again on every turn before.
      expect(await turn(LIB)).toBe(first);
      // Written after the previous turn ended: the room's .git is dropped and cloned again.
      appendFileSync(join(roomGit, "config"), "[core]\n\tplanted = true\n");
      // (Not its inode: a .git removed and made again may get the same inode number back.)
      await turn(HONEST);
      expect(readFileSync(join(roomGit, "config"), "utf8")).not.toContain("planted");
    },
  );

  test.skipIf(!sandbox.available)(
    "a tracked folder replaced by a file, and back: the room's index follows and the turns are verified (the room's git update-index failed the turn with io_error)",
    async () => {
      const p = project({ "lib/index.js": LIB, "test.js": TEST });
      const check = "test -f lib && node -e \"require('fs').readFileSync('lib')\"";
      expect((await turngate(["baseline"], p.root)).code).toBe(0);
      rmSync(join(p.root, "lib"), { recursive: true });
      p.write("lib", "now a file\n");
      const file = await turngate(["verify", "--json", "--check", check], p.root);
      expect(file.json.verdict).toBe("verified");
      expect((await turngate(["baseline"], p.root)).code).toBe(0);
      rmSync(join(p.root, "lib"));
      p.write("lib/index.js", LIB);
      const folder = await turngate(
        ["verify", "--json", "--check", "test -f lib/index.js"],
        p.root,
      );
      expect(folder.json.verdict).toBe("verified");
    },
  );

  test.skipIf(!sandbox.available)(
    "a file another process writes while the checks pass in the room: the turn is not verified and says the checks passed on the earlier bytes, naming the file (it said the checks did not all pass)",
    async () => {
      const p = project({ "lib.js": LIB, "test.js": TEST });
      // The check waits for SIGWINCH (ignored until its handler is set). A process outside
      // the turn (the person's editor, another tool) finds the check, appends to lib.js, then
      // signals it until it ends: the write happens while the check runs, at any speed.
      const mark = `tg-wait-${sha256(p.root).slice(0, 12)}`;
      const check = `node -e "process.on('SIGWINCH', () => process.exit(0)); setInterval(() => {}, 1000)" ${mark} && node test.js`;
      const writer = spawn(
        "sh",
        [
          "-c",
          `until pgrep -f '^node -e.*${mark}' >/dev/null; do sleep 0.05; done; ` +
            "printf '// later\\n' >> lib.js; " +
            `while pkill -WINCH -f '^node -e.*${mark}'; do sleep 0.1; done`,
        ],
        { cwd: p.root, stdio: "ignore" },
      );
      cleanups.push(() => writer.kill("SIGKILL"));
      const agent = writerAgent(p, { "lib.js": HONEST });
      const result = await turngate(["run", "--check", check, "--", "node", agent], p.root);
      expect(result.code).toBe(2);
      expect(readFileSync(join(p.root, "lib.js"), "utf8")).toBe(`${HONEST}// later\n`);
      expect(result.stdout).toContain(
        "the checks passed on the bytes they were given, but the workspace changed while they ran (lib.js), so their result is for the earlier bytes. Stop whatever is still writing there and run again",
      );
      expect(result.stdout).not.toContain("did not all pass");
    },
  );
});
