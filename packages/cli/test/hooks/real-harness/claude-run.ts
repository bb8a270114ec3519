/**
 * Running the real Claude Code headless against the fake model (issue 19 item 7, issue 32
 * item 2; docs/hooks.md "Confirmed from the documentation, and not"), and reading what the
 * run left: the hook session file and what the model was sent. Shared by the real-harness
 * Claude Code test files.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workspaceStateDirs } from "../fixtures.js";
import { bin, harnessBinary } from "./binaries.js";
import { contentText, type FakeModel } from "./fake-anthropic.js";

/** The pinned Claude Code executable and its version (for the test titles). */
export const { path: claude, version: claudeVersion } = harnessBinary(
  "@anthropic-ai/claude-code",
  "claude",
);

const missing = ["bwrap", "socat"].filter(
  (tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0,
);

/**
 * Whether Claude Code's sandbox can run here (its Linux backend needs bubblewrap and socat;
 * other platforms are not tested), and if not, why (for a skipped describe's title).
 */
export const claudeSandbox: { runnable: boolean; why: string } = {
  runnable: process.platform === "linux" && missing.length === 0,
  why: `Claude Code's sandbox cannot run here (${process.platform !== "linux" ? `platform ${process.platform}` : `${missing.join(" and ")} not installed`})`,
};

/**
 * Set a test world up for Claude Code's hooks: the person's own choice in
 * `$HOME/.claude/settings.json` (`env.HOME`), `sandbox.autoAllowBashIfSandboxed` (headless
 * `-p` cannot answer a prompt), then `turngate hook install claude-code [--confine]` in `ws`
 * with `env`, the hook command being this Node and the built CLI (docs/hooks.md "Confined
 * hooks"). Throws when the install exits non-zero.
 */
export function installClaudeHooks(ws: string, env: NodeJS.ProcessEnv, confine: boolean): void {
  const dir = join(env.HOME as string, ".claude");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "settings.json"),
    `${JSON.stringify({ sandbox: { autoAllowBashIfSandboxed: true } })}\n`,
  );
  execFileSync(
    process.execPath,
    [
      bin,
      "hook",
      "install",
      "claude-code",
      ...(confine ? ["--confine"] : []),
      "--command",
      `${process.execPath} ${bin}`,
    ],
    { cwd: ws, env, stdio: "ignore" },
  );
}

/** What a `claude -p` run ended with: its exit code (null when killed) and output. */
export interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The launch flags of a headless `claude -p "make answer.js export 42"` run (mode: `--permission-mode`). */
export function claudeArgs(mode = "acceptEdits", extra: string[] = []): string[] {
  return [
    "-p",
    "make answer.js export 42",
    "--permission-mode",
    mode,
    "--output-format",
    "json",
    "--model",
    "claude-sonnet-4-5",
    ...extra,
  ];
}

/**
 * `env` plus what points Claude Code at the fake model at `url`: a placeholder API key,
 * telemetry and updates off, and `IS_SANDBOX=1` (`bypassPermissions` refuses to start as
 * root outside a declared sandbox).
 */
export function claudeModelEnv(env: NodeJS.ProcessEnv, url: string): NodeJS.ProcessEnv {
  return {
    ...env,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "sk-ant-test-not-a-key",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    IS_SANDBOX: "1",
  };
}

/**
 * Run `program args` in `cwd` with `env` to the end (async: the fake model serves from this
 * process), collecting stdout and stderr as UTF-8. Killed (SIGKILL) after 240 s. Rejects
 * when the program cannot be started.
 */
export function runCollected(
  program: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<ClaudeRun> {
  return new Promise((done, fail) => {
    const child = spawn(program, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/**
 * Run `claude -p "make answer.js export 42"` in `ws` to the end (`runCollected`) with `env`
 * plus the fake model (`claudeModelEnv`). `mode` is the `--permission-mode`; `extra` are more
 * launch flags (`--settings …`).
 */
export function runClaude(
  ws: string,
  env: NodeJS.ProcessEnv,
  model: FakeModel,
  mode = "acceptEdits",
  extra: string[] = [],
): Promise<ClaudeRun> {
  return runCollected(claude, claudeArgs(mode, extra), ws, claudeModelEnv(env, model.url));
}

/**
 * The hook session file (`session.json`, docs/hooks.md "Status and waivers") of the one
 * session under the hook state folder `state`, parsed. Throws when there is none.
 */
export function session(state: string) {
  return JSON.parse(readFileSync(join(sessionDir(state), "session.json"), "utf8"));
}

/**
 * The folder of the one hook session under the hook state folder `state`
 * (`<state>/<workspace>/<harness>-<session>/`: session.json, hook.log, logs/, proofs/).
 */
export function sessionDir(state: string): string {
  const [workspace] = workspaceStateDirs(state);
  const [dir] = readdirSync(join(state, workspace as string));
  return join(state, workspace as string, dir as string);
}

/** The last message of every request the model received, as text, in order. */
const lastMessages = (model: FakeModel) =>
  model.requests.map((r) => contentText(r.messages?.at(-1)?.content));

/** The text of every tool result the model received, in order. */
export const toolResults = (model: FakeModel) =>
  lastMessages(model).filter((t) => t.startsWith("[tool_result]"));

/** Every last message that carried turngate's block reason, in order. */
export const blockReasons = (model: FakeModel) =>
  lastMessages(model).filter((t) => t.includes("turngate blocked the stop"));
