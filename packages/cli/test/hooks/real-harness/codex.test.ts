/**
 * The real Codex CLI (issue 19 item 7): `@openai/codex` (pinned dev dependency) runs
 * `codex exec` with turngate's hooks installed by `turngate hook install codex` in an
 * isolated HOME / CODEX_HOME, against a scripted fake Responses API on 127.0.0.1 (a custom
 * `model_providers` entry). Codex runs user hooks only once their trust is persisted; a
 * headless test passes `--dangerously-bypass-hook-trust`. Scenario `fix`: the Stop hook
 * blocks the broken file, Codex hands the reason to the model as a hook prompt, the fix is
 * verified. Scenario `stubborn`: Codex has no block cap, so turngate's own loop control ends
 * it: after `max_attempts` blocks on one digest the stop is allowed as `incomplete` /
 * `escalated` (codex#37937's endless loop does not happen).
 */
import { execFileSync, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../../test-time.js";
import { workspaceStateDirs } from "../fixtures.js";
import { bin, harnessBinary } from "./binaries.js";
import { type FakeResponses, itemText, startFakeResponses } from "./fake-responses.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(300_000), hookTimeout: testTimeout(300_000) });

const { path: codex, version: codexVersion } = harnessBinary("@openai/codex", "codex");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function setup(maxAttempts: number, model: FakeResponses) {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "turngate-codex-")));
  const ws = join(top, "ws");
  const home = join(top, "home");
  const codexHome = join(home, ".codex");
  mkdirSync(ws);
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(ws, "check.js"),
    'const v = require("./answer.js");\nif (v !== 42) { console.log("expected 42, got " + v); process.exit(1); }\n',
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
  writeFileSync(
    join(codexHome, "config.toml"),
    `model = "gpt-5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${model.url}"\nwire_api = "responses"\nenv_key = "FAKE_MODEL_KEY"\n`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    CODEX_HOME: codexHome,
    TMPDIR: tmpdir(),
    LANG: "C.UTF-8",
    TURNGATE_HOOK_STATE_DIR: join(top, "state"),
  };
  execFileSync(
    process.execPath,
    [bin, "hook", "install", "codex", "--user", "--command", `${process.execPath} ${bin}`],
    { cwd: ws, env, stdio: "ignore" },
  );
  cleanups.push(() => rmSync(top, { recursive: true, force: true }));
  return { ws, env, state: join(top, "state") };
}

function runCodex(
  ws: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(
      codex,
      [
        "exec",
        "--dangerously-bypass-hook-trust",
        "--sandbox",
        "danger-full-access",
        "make answer.js export 42",
      ],
      { cwd: ws, env: { ...env, FAKE_MODEL_KEY: "not-a-key" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

function session(state: string) {
  const [workspace] = workspaceStateDirs(state);
  const [dir] = readdirSync(join(state, workspace as string));
  return JSON.parse(
    readFileSync(join(state, workspace as string, dir as string, "session.json"), "utf8"),
  );
}

describe(`real Codex CLI ${codexVersion} (codex exec), hooks installed, fake Responses API on 127.0.0.1`, () => {
  test("a broken file is blocked with the failing check, the reason reaches the model, the fix is verified", async () => {
    const model = await startFakeResponses("fix");
    cleanups.push(() => model.close());
    const { ws, env, state } = setup(3, model);
    const run = await runCodex(ws, env);
    expect(run.code).toBe(0);
    expect(run.out).toContain("hook: Stop Blocked");
    const reasons = model.requests
      .map((r) => itemText(r.input.at(-1)))
      .filter((t) => t.includes("turngate blocked the stop"));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain("the check `unit` failed (assertion): exit code 1, expected 0.");
    expect(reasons[0]).toContain("  | expected 42, got 43");
    expect(readFileSync(join(ws, "answer.js"), "utf8")).toBe("module.exports = 42;\n");
    expect(session(state).turn.last).toMatchObject({ verdict: "verified", reason: null });
  });

  test("the model never fixes it: no harness cap, so turngate escalates after max_attempts (incomplete, never verified)", async () => {
    const model = await startFakeResponses("stubborn");
    cleanups.push(() => model.close());
    const { ws, env, state } = setup(3, model);
    const run = await runCodex(ws, env);
    expect(run.code).toBe(0);
    expect(run.out.split("hook: Stop Blocked").length - 1).toBe(3);
    const s = session(state);
    expect(s.turn.blocks).toBe(3);
    expect(s.turn.last).toMatchObject({ verdict: "incomplete", reason: "escalated", attempt: 4 });
    expect(readFileSync(join(ws, "answer.js"), "utf8")).toBe("module.exports = 43;\n");
  });
});
