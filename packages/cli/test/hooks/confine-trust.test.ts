/**
 * The trust a confined hook records (issue 32 item 2, docs/hooks.md "Confined hooks"): from
 * the harness's configuration files (turn-start snapshot and now), from Claude Code's
 * payload `permission_mode` (bypassPermissions is never confined) and from Codex's own
 * transcript of the turn (the sandbox it applied) — never more than all of them support.
 * The judges are pure; the last tests drive the built hook binary end to end.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { judgeClaudeMode, judgeClaudeSettings } from "../../src/hooks/confine-claude.js";
import {
  CODEX_READS_KEY,
  judgeCodexConfig,
  judgeCodexTranscript,
} from "../../src/hooks/confine-codex.js";
import { configTrust } from "../../src/hooks/confine-trust.js";
import { planInstall } from "../../src/hooks/install.js";
import { gitProject, readProofPayload } from "../helpers.js";
import { workspaceStateDirs } from "./fixtures.js";

vi.setConfig({ testTimeout: testTimeout(120_000), hookTimeout: testTimeout(120_000) });

const bin = join(dirname(fileURLToPath(import.meta.url)), "../../dist/bin.js");
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const root = "/w/proj";
const env = { HOME: "/h" };
const paths = { dirs: ["/h/.local/state/turngate"], files: [] };
const files = [
  "/h/.claude/settings.json",
  "/w/proj/.claude/settings.json",
  "/w/proj/.claude/settings.local.json",
];

/** The project-level settings.local.json `--confine` writes, as an object to vary. */
async function written(): Promise<Record<string, any>> {
  const plan = await planInstall("claude-code", "project", root, "tg", env, { confine: true });
  return JSON.parse(plan.files[0]?.after as string);
}

const judge = (local: unknown, user: unknown = null) =>
  judgeClaudeSettings(
    [
      { path: files[0] as string, text: user === null ? null : JSON.stringify(user) },
      { path: files[1] as string, text: null },
      { path: files[2] as string, text: JSON.stringify(local) },
    ],
    paths,
    env,
  );

describe("Claude Code: settings and permission_mode", () => {
  test("the settings --confine writes are confined; each gap is named", async () => {
    expect(judge(await written())).toEqual({ level: "confined", why: "" });
    const gap = async (edit: (d: Record<string, any>) => void, user: unknown = null) => {
      const doc = await written();
      edit(doc);
      return judge(doc, user);
    };
    expect(await gap((d) => delete d.sandbox)).toEqual({
      level: "unsandboxed",
      why: "Claude Code's sandbox is not enabled (sandbox.enabled)",
    });
    expect(await gap(() => {}, { sandbox: { enabled: false } })).toEqual({
      level: "unsandboxed",
      why: "Claude Code's sandbox is not enabled (sandbox.enabled)",
    });
    expect(await gap((d) => delete d.sandbox.failIfUnavailable)).toEqual({
      level: "unsandboxed",
      why: "Claude Code may run commands unsandboxed when its sandbox cannot start (sandbox.failIfUnavailable)",
    });
    expect(await gap((d) => (d.sandbox.allowUnsandboxedCommands = true))).toEqual({
      level: "unsandboxed",
      why: "commands may leave Claude Code's sandbox (sandbox.allowUnsandboxedCommands is not false)",
    });
    expect(await gap(() => {}, { sandbox: { excludedCommands: ["docker *"] } })).toEqual({
      level: "unsandboxed",
      why: "sandbox.excludedCommands runs some commands outside Claude Code's sandbox",
    });
    expect(await gap((d) => (d.sandbox.enableWeakerNestedSandbox = true))).toEqual({
      level: "unsandboxed",
      why: "sandbox.enableWeakerNestedSandbox weakens Claude Code's sandbox",
    });
    expect(await gap((d) => (d.sandbox.filesystem.denyRead = []))).toEqual({
      level: "unsandboxed",
      why: "sandbox.filesystem.denyRead does not cover /h/.local/state/turngate",
    });
    expect(
      await gap((d) => {
        d.permissions.deny = d.permissions.deny.filter((r: string) => !r.startsWith("Read("));
      }),
    ).toEqual({
      level: "unsandboxed",
      why: "permissions.deny has no Read(//…) rule covering /h/.local/state/turngate",
    });
    expect(
      await gap((d) => {
        d.permissions.deny = d.permissions.deny.filter((r: string) => !r.includes("/h/.claude"));
      }),
    ).toEqual({
      level: "unsandboxed",
      why: "permissions.deny does not deny Edit of /h/.claude/settings.json",
    });
    // Settings that open the sandbox again (a security review's findings): allowRead wins over
    // denyRead, a Unix socket leads out, CLAUDE_CONFIG_DIR moves the user settings.
    expect(
      await gap(() => {}, {
        sandbox: { filesystem: { allowRead: ["/h/.local/state/turngate"] } },
      }),
    ).toEqual({
      level: "unsandboxed",
      why: "sandbox.filesystem.allowRead /h/.local/state/turngate re-opens /h/.local/state/turngate",
    });
    expect(
      await gap((d) => (d.sandbox.filesystem.allowRead = ["/h/.local/state/turngate/hooks"])),
    ).toEqual({
      level: "unsandboxed",
      why: "sandbox.filesystem.allowRead /h/.local/state/turngate/hooks re-opens /h/.local/state/turngate",
    });
    expect(await gap((d) => (d.sandbox.filesystem.allowRead = ["/w/proj/docs"]))).toEqual({
      level: "confined",
      why: "",
    });
    const socket = {
      level: "unsandboxed",
      why: "sandbox allows Unix sockets (allowUnixSockets / allowAllUnixSockets): a command could reach a process outside the sandbox",
    };
    expect(await gap(() => {}, { sandbox: { allowAllUnixSockets: true } })).toEqual(socket);
    expect(
      await gap((d) => (d.sandbox.network = { allowUnixSockets: ["/run/docker.sock"] })),
    ).toEqual(socket);
    expect(
      judgeClaudeSettings(
        [
          { path: files[0] as string, text: null },
          { path: files[2] as string, text: JSON.stringify(await written()) },
        ],
        paths,
        { ...env, CLAUDE_CONFIG_DIR: "/h/other-claude" },
      ),
    ).toEqual({
      level: "unsandboxed",
      why: "CLAUDE_CONFIG_DIR (/h/other-claude) moves Claude Code's user settings where --confine did not write or protect them",
    });
    // A broader rule covers: the whole home folder denied.
    expect(
      await gap((d) => {
        d.sandbox.filesystem.denyRead = ["~"];
      }),
    ).toEqual({ level: "confined", why: "" });
    expect(
      judgeClaudeSettings([{ path: files[0] as string, text: "{ not json" }], paths, env),
    ).toEqual({
      level: "unsandboxed",
      why: "/h/.claude/settings.json cannot be read as a JSON object",
    });
  });

  test("a program word a hook computes when it runs ($RUNNER) cannot be kept from the agent: never confined, naming it", async () => {
    const local = await written();
    const judged = (unresolved: string[]) =>
      judgeClaudeSettings(
        [
          { path: files[0] as string, text: null },
          { path: files[1] as string, text: null },
          { path: files[2] as string, text: JSON.stringify(local) },
        ],
        paths,
        env,
        undefined,
        [],
        unresolved,
      );
    expect(judged([])).toEqual({ level: "confined", why: "" });
    expect(judged(["/w/proj/.claude/settings.json: $RUNNER"])).toEqual({
      level: "unsandboxed",
      why: "/w/proj/.claude/settings.json: $RUNNER computes the program a hook or MCP server runs outside Claude Code's sandbox, so turngate cannot tell which file that is or keep the agent from rewriting it",
    });
  });

  test("permission_mode: bypassPermissions and a missing mode are never confined", () => {
    for (const mode of ["default", "acceptEdits", "plan", "dontAsk", "auto"]) {
      expect(judgeClaudeMode(mode)).toEqual({ level: "confined", why: "" });
    }
    expect(judgeClaudeMode("bypassPermissions")).toEqual({
      level: "unsandboxed",
      why: "Claude Code runs with permission_mode bypassPermissions",
    });
    expect(judgeClaudeMode(undefined)).toEqual({
      level: "unsandboxed",
      why: "the payload names no permission_mode",
    });
  });
});

describe("Codex: config.toml and the transcript's turn context", () => {
  const cfg = (text: string | null, project: string | null = null, e: NodeJS.ProcessEnv = env) =>
    judgeCodexConfig(
      [
        { path: "/h/.codex/config.toml", text },
        { path: "/w/proj/.codex/config.toml", text: project },
      ],
      paths,
      ["/h/.codex/config.toml"],
      e,
    );

  test("workspace-write is confined-writes (never confined: the key stays readable); gaps are named", () => {
    expect(cfg('sandbox_mode = "workspace-write"\n')).toEqual({
      level: "confined-writes",
      why: CODEX_READS_KEY,
    });
    expect(cfg(null)).toEqual({
      level: "unsandboxed",
      why: "no Codex config.toml sets sandbox_mode",
    });
    expect(
      cfg('sandbox_mode = "workspace-write"\n', 'sandbox_mode = "danger-full-access"\n'),
    ).toEqual({
      level: "unsandboxed",
      why: 'a Codex config.toml sets sandbox_mode = "danger-full-access"',
    });
    expect(
      cfg(
        'sandbox_mode = "workspace-write"\n[profiles.yolo]\nsandbox_mode = "danger-full-access"\n',
      ),
    ).toEqual({
      level: "unsandboxed",
      why: 'a Codex config.toml sets sandbox_mode = "danger-full-access"',
    });
    expect(
      cfg('sandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nwritable_roots = ["/h"]\n'),
    ).toEqual({
      level: "unsandboxed",
      why: "writable_roots entry /h lets the agent write /h/.local/state/turngate",
    });
    expect(
      judgeCodexConfig(
        [{ path: "/h/.codex/config.toml", text: 'sandbox_mode = "workspace-write"\n' }],
        { dirs: ["/tmp/tg"], files: [] },
        [],
        env,
      ),
    ).toEqual({
      level: "unsandboxed",
      why: "/tmp/tg lies under /tmp, which Codex leaves writable unless exclude_slash_tmp = true",
    });
  });

  /** A transcript line as Codex 0.169.0 writes it for `--sandbox workspace-write` (shortened). */
  const context = (sandbox: object, entries: object[]) =>
    `${JSON.stringify({ type: "session_meta", payload: {} })}\n${JSON.stringify({
      type: "turn_context",
      payload: {
        approval_policy: "never",
        sandbox_policy: sandbox,
        file_system_sandbox_policy: { kind: "restricted", entries },
      },
    })}\n`;
  const ws = [
    { path: { type: "special", value: { kind: "root" } }, access: "read" },
    { path: { type: "path", path: "/w/proj" }, access: "write" },
    { path: { type: "special", value: { kind: "slash_tmp" } }, access: "write" },
    { path: { type: "special", value: { kind: "tmpdir" } }, access: "write" },
    { path: { type: "path", path: "/w/proj/.codex" }, access: "read" },
  ];

  test("a workspace program a hook or MCP server runs (Codex's sandbox cannot keep one file from the agent) makes workspace-write unsandboxed, naming it", async () => {
    const p = gitProject({
      ".codex/config.toml":
        'sandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n',
      ".codex/hooks.json": `${JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "python3 tools/stop.py" }] }] } })}\n`,
    });
    cleanups.push(p.cleanup);
    const home = join(p.agents, "home");
    const trust = () => configTrust("codex", p.root, { HOME: home }, p.root);
    expect(await trust()).toEqual({
      level: "unsandboxed",
      why: `${join(p.root, "tools/stop.py")} is a program a hook or MCP server runs outside the sandbox, and Codex's workspace-write sandbox lets the agent rewrite it`,
    });
    rmSync(join(p.root, ".codex/hooks.json"));
    expect(await trust()).toEqual({ level: "confined-writes", why: CODEX_READS_KEY });
  });

  test("the sandbox Codex applied: workspace-write keeps state and config unwritable; full access or a writable state is unsandboxed", () => {
    const guarded = ["/h/.codex/config.toml", "/w/proj/.codex/config.toml"];
    expect(
      judgeCodexTranscript(context({ type: "workspace-write" }, ws), paths, guarded, env),
    ).toEqual({ level: "confined-writes", why: CODEX_READS_KEY });
    expect(
      judgeCodexTranscript(context({ type: "danger-full-access" }, []), paths, guarded, env),
    ).toEqual({
      level: "unsandboxed",
      why: 'Codex ran this turn with sandbox "danger-full-access"',
    });
    expect(
      judgeCodexTranscript(
        context({ type: "workspace-write" }, ws),
        { dirs: ["/scratch/tg"], files: [] },
        guarded,
        { ...env, TMPDIR: "/scratch" },
      ),
    ).toEqual({
      level: "unsandboxed",
      why: "Codex's sandbox lets the agent write /scratch/tg (under /scratch)",
    });
    expect(
      judgeCodexTranscript(
        context({ type: "workspace-write" }, ws.slice(0, 4)),
        paths,
        guarded,
        env,
      ),
    ).toEqual({
      level: "unsandboxed",
      why: "Codex's sandbox lets the agent write /w/proj/.codex/config.toml (under /w/proj)",
    });
    expect(judgeCodexTranscript(null, paths, guarded, env)).toEqual({
      level: "unsandboxed",
      why: "the Codex transcript cannot be read",
    });
  });
});

describe("end to end: the built hook's answer and proof", () => {
  /** A Claude Code project confined by `turngate hook install claude-code --confine`. */
  function project() {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "turngate-confine-e2e-")));
    const p = gitProject({
      "value.txt": "1\n",
      "turngate.config.json": `${JSON.stringify({ checks: [{ id: "unit", command: "grep -qx 2 value.txt" }] })}\n`,
    });
    cleanups.push(() => {
      p.cleanup();
      rmSync(outside, { recursive: true, force: true });
    });
    const { TURNGATE_SIGNING_KEY: _k, ...base } = process.env;
    const e = {
      ...base,
      HOME: join(outside, "home"),
      TURNGATE_HOOK_STATE_DIR: join(outside, "state"),
    };
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], { cwd: p.root, env: e, encoding: "utf8" });
    let n = 0;
    const hook = (event: string, body: object) =>
      spawnSync(process.execPath, [bin, "hook", "claude-code", event], {
        cwd: p.root,
        env: e,
        input: JSON.stringify({
          session_id: `s-${n}`,
          cwd: p.root,
          hook_event_name: event,
          ...body,
        }),
        encoding: "utf8",
        timeout: testTimeout(120_000),
      });
    return { p, cli, hook, next: () => n++, state: join(outside, "state") };
  }

  test("confined settings and acceptEdits → trust confined in the answer, the proof and status; bypassPermissions → unsandboxed", () => {
    const { p, cli, hook, next } = project();
    expect(
      cli("hook", "install", "claude-code", "--confine", "--command", `${process.execPath} ${bin}`)
        .status,
    ).toBe(0);
    for (const mode of ["acceptEdits", "bypassPermissions"]) {
      // A new session continues the last one (docs/hooks.md "A new session continues the last
      // one"): each turn changes a file of its own, on top of the value the checks pass on.
      next();
      expect(hook("UserPromptSubmit", { prompt: "go", permission_mode: mode }).status).toBe(0);
      p.write("value.txt", "2\n");
      p.write(`${mode}.txt`, `${mode}\n`);
      const stop = hook("Stop", { stop_hook_active: false, permission_mode: mode });
      expect(stop.status).toBe(0);
      const answer = JSON.parse(stop.stdout as string).systemMessage as string;
      const proof = /\nproof: (\S+)\n/.exec(answer)?.[1] as string;
      if (mode === "acceptEdits") {
        expect(answer.split("\n").at(-1)).toBe(
          "trust: confined (the harness's sandbox kept turngate's state folder and signing key from the agent's shell and file tools)",
        );
        expect(readProofPayload(proof).trust).toBe("confined");
      } else {
        expect(answer.split("\n").at(-1)).toBe(
          "trust: unsandboxed (Claude Code runs with permission_mode bypassPermissions: the agent runs as your user and could read turngate's signing key or rewrite its state; `turngate hook install <harness> --confine` writes the harness's sandbox settings)",
        );
        expect(readProofPayload(proof).trust).toBe("unsandboxed");
      }
    }
    const status = JSON.parse(cli("status", "--json").stdout);
    const trusts = status.sessions.map(
      (s: { last_verdict: { trust: string } }) => s.last_verdict.trust,
    );
    expect(trusts.sort()).toEqual(["confined", "unsandboxed"]);
  });

  test("a hook script the project settings name: --confine denies writing it, the turn is confined; a script named after the install leaves the sandbox open to it, and the trust says so", () => {
    const { p, cli, hook, next } = project();
    const settings = (script: string) =>
      `${JSON.stringify({ hooks: { PostToolUse: [{ matcher: "Edit", hooks: [{ type: "command", command: script }] }] } })}\n`;
    p.write(".claude/settings.json", settings('"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh'));
    p.write(".claude/hooks/format.sh", "#!/bin/sh\nexit 0\n");
    expect(
      cli("hook", "install", "claude-code", "--confine", "--command", `${process.execPath} ${bin}`)
        .status,
    ).toBe(0);
    const script = join(p.root, ".claude/hooks/format.sh");
    const local = JSON.parse(readFileSync(join(p.root, ".claude/settings.local.json"), "utf8"));
    expect(local.sandbox.filesystem.denyWrite).toContain(script);
    expect(local.permissions.deny).toContain(`Edit(/${script})`);
    const stopTrust = () => {
      next();
      expect(
        hook("UserPromptSubmit", { prompt: "go", permission_mode: "acceptEdits" }).status,
      ).toBe(0);
      p.write("value.txt", "2\n");
      const stop = hook("Stop", { stop_hook_active: false, permission_mode: "acceptEdits" });
      expect(stop.status, stop.stderr).toBe(0);
      return (JSON.parse(stop.stdout as string).systemMessage as string).split("\n").at(-1);
    };
    expect(stopTrust()).toBe(
      "trust: confined (the harness's sandbox kept turngate's state folder and signing key from the agent's shell and file tools)",
    );
    // The person names another script after the install: nothing keeps the agent off it.
    p.write(".claude/settings.json", settings("sh tools/lint.sh"));
    p.write("value.txt", "1\n");
    expect(stopTrust()).toBe(
      `trust: unsandboxed (${join(p.root, "tools/lint.sh")} holds code Claude Code runs outside its sandbox (a hook's or MCP server's program, or subagent, skill and command front matter), and no sandbox.filesystem.denyWrite and Edit(//…) rule keeps the agent from rewriting it (run turngate hook install claude-code --confine again to add them): the agent runs as your user and could read turngate's signing key or rewrite its state; \`turngate hook install <harness> --confine\` writes the harness's sandbox settings)`,
    );
  });

  test("the turn-start snapshot rules: sandbox settings the agent writes during the turn do not raise the trust", () => {
    const { p, cli, hook, state } = project();
    expect(hook("UserPromptSubmit", { prompt: "go", permission_mode: "acceptEdits" }).status).toBe(
      0,
    );
    // Mid-turn, something writes the confined settings (as an agent could, unconfined).
    expect(cli("hook", "install", "claude-code", "--confine", "--command", "tg").status).toBe(0);
    p.write("value.txt", "2\n");
    const stop = hook("Stop", { stop_hook_active: false, permission_mode: "acceptEdits" });
    // A hook settings file written during the turn is never accepted without the person
    // (turngate:hook-settings, docs/design.md §3b): the stop blocks on it.
    expect(stop.status).toBe(2);
    expect(stop.stderr).toContain(
      ".claude/settings.local.json changed during the turn (created, edited or removed)",
    );
    // And its proof records the trust of the turn's start, not the settings written since.
    const digest = /effect digest ([0-9a-f]{64})/.exec(stop.stderr)?.[1] as string;
    const [workspace] = workspaceStateDirs(state);
    const [session] = readdirSync(join(state, workspace as string));
    const proof = join(state, workspace as string, session as string, "proofs", `${digest}.json`);
    expect(readProofPayload(proof).trust).toBe("unsandboxed");
    expect(readFileSync(join(p.root, ".claude", "settings.local.json"), "utf8")).toContain(
      '"failIfUnavailable": true',
    );
  });
});
