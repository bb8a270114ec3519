/**
 * `turngate run --confine` driving the real Claude Code (docs/guarantees.md "Confined agents"):
 * the agent runs in turngate's sandbox with its own network namespace, and reaches its model
 * (the scripted fake Anthropic API on the host's 127.0.0.1) only through turngate's egress
 * proxy (`HTTPS_PROXY`/`HTTP_PROXY`), because `agent_network.allow` lists the model's port.
 * Without that entry the proxy refuses the model (a loopback destination), Claude Code cannot
 * reach it, and the turn changes nothing. Real processes throughout: turngate, bubblewrap,
 * Claude Code, the check.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../../test-time.js";
import { sandbox } from "../../clean-room/helpers.js";
import { bin } from "./binaries.js";
import { claude, claudeArgs, claudeModelEnv, claudeVersion, runCollected } from "./claude-run.js";
import { startFakeModel } from "./fake-anthropic.js";

vi.setConfig({ testTimeout: testTimeout(300_000), hookTimeout: testTimeout(300_000) });

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/**
 * A workspace (no answer.js yet: Claude Code's Write tool would want it read first) whose check
 * passes when answer.js exports 42 and a HOME for Claude Code (the
 * confined agent may write it: `agent_writable`); `commit(config)` writes
 * turngate.config.json with `config` added and commits everything.
 */
function setup() {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "turngate-claude-run-")));
  const ws = join(top, "ws");
  const home = join(top, "home");
  mkdirSync(ws);
  mkdirSync(home);
  cleanups.push(() => rmSync(top, { recursive: true, force: true }));
  writeFileSync(
    join(ws, "check.js"),
    'const v = require("./answer.js"); if (v !== 42) { console.error("expected 42, got " + v); process.exit(1); }\n',
  );
  const commit = (config: Record<string, unknown>) => {
    writeFileSync(
      join(ws, "turngate.config.json"),
      `${JSON.stringify({ checks: ["node check.js"], agent_writable: [home], ...config })}\n`,
    );
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
        cwd: ws,
        stdio: "ignore",
      });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "--no-gpg-sign", "-m", "base");
  };
  return { ws, home, state: join(top, "state"), commit };
}

/** `turngate run --confine --isolation in-place --json -- claude -p …` against `modelUrl`. */
function runConfinedClaude(w: ReturnType<typeof setup>, modelUrl: string) {
  return runCollected(
    process.execPath,
    [bin, "run", "--confine", "--isolation", "in-place", "--json", "--", claude, ...claudeArgs()],
    w.ws,
    claudeModelEnv(
      { PATH: process.env.PATH, HOME: w.home, LANG: "C.UTF-8", XDG_STATE_HOME: w.state },
      modelUrl,
    ),
  );
}

const skipReason = sandbox.available ? "" : ` (skipped: ${sandbox.reason})`;

describe.skipIf(!sandbox.available)(
  `turngate run --confine with the real Claude Code ${claudeVersion}${skipReason}`,
  () => {
    test("the model on the host's 127.0.0.1 is reached through turngate's proxy when agent_network.allow lists it: the fix is verified, trust confined; without the entry the proxy refuses it and the turn changes nothing", async () => {
      const allowed = setup();
      const fixModel = await startFakeModel(allowed.ws, "probe");
      cleanups.push(() => fixModel.close());
      allowed.commit({ agent_network: { allow: [`127.0.0.1:${new URL(fixModel.url).port}`] } });

      const w0 = setup();
      const model = await startFakeModel(w0.ws, "probe");
      cleanups.push(() => model.close());
      const port = new URL(model.url).port;
      w0.commit({});

      const ok = await runConfinedClaude(allowed, fixModel.url);
      const json = JSON.parse(ok.stdout) as { verdict: string; trust: string };
      expect(json.verdict).toBe("verified");
      expect(json.trust).toBe("confined");
      expect(readFileSync(join(allowed.ws, "answer.js"), "utf8")).toBe("module.exports = 42;\n");
      expect(fixModel.requests.length).toBeGreaterThan(0);
      expect(ok.stderr).not.toContain("network proxy refused");

      const refused = await runConfinedClaude(w0, model.url);
      const none = JSON.parse(refused.stdout) as { verdict: string };
      expect(model.requests).toEqual([]);
      expect(none.verdict).toBe("narrative");
      expect(existsSync(join(w0.ws, "answer.js"))).toBe(false);
      expect(refused.stderr).toContain(`turngate: the confined agent's network proxy refused`);
      expect(refused.stderr).toContain(`127.0.0.1:${port} (loopback)`);
    });
  },
);
