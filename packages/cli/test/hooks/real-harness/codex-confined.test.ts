/**
 * The real Codex CLI, confined as far as it goes (issue 32 item 2, docs/hooks.md "Confined
 * hooks"): `turngate hook install codex --user --confine` writes the hooks and
 * `sandbox_mode = "workspace-write"` into `$CODEX_HOME/config.toml`; `codex exec` (no
 * `--sandbox` flag: the config decides) runs against the scripted fake Responses API on
 * 127.0.0.1, whose model first reads turngate's signing key (Codex's sandbox lets it: it
 * reads the whole disk), then tries to plant a file in turngate's hook state folder and to
 * append to Codex's config (both refused: read-only), then writes the fix. The stop is
 * verified and records `trust: confined-writes`, saying the key was readable. The same run
 * with `--sandbox danger-full-access` records `unsandboxed` (the transcript says what Codex
 * applied). Everything lives outside /tmp: workspace-write leaves /tmp writable, and Codex
 * refuses to set up its sandbox helper under a temporary folder. Where Codex's sandbox cannot
 * start here the tests are skipped saying so; confine-config.test.ts checks the written
 * configuration.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../../test-time.js";
import { readProofPayload } from "../../helpers.js";
import { workspaceStateDirs } from "../fixtures.js";
import { bin, cliDir, harnessBinary } from "./binaries.js";
import { type FakeResponses, itemText, startFakeResponses } from "./fake-responses.js";

vi.setConfig({ testTimeout: testTimeout(300_000), hookTimeout: testTimeout(300_000) });

const { path: codex, version: codexVersion } = harnessBinary("@openai/codex", "codex");
/** Not under /tmp (see above): the CLI package's own ignored cache folder. */
const scratch = join(cliDir, "node_modules", ".cache");

/** Whether `codex sandbox` can run a command in workspace-write here, and if not, why. */
function sandboxProbe(): string {
  mkdirSync(scratch, { recursive: true });
  const top = mkdtempSync(join(scratch, "turngate-codex-probe-"));
  try {
    mkdirSync(join(top, ".codex"));
    const run = spawnSync(
      process.execPath,
      [
        codex,
        "sandbox",
        "-c",
        'sandbox_mode="workspace-write"',
        "--",
        "sh",
        "-c",
        "echo ok > probe",
      ],
      {
        cwd: top,
        env: { PATH: process.env.PATH, HOME: top, CODEX_HOME: join(top, ".codex") },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    if (run.status === 0 && existsSync(join(top, "probe"))) return "";
    return (
      (run.stderr || run.error?.message || `exit ${run.status}`).trim().split("\n").at(-1) ?? ""
    );
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
}
const unavailable = process.platform === "linux" ? sandboxProbe() : `platform ${process.platform}`;
const skipReason =
  unavailable === ""
    ? ""
    : ` — SKIPPED: Codex's sandbox cannot run here (${unavailable}); confine-config.test.ts checks the written config.toml`;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function setup(model: FakeResponses) {
  const top = realpathSync(mkdtempSync(join(scratch, "turngate-codex-confined-")));
  const ws = join(top, "ws");
  const home = join(top, "home");
  const codexHome = join(home, ".codex");
  const xdg = join(top, "xdg");
  mkdirSync(ws);
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(join(xdg, "turngate"), { recursive: true, mode: 0o700 });
  const key = join(xdg, "turngate", "signing-key.pem");
  const pair = generateKeyPairSync("ed25519");
  writeFileSync(key, pair.privateKey.export({ type: "pkcs8", format: "pem" }) as string, {
    mode: 0o600,
  });
  writeFileSync(
    join(ws, "check.js"),
    'const v = require("./answer.js");\nif (v !== 42) { console.log("expected 42, got " + v); process.exit(1); }\n',
  );
  writeFileSync(
    join(ws, "turngate.config.json"),
    `${JSON.stringify({ checks: [{ id: "unit", command: "node check.js" }] })}\n`,
  );
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
      cwd: ws,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "--no-gpg-sign", "-m", "base");
  const providers = `model = "gpt-5"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\nbase_url = "${model.url}"\nwire_api = "responses"\nenv_key = "FAKE_MODEL_KEY"\n`;
  writeFileSync(join(codexHome, "config.toml"), providers);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    CODEX_HOME: codexHome,
    LANG: "C.UTF-8",
    XDG_STATE_HOME: xdg,
    TURNGATE_HOOK_STATE_DIR: join(top, "state"),
  };
  execFileSync(
    process.execPath,
    [
      bin,
      "hook",
      "install",
      "codex",
      "--user",
      "--confine",
      "--command",
      `${process.execPath} ${bin}`,
    ],
    { cwd: ws, env, stdio: "ignore" },
  );
  // Exactly the one line --confine adds, above the person's own settings.
  expect(readFileSync(join(codexHome, "config.toml"), "utf8")).toBe(
    `sandbox_mode = "workspace-write"\n${providers}`,
  );
  cleanups.push(() => rmSync(top, { recursive: true, force: true }));
  return { ws, env, state: join(top, "state"), key, codexHome };
}

function runCodex(
  ws: string,
  env: NodeJS.ProcessEnv,
  flags: string[],
): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(
      codex,
      ["exec", "--dangerously-bypass-hook-trust", ...flags, "make answer.js export 42"],
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

/** The output of each command the model ran, in order (from the last request's input). */
const outputs = (model: FakeResponses) =>
  (model.requests.at(-1)?.input ?? [])
    .filter((i) => i.type === "function_call_output")
    .map((i) => (typeof i.output === "string" ? i.output : JSON.stringify(i.output)));

describe(`real Codex CLI ${codexVersion} (codex exec), hooks installed with --confine, fake Responses API on 127.0.0.1${skipReason}`, () => {
  test.skipIf(unavailable !== "")(
    "workspace-write from config.toml: the agent reads the key but cannot write turngate's state or Codex's config; the stop records trust confined-writes",
    async () => {
      const probes: string[] = [];
      const model = await startFakeResponses("probe", probes);
      cleanups.push(() => model.close());
      const { ws, env, state, key, codexHome } = setup(model);
      const planted = join(state, "planted.json");
      probes.push(
        `cat ${key}`,
        `echo forged > ${planted}; echo rc=$?`,
        `echo 'sandbox_mode = "danger-full-access"' >> ${join(codexHome, "config.toml")}; echo rc=$?`,
      );
      const run = await runCodex(ws, env, []);
      expect(run.code).toBe(0);
      expect(run.out).toContain("sandbox: workspace-write");
      const results = outputs(model);
      expect(results).toHaveLength(4);
      // Said plainly: Codex's sandbox reads the whole disk, the key included.
      expect(results[0]).toContain("-----BEGIN PRIVATE KEY-----");
      expect(results[1]).toContain(`${planted}: Read-only file system`);
      expect(results[1]).toContain("\nrc=1");
      expect(existsSync(planted)).toBe(false);
      expect(results[2]).toContain("Read-only file system");
      expect(readFileSync(join(codexHome, "config.toml"), "utf8")).not.toContain(
        "danger-full-access",
      );
      expect(readFileSync(join(ws, "answer.js"), "utf8")).toBe("module.exports = 42;\n");
      const s = session(state);
      expect(s.turn.confinement.level).toBe("confined-writes");
      expect(s.turn.last).toMatchObject({
        verdict: "verified",
        reason: null,
        trust: "confined-writes",
      });
      expect(s.turn.last.message.split("\n").at(-1)).toBe(
        "trust: confined-writes (the agent could not write turngate's state; Codex's sandbox lets the agent read the whole disk, turngate's signing key included: it could not write turngate's state, but could read the key and so sign a proof)",
      );
      const proof = /\nproof: (\S+)\n/.exec(s.turn.last.message)?.[1] as string;
      expect(readProofPayload(proof).trust).toBe("confined-writes");
    },
  );

  test.skipIf(unavailable !== "")(
    "workspace-write from config.toml: a broken answer is blocked with the failing check, the reason reaches the model, the fix is verified with trust confined-writes",
    async () => {
      const model = await startFakeResponses("fix");
      cleanups.push(() => model.close());
      const { ws, env, state } = setup(model);
      const run = await runCodex(ws, env, []);
      expect(run.code).toBe(0);
      expect(run.out).toContain("sandbox: workspace-write");
      expect(run.out).toContain("hook: Stop Blocked");
      const reasons = model.requests
        .map((r) => itemText(r.input.at(-1)))
        .filter((t) => t.includes("turngate blocked the stop"));
      expect(reasons).toHaveLength(1);
      expect(reasons[0]).toContain("the check `unit` failed (assertion): exit code 1, expected 0.");
      expect(reasons[0]).toContain("  | expected 42, got 43");
      expect(readFileSync(join(ws, "answer.js"), "utf8")).toBe("module.exports = 42;\n");
      const s = session(state);
      expect(s.turn.blocks).toBe(1);
      expect(s.turn.last).toMatchObject({
        verdict: "verified",
        reason: null,
        trust: "confined-writes",
      });
    },
  );

  test.skipIf(unavailable !== "")(
    "--sandbox danger-full-access at launch overrides config.toml: the stop records trust unsandboxed",
    async () => {
      const model = await startFakeResponses("probe", []);
      cleanups.push(() => model.close());
      const { ws, env, state } = setup(model);
      const run = await runCodex(ws, env, ["--sandbox", "danger-full-access"]);
      expect(run.code).toBe(0);
      const s = session(state);
      expect(s.turn.confinement.level).toBe("confined-writes");
      expect(s.turn.last).toMatchObject({ verdict: "verified", trust: "unsandboxed" });
      expect(s.turn.last.message.split("\n").at(-1)).toBe(
        "trust: unsandboxed (Codex ran this turn with sandbox \"danger-full-access\": the agent runs as your user and could read turngate's signing key or rewrite its state; `turngate hook install <harness> --confine` writes the harness's sandbox settings)",
      );
    },
  );
});
