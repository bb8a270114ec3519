/**
 * Confined agents (docs/guarantees.md "Confined agents", issue 32 items 1, 4 and 5) against what
 * judges them: `.git/` hooks, `.turngate/`, the gate's configuration and the harness settings are
 * read-only; turngate's state, signing key, user cache configuration and turngate itself are out of
 * sight; `TURNGATE_*` variables are scrubbed; the process tree dies with the turn; the proof,
 * `--json`, the text and `show` record `trust: confined` only when the sandbox ran, and a confined
 * turn that cannot start its sandbox fails closed. Real temporary git repositories, real agent and
 * check processes, `--isolation in-place`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { CONFINED_AGENT_FAILED_HINT } from "../../src/confine-agent.js";
import { turngate } from "../clean-room/helpers.js";
import { readProofPayload } from "../helpers.js";
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

const CLI_BIN = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
const CONFINED_LINE =
  "trust: confined (turngate ran the agent in its sandbox: it could not write .git/, .turngate/ or the gate's configuration, nor see turngate's state or signing key)";

/** The JSON fields of `turngate.turn_result.v1` these tests read beyond `TurnJson`. */
interface More {
  trust: string;
  proof_path: string | null;
  checks: { id: string; status: string; cached?: string }[];
  cache?: { warnings: string[] };
}
const more = (json: unknown) => json as More;

/** An agent (node) that writes `lib.js` = `lib`, then runs `body` with `fs`, `path`, `cp`. */
function agent(w: World, lib: string, body: string, name = "agent.js"): string {
  return w.p.agent(
    name,
    `const fs = require("node:fs"); const path = require("node:path"); const cp = require("node:child_process");
fs.writeFileSync("lib.js", ${JSON.stringify(lib)});
const tried = {};
const attempt = (label, fn) => { try { tried[label] = fn() ?? "done"; } catch (error) { tried[label] = "refused: " + (error.code ?? error.message); } };
${body}
fs.writeFileSync("probe.json", JSON.stringify(tried));
`,
  );
}

const CONFIG_FILES = {
  "lib.js": LIB,
  "test.js": TEST,
  ".claude/settings.local.json": '{"hooks":{}}\n',
};

describe.skipIf(!sandbox.available)(
  `a confined agent cannot reach what judges it${SKIP_REASON}`,
  () => {
    test("writes to .git/hooks, .turngate/, turngate.config.json and the harness settings are refused; the honest change is verified", async () => {
      const body = `
attempt("hook", () => fs.writeFileSync(".git/hooks/pre-commit", "#!/bin/sh\\nexit 0\\n"));
attempt("state", () => { fs.mkdirSync(".turngate", { recursive: true }); fs.writeFileSync(".turngate/turn-chain.json", "{}"); });
attempt("config", () => fs.writeFileSync("turngate.config.json", '{"checks":["true"]}'));
attempt("settings", () => fs.writeFileSync(".claude/settings.local.json", '{"hooks":{"Stop":[]}}'));
`;
      const files = { ...CONFIG_FILES, "turngate.config.json": '{"checks":["node test.js"]}\n' };
      const confined = world(files);
      const ok = await turngate(
        [
          "run",
          "--json",
          "--isolation",
          "in-place",
          "--confine",
          "--",
          "node",
          agent(confined, HONEST, body),
        ],
        confined.p.root,
        { ...confined.env },
      );
      expect(JSON.parse(readFileSync(join(confined.p.root, "probe.json"), "utf8"))).toEqual({
        hook: "refused: EROFS",
        state: "refused: EROFS",
        config: "refused: EROFS",
        settings: "refused: EROFS",
      });
      expect(existsSync(join(confined.p.root, ".git/hooks/pre-commit"))).toBe(false);
      expect(readFileSync(join(confined.p.root, "turngate.config.json"), "utf8")).toBe(
        files["turngate.config.json"],
      );
      expect(ok.json.verdict).toBe("verified");
      expect(more(ok.json).trust).toBe("confined");

      const open = world(files);
      const cheated = await turngate(
        ["run", "--json", "--isolation", "in-place", "--", "node", agent(open, HONEST, body)],
        open.p.root,
        { ...open.env },
      );
      expect(JSON.parse(readFileSync(join(open.p.root, "probe.json"), "utf8"))).toEqual({
        hook: "done",
        state: "done",
        config: "done",
        settings: "done",
      });
      expect(existsSync(join(open.p.root, ".git/hooks/pre-commit"))).toBe(true);
      expect(more(cheated.json).trust).toBe("unsandboxed");
    });

    test("the signing key, the state folder, the user cache config and turngate itself are out of sight; TURNGATE_* variables are scrubbed", async () => {
      const keyFile = join(process.env.XDG_STATE_HOME as string, "turngate", "signing-key.pem");
      const body = `
attempt("key", () => fs.readFileSync(${JSON.stringify(keyFile)}, "utf8").slice(0, 27));
attempt("state", () => fs.readdirSync(path.dirname(${JSON.stringify(keyFile)})).join(","));
attempt("cacheConfig", () => fs.writeFileSync(path.join(process.env.HOME, ".config", "turngate", "cache.json"), '{"trust_own_key":true}'));
attempt("turngate", () => cp.execFileSync(process.execPath, [${JSON.stringify(CLI_BIN)}, "--version"], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim().length > 0 ? "ran" : "no output");
attempt("env", () => Object.keys(process.env).filter((n) => n.startsWith("TURNGATE_")).sort().join(","));
attempt("tmp", () => { fs.writeFileSync(path.join(process.env.TMPDIR, "scratch"), "x"); return process.env.TMPDIR.startsWith("/tmp/turngate-agent-tmp-") ? "private" : process.env.TMPDIR; });
`;
      const host = { TURNGATE_CACHE_WRITE: "1", TURNGATE_ALLOW_FRESH: "1" };
      const confined = world();
      mkdirSync(join(confined.home, ".config", "turngate"));
      const ok = await turn(confined, agent(confined, HONEST, body), "node test.js", {
        confine: true,
        env: { ...host },
      });
      expect(ok.json.verdict).toBe("verified");
      expect(JSON.parse(readFileSync(join(confined.p.root, "probe.json"), "utf8"))).toEqual({
        key: "refused: ENOENT",
        state: "",
        cacheConfig: "refused: EROFS",
        turngate: "refused: Command failed: " + `${process.execPath} ${CLI_BIN} --version`,
        env: "TURNGATE_TURN",
        tmp: "private",
      });
      expect(existsSync(join(confined.home, ".config", "turngate", "cache.json"))).toBe(false);

      const open = world();
      mkdirSync(join(open.home, ".config", "turngate"));
      await turn(open, agent(open, HONEST, body), "node test.js", {
        confine: false,
        env: { ...host },
      });
      const seen = JSON.parse(readFileSync(join(open.p.root, "probe.json"), "utf8"));
      expect(seen.key).toBe("-----BEGIN PRIVATE KEY-----");
      expect(seen.state).toContain("signing-key.pem");
      expect(seen.cacheConfig).toBe("done");
      expect(seen.turngate).toBe("ran");
      expect(seen.env.split(",")).toContain("TURNGATE_CACHE_WRITE");
    });

    test(
      "the user cache config's trust_own_key: refused with a warning unconfined (the agent could write it), honoured confined (a later turn back on verified bytes is a local hit)",
      async () => {
        const files = { ...CONFIG_FILES, "turngate.config.json": '{"cache":{"read":true}}\n' };
        const threeTurns = async (confine: boolean) => {
          const w = world(files);
          mkdirSync(join(w.home, ".config", "turngate"), { recursive: true });
          writeFileSync(
            join(w.home, ".config", "turngate", "cache.json"),
            '{"trust_own_key":true}\n',
          );
          const run = (source: string, name: string) =>
            turn(w, w.p.agent(name, source), "node test.js", { confine });
          const fix = await run(
            `require("node:fs").writeFileSync("lib.js", ${JSON.stringify(HONEST)});`,
            "fix.js",
          );
          const add = await run(
            `require("node:fs").writeFileSync("notes.txt", "two\\n");`,
            "add.js",
          );
          const back = await run(`require("node:fs").rmSync("notes.txt");`, "back.js");
          return { fix, add, back, w };
        };
        const confined = await threeTurns(true);
        expect(confined.fix.json.verdict).toBe("verified");
        expect(more(confined.add.json).checks.map((c) => c.cached)).toEqual(["none"]);
        expect(confined.back.json.verdict).toBe("verified");
        expect(more(confined.back.json).checks.map((c) => c.cached)).toEqual(["local"]);
        expect(more(confined.back.json).cache?.warnings).toEqual([]);

        const open = await threeTurns(false);
        expect(open.back.json.verdict).toBe("verified");
        expect(more(open.back.json).checks.map((c) => c.cached)).toEqual(["none"]);
        expect(more(open.back.json).cache?.warnings).toEqual([
          `cache: ${join(open.w.home, ".config", "turngate", "cache.json")} trust_own_key: refused: the agent runs as your user and could have written this file (run the agent with --confine, make the file read-only to that user, or give keys in TURNGATE_CACHE_TRUSTED_KEYS)`,
          expect.stringMatching(
            /^cache: local entry for check:1 rejected \(unknown_key: signed by an untrusted key \(keyid [0-9a-f]{12}\)\); the check runs$/,
          ),
        ]);
      },
      testTimeout(90_000),
    );

    test(
      "the round-3 cache forgery (the agent turns trust_own_key on and seeds a pass with a nested turngate run whose node is a fake): verified on the code before issue 32, refused unconfined now (item 5) and confined (turngate cannot run, the config cannot be written)",
      async () => {
        const files = { ...CONFIG_FILES, "turngate.config.json": '{"cache":{"read":true}}\n' };
        const body = `
const cfg = path.join(process.env.HOME, ".config", "turngate", "cache.json");
attempt("cacheConfig", () => fs.writeFileSync(cfg, '{"trust_own_key":true}'));
const fake = path.join(require("node:os").tmpdir(), "fakebin-" + process.pid);
attempt("nested", () => {
  fs.mkdirSync(fake, { recursive: true });
  fs.writeFileSync(path.join(fake, "node"), "#!/bin/sh\\nexit 0\\n", { mode: 0o755 });
  cp.execFileSync(process.execPath, [${JSON.stringify(CLI_BIN)}, "run", "--isolation", "in-place", "--check", "node test.js", "--", "sh", "-c", "echo 'module.exports = () => 3;' > lib.js"], { env: { ...process.env, PATH: fake + ":" + process.env.PATH }, stdio: "ignore" });
  return "ran";
});
`;
        const attack = async (confine: boolean) => {
          const w = world(files);
          mkdirSync(join(w.home, ".config", "turngate"));
          // The agent leaves lib.js as it was; its nested run breaks it (lib.js = () => 3).
          const result = await turn(w, agent(w, LIB, body), "node test.js", { confine });
          return {
            w,
            result,
            probe: JSON.parse(readFileSync(join(w.p.root, "probe.json"), "utf8")),
          };
        };
        const confined = await attack(true);
        expect(confined.probe.cacheConfig).toBe("refused: EROFS");
        expect(confined.probe.nested).toMatch(/^refused: Command failed/);
        expect(readFileSync(join(confined.w.p.root, "lib.js"), "utf8")).toBe(LIB);
        expect(confined.result.json.verdict).toBe("verified");

        const open = await attack(false);
        expect(open.probe).toEqual({ cacheConfig: "done", nested: "ran" });
        expect(readFileSync(join(open.w.p.root, "lib.js"), "utf8")).toBe(BROKEN);
        expect(open.result.code).toBe(2);
        expect(open.result.json.verdict).toBe("incomplete");
        expect(more(open.result.json).checks.map((c) => [c.status, c.cached])).toEqual([
          ["failed", "none"],
        ]);
        expect(more(open.result.json).cache?.warnings[0]).toBe(
          `cache: ${join(open.w.home, ".config", "turngate", "cache.json")} trust_own_key: refused: the agent runs as your user and could have written this file (run the agent with --confine, make the file read-only to that user, or give keys in TURNGATE_CACHE_TRUSTED_KEYS)`,
        );
      },
      testTimeout(90_000),
    );

    test('"agent_writable": [".git"] lets a confined agent commit; .git/hooks stays read-only', async () => {
      const body = `
attempt("commit", () => { cp.execFileSync("git", ["-c", "user.name=a", "-c", "user.email=a@example.invalid", "commit", "-q", "--no-gpg-sign", "-am", "fix"], { stdio: "ignore" }); return "committed"; });
attempt("hook", () => fs.writeFileSync(".git/hooks/pre-commit", "#!/bin/sh\\nexit 0\\n"));
`;
      const commits = (w: World) =>
        execFileSync("git", ["rev-list", "--count", "HEAD"], { cwd: w.p.root }).toString().trim();
      const allowed = world({
        ...CONFIG_FILES,
        "turngate.config.json": '{"agent_writable":[".git"]}\n',
      });
      await turn(allowed, agent(allowed, HONEST, body), "node test.js", {
        confine: true,
      });
      expect(JSON.parse(readFileSync(join(allowed.p.root, "probe.json"), "utf8"))).toEqual({
        commit: "committed",
        hook: "refused: EROFS",
      });
      expect(commits(allowed)).toBe("2");

      const readOnly = world(CONFIG_FILES);
      await turn(readOnly, agent(readOnly, HONEST, body), "node test.js", {
        confine: true,
      });
      expect(JSON.parse(readFileSync(join(readOnly.p.root, "probe.json"), "utf8")).commit).toMatch(
        /^refused: Command failed/,
      );
      expect(commits(readOnly)).toBe("1");
    });

    test("the network stays on (confined: through turngate's proxy, to a model server agent_network.allow lists); everything else the user can read is readable and read-only, /tmp included", async () => {
      const server = createServer((_req, res) => res.end("model says hi"));
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const port = (server.address() as AddressInfo).port;
      const url = `http://127.0.0.1:${port}/`;
      // A client that honours HTTP_PROXY, as the harnesses do (Node 20's fetch does not).
      const client = `const http = require("node:http"); const u = new URL(${JSON.stringify(url)}); const p = process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : undefined;
http.get(p ? { host: p.hostname, port: p.port, path: u.href, headers: { host: u.host } } : { host: u.hostname, port: u.port, path: "/" }, (r) => r.pipe(process.stdout));`;
      try {
        const probe = async (confine: boolean) => {
          const w = world({
            "lib.js": LIB,
            "test.js": TEST,
            "turngate.config.json": JSON.stringify({
              agent_network: { allow: [`127.0.0.1:${port}`] },
            }),
          });
          writeFileSync(join(w.home, "notes.txt"), "home notes\n");
          const outside = join(w.tools, "shared.txt");
          writeFileSync(outside, "tools notes\n");
          const body = `
attempt("network", () => cp.execFileSync(process.execPath, ["-e", ${JSON.stringify(client)}]).toString());
attempt("readHome", () => fs.readFileSync(path.join(process.env.HOME, "notes.txt"), "utf8"));
attempt("writeHome", () => fs.writeFileSync(path.join(process.env.HOME, "notes.txt"), "planted"));
attempt("readOutside", () => fs.readFileSync(${JSON.stringify(outside)}, "utf8"));
attempt("writeOutside", () => fs.writeFileSync(${JSON.stringify(outside)}, "planted"));
attempt("writeTmp", () => fs.writeFileSync(${JSON.stringify(join(w.tools, "..", `turngate-confine-probe-${process.pid}-${confine}`))}, "x"));
`;
          const result = await turn(w, agent(w, HONEST, body), "node test.js", { confine });
          return {
            w,
            result,
            seen: JSON.parse(readFileSync(join(w.p.root, "probe.json"), "utf8")),
          };
        };
        const confined = await probe(true);
        expect(confined.seen).toEqual({
          network: "model says hi",
          readHome: "home notes\n",
          writeHome: "refused: EROFS",
          readOutside: "tools notes\n",
          writeOutside: "refused: EROFS",
          writeTmp: "refused: EROFS",
        });
        expect(readFileSync(join(confined.w.home, "notes.txt"), "utf8")).toBe("home notes\n");
        expect(confined.result.json.verdict).toBe("verified");
        expect(more(confined.result.json).trust).toBe("confined");

        const open = await probe(false);
        expect(open.seen).toEqual({
          network: "model says hi",
          readHome: "home notes\n",
          writeHome: "done",
          readOutside: "tools notes\n",
          writeOutside: "done",
          writeTmp: "done",
        });
        rmSync(join(open.w.tools, "..", `turngate-confine-probe-${process.pid}-false`), {
          force: true,
        });
      } finally {
        server.close();
      }
    });

    test("a confined agent that exits non-zero (a tool's cache in the read-only home) is followed by a line saying what it may write and how to give a tool a cache; unconfined, no such line", async () => {
      const failing = (w: World) =>
        w.p.agent(
          "agent.js",
          `const fs = require("node:fs"); const path = require("node:path");
try { fs.mkdirSync(path.join(process.env.HOME, ".npm", "_cacache"), { recursive: true }); } catch (error) { console.error("npm error " + error.code); process.exit(1); }
`,
        );
      const confinedWorld = world();
      const confined = await turn(confinedWorld, failing(confinedWorld), "node test.js", {
        confine: true,
      });
      expect(confined.stderr).toContain(
        `turngate: agent exited with code 1\n${CONFINED_AGENT_FAILED_HINT}`,
      );
      const open = world();
      const unconfined = await turn(open, failing(open), "node test.js", { confine: false });
      expect(unconfined.stderr).not.toContain("the agent ran confined");
    });

    test("what the agent left running dies with it: a setsid'd background writer never writes", async () => {
      const w = world();
      const body = `
cp.spawn("setsid", ["sh", "-c", "sleep 1; echo late > " + JSON.stringify(path.join(process.cwd(), "late.txt"))], { detached: true, stdio: "ignore" }).unref();
`;
      const result = await turn(w, agent(w, HONEST, body), "node test.js", {
        confine: true,
      });
      expect(result.json.verdict).toBe("verified");
      await new Promise((r) => setTimeout(r, 2000));
      expect(existsSync(join(w.p.root, "late.txt"))).toBe(false);
    });

    test('trust: confined is recorded in --json, the text, the signed proof and show; "confine_agent": true in the config confines as --confine does', async () => {
      const w = world({ ...CONFIG_FILES, "turngate.config.json": '{"confine_agent":true}\n' });
      const json = await turngate(
        [
          "run",
          "--json",
          "--isolation",
          "in-place",
          "--check",
          "node test.js",
          "--",
          "node",
          agent(w, HONEST, ""),
        ],
        w.p.root,
        { ...w.env },
      );
      expect(more(json.json).trust).toBe("confined");
      const proofPath = more(json.json).proof_path as string;
      expect(readProofPayload(proofPath).trust).toBe("confined");
      const shown = await turngate(["show", "--json"], w.p.root, w.env);
      expect(JSON.parse(shown.stdout).trust).toBe("confined");

      const text = world();
      const printed = await turngate(
        [
          "run",
          "--isolation",
          "in-place",
          "--confine",
          "--check",
          "node test.js",
          "--",
          "node",
          agent(text, HONEST, ""),
        ],
        text.p.root,
        { ...text.env },
      );
      expect(printed.stdout.trimEnd().split("\n").at(-1)).toBe(CONFINED_LINE);
    });
  },
);

describe("a confined turn fails closed", () => {
  test("--confine where bubblewrap cannot start: an error naming the fix, exit 1, and the agent never runs", async () => {
    const w = world();
    const marker = join(w.tools, "ran.txt");
    const result = await turngate(
      [
        "run",
        "--isolation",
        "in-place",
        "--confine",
        "--check",
        "node test.js",
        "--",
        "node",
        w.p.agent("a.js", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");`),
      ],
      w.p.root,
      { ...w.env, TURNGATE_BWRAP: "none" },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `turngate: error: --confine (or "confine_agent": true) needs bubblewrap, which cannot start a sandbox here: TURNGATE_BWRAP=none. turngate does not run a confined turn unconfined: fix the sandbox, or drop --confine / "confine_agent" (then the agent runs as your user and can forge a waiver or a prompt event) [confine_unavailable]\n`,
    );
    expect(existsSync(marker)).toBe(false);
  });

  /** `turngate run --confine` in a world whose configuration is `config` (one JSON line). */
  const runWithConfig = (config: string) => {
    const w = world({ ...CONFIG_FILES, "turngate.config.json": `${config}\n` });
    return turngate(["run", "--confine", "--check", "node test.js", "--", "true"], w.p.root, w.env);
  };

  test("an agent_writable entry inside the workspace other than .git is refused, naming the field", async () => {
    const result = await runWithConfig('{"agent_writable":[".turngate"]}');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("agent_writable.0");
    expect(result.stderr).toContain(
      '".turngate" cannot be made writable: inside the workspace only ".git" may be listed',
    );
  });

  test("an agent_network that is not proxy, host or {allow: [host:port]} is refused, naming the field and the forms", async () => {
    const result = await runWithConfig('{"agent_network":{"allow":["http://127.0.0.1:11434"]}}');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("agent_network.allow.0");
    expect(result.stderr).toContain(
      '"http://127.0.0.1:11434" is not a host:port destination (write 127.0.0.1:11434, localhost:8080 or [::1]:8080: no scheme, path or spaces; the port from 1 to 65535)',
    );
    const bad = await runWithConfig('{"agent_network":"none"}');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("agent_network");
    expect(bad.stderr).toContain('must be "proxy" (the default');
  });
});
