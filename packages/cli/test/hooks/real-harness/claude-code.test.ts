/**
 * The real Claude Code (issue 19 item 7): `@anthropic-ai/claude-code` (pinned dev
 * dependency) runs headless (`claude -p`) with turngate's hooks installed by
 * `turngate hook install claude-code` in an isolated HOME, against the scripted fake model
 * on 127.0.0.1 (`ANTHROPIC_BASE_URL`). Scenario `fix`: the model writes a broken file, the
 * Stop hook blocks with the failing check, Claude Code hands the reason back to the model
 * (the fake server receives it), the model fixes the file and the stop is allowed
 * (verified). Scenario `stubborn`: the model never fixes it; Claude Code honours 8
 * consecutive Stop blocks and ends the turn at the 9th, reporting success — turngate
 * records that turn `incomplete` / `capped`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../../test-time.js";
import { bin } from "./binaries.js";
import { blockReasons, claudeVersion, runClaude, session } from "./claude-run.js";
import { startFakeModel } from "./fake-anthropic.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(300_000), hookTimeout: testTimeout(300_000) });

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** A workspace whose check passes when answer.js exports 42, an isolated HOME with the hooks. */
function setup(maxAttempts: number) {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "turngate-claude-")));
  const ws = join(top, "ws");
  const home = join(top, "home");
  mkdirSync(ws);
  mkdirSync(home);
  writeFileSync(
    join(ws, "check.js"),
    // A tape-like TAP check whose failure is followed by 30 lines of noise (as nyc's coverage
    // table follows tape's failures): the output's tail alone never names the test.
    [
      'const v = require("./answer.js");',
      'console.log("TAP version 13\\n# answer");',
      'if (v !== 42) console.log("not ok 1 answer is 42\\n  ---\\n    operator: equal\\n    expected: 42\\n    actual: " + v + "\\n  ...");',
      'else console.log("ok 1 answer is 42");',
      'console.log("1..1");',
      'for (let i = 0; i < 30; i++) console.log("coverage | 100 | line " + i);',
      "process.exit(v === 42 ? 0 : 1);",
      "",
    ].join("\n"),
  );
  writeFileSync(
    join(ws, "turngate.config.json"),
    `${JSON.stringify({ checks: [{ id: "unit", command: "node check.js" }], max_attempts: maxAttempts })}\n`,
  );
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
      cwd: ws,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "--no-gpg-sign", "-m", "base");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: tmpdir(),
    LANG: "C.UTF-8",
    TURNGATE_HOOK_STATE_DIR: join(top, "state"),
  };
  execFileSync(
    process.execPath,
    [bin, "hook", "install", "claude-code", "--user", "--command", `${process.execPath} ${bin}`],
    { cwd: ws, env, stdio: "ignore" },
  );
  cleanups.push(() => rmSync(top, { recursive: true, force: true }));
  return { ws, env, state: join(top, "state") };
}

describe(`real Claude Code ${claudeVersion} headless, hooks installed, fake model on 127.0.0.1`, () => {
  test("a broken file is blocked with the failing check, the reason reaches the model, the fix is verified", async () => {
    const { ws, env, state } = setup(3);
    const model = await startFakeModel(ws, "fix");
    cleanups.push(() => model.close());
    const run = await runClaude(ws, env, model);
    expect(run.code).toBe(0);
    const reasons = blockReasons(model);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain("the check `unit` failed (assertion): exit code 1, expected 0.");
    // The block text names the failing test and its assertion (issue 34), then a tail.
    expect(reasons[0]).toMatch(/\n {2}failing tests \(1 of 1; full log: \S+\.log\):\n/);
    expect(reasons[0]).toContain(
      [
        "    ✗ answer::answer is 42",
        "        operator: equal",
        "        expected: 42",
        "        actual: 43",
      ].join("\n"),
    );
    expect(reasons[0]).toContain("  | coverage | 100 | line 29");
    expect(readFileSync(join(ws, "answer.js"), "utf8")).toBe("module.exports = 42;\n");
    const s = session(state);
    expect(s.turn.last).toMatchObject({ verdict: "verified", reason: null });
    expect(s.turn.blocks).toBe(1);
  });

  test("the model never fixes it: Claude Code ends the turn at its cap and reports success; turngate records incomplete / capped", async () => {
    const { ws, env, state } = setup(20);
    const model = await startFakeModel(ws, "stubborn");
    cleanups.push(() => model.close());
    const run = await runClaude(ws, env, model);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: "success", is_error: false });
    // Claude Code handed 8 blocks back to the model and ended the turn at the 9th stop.
    expect(blockReasons(model)).toHaveLength(8);
    const s = session(state);
    expect(s.turn.blocks).toBe(9);
    expect(s.turn.last).toMatchObject({ verdict: "incomplete", reason: "capped" });
    expect(readFileSync(join(ws, "answer.js"), "utf8")).toBe("module.exports = 43;\n");
  });
});
