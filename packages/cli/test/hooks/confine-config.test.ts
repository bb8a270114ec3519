/**
 * `turngate hook install <harness> --confine` (issue 32 item 2, docs/hooks.md "Confined
 * hooks"): the exact configuration written — Claude Code's `sandbox` block and
 * `permissions.deny` rules in the hook's settings file, Codex's `sandbox_mode =
 * "workspace-write"` in `config.toml` — merged with the user's keys, and refused where it
 * cannot hold (another harness, a writable root over turngate's state, a path a rule would
 * read as a pattern). Pure planning: nothing is written to disk.
 */
import { describe, expect, test } from "vitest";
import { planInstall } from "../../src/hooks/install.js";

const root = "/w/proj";
const env = { HOME: "/h", PATH: "/usr/bin" };
const cmd = "node /t/bin.js";

/** The `after` text of the planned file at `path`. */
function after(plan: Awaited<ReturnType<typeof planInstall>>, path: string): string {
  const file = plan.files.find((f) => f.path === path);
  if (!file || file.after === null) throw new Error(`no planned ${path}`);
  return file.after;
}

describe("Claude Code --confine: the sandbox block and deny rules", () => {
  test("project level: exact settings.local.json (hooks, sandbox, permissions)", async () => {
    const plan = await planInstall("claude-code", "project", root, cmd, env, {
      confine: true,
      cwd: root,
    });
    const doc = JSON.parse(after(plan, "/w/proj/.claude/settings.local.json"));
    expect(Object.keys(doc)).toEqual(["hooks", "sandbox", "permissions"]);
    expect(doc.sandbox).toEqual({
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
      filesystem: {
        denyRead: ["/h/.local/state/turngate"],
        denyWrite: [
          "/h/.local/state/turngate",
          "/h/.claude/settings.json",
          "/w/proj/.claude/settings.json",
          "/w/proj/.claude/settings.local.json",
          "/w/proj/.claude/agents",
          "/w/proj/.claude/skills",
          "/w/proj/.claude/commands",
        ],
      },
    });
    expect(doc.permissions).toEqual({
      deny: [
        "Read(//h/.local/state/turngate/**)",
        "Edit(//h/.local/state/turngate/**)",
        "Edit(//h/.claude/settings.json)",
        "Edit(//w/proj/.claude/settings.json)",
        "Edit(//w/proj/.claude/settings.local.json)",
        "Edit(//w/proj/.claude/agents/**)",
        "Edit(//w/proj/.claude/skills/**)",
        "Edit(//w/proj/.claude/commands/**)",
        "Edit(.claude/settings.json)",
        "Edit(.claude/settings.local.json)",
        "Edit(.claude/agents/**)",
        "Edit(.claude/skills/**)",
        "Edit(.claude/commands/**)",
      ],
    });
  });

  test("user level, state and key elsewhere: each is denied; the user's keys and rules stay", async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const home = realpathSync(mkdtempSync(join(tmpdir(), "turngate-confine-home-")));
    try {
      mkdirSync(join(home, ".claude"));
      writeFileSync(
        join(home, ".claude", "settings.json"),
        `${JSON.stringify(
          {
            model: "opus",
            sandbox: {
              network: { allowedDomains: ["example.com"] },
              filesystem: { denyRead: ["~/.aws"] },
            },
            permissions: { allow: ["Bash(npm test)"], deny: ["Read(./.env)"] },
          },
          null,
          4,
        )}\n`,
      );
      const plan = await planInstall(
        "claude-code",
        "user",
        root,
        cmd,
        {
          HOME: home,
          XDG_STATE_HOME: "/xdg",
          TURNGATE_HOOK_STATE_DIR: "/var/tg-hooks",
          TURNGATE_SIGNING_KEY: "/keys/tg.pem",
        },
        { confine: true, cwd: root },
      );
      const text = after(plan, join(home, ".claude", "settings.json"));
      expect(text.startsWith('{\n    "model": "opus",\n')).toBe(true);
      const doc = JSON.parse(text);
      expect(doc.sandbox).toEqual({
        network: { allowedDomains: ["example.com"] },
        filesystem: {
          denyRead: ["~/.aws", "/xdg/turngate", "/var/tg-hooks", "/keys/tg.pem"],
          denyWrite: [
            "/xdg/turngate",
            "/var/tg-hooks",
            "/keys/tg.pem",
            join(home, ".claude", "settings.json"),
            "/w/proj/.claude/agents",
            "/w/proj/.claude/skills",
            "/w/proj/.claude/commands",
          ],
        },
        enabled: true,
        failIfUnavailable: true,
        allowUnsandboxedCommands: false,
      });
      expect(doc.permissions).toEqual({
        allow: ["Bash(npm test)"],
        deny: [
          "Read(./.env)",
          "Read(//xdg/turngate/**)",
          "Edit(//xdg/turngate/**)",
          "Read(//var/tg-hooks/**)",
          "Edit(//var/tg-hooks/**)",
          "Read(//keys/tg.pem)",
          "Edit(//keys/tg.pem)",
          `Edit(/${join(home, ".claude", "settings.json")})`,
          "Edit(//w/proj/.claude/agents/**)",
          "Edit(//w/proj/.claude/skills/**)",
          "Edit(//w/proj/.claude/commands/**)",
          "Edit(.claude/settings.json)",
          "Edit(.claude/settings.local.json)",
          "Edit(.claude/agents/**)",
          "Edit(.claude/skills/**)",
          "Edit(.claude/commands/**)",
        ],
      });
      expect(Object.keys(doc.hooks)).toEqual([
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "Stop",
        "SubagentStop",
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a state folder whose path a rule would read as a pattern is refused", async () => {
    await expect(
      planInstall(
        "claude-code",
        "project",
        root,
        cmd,
        { ...env, XDG_STATE_HOME: "/s[1]" },
        {
          confine: true,
          cwd: root,
        },
      ),
    ).rejects.toThrow("/s[1]/turngate holds a character Claude Code reads as a pattern (");
  });
});

describe("Codex --confine: sandbox_mode = workspace-write in config.toml", () => {
  test("user level, no config.toml yet: exactly one line", async () => {
    const plan = await planInstall(
      "codex",
      "user",
      root,
      cmd,
      { ...env, CODEX_HOME: "/c" },
      {
        confine: true,
        cwd: root,
      },
    );
    expect(plan.files.map((f) => f.path)).toEqual(["/c/hooks.json", "/c/config.toml"]);
    expect(after(plan, "/c/config.toml")).toBe('sandbox_mode = "workspace-write"\n');
  });

  test("project level writes .codex/config.toml", async () => {
    const plan = await planInstall("codex", "project", root, cmd, env, {
      confine: true,
      cwd: root,
    });
    expect(after(plan, "/w/proj/.codex/config.toml")).toBe('sandbox_mode = "workspace-write"\n');
  });

  test("an existing config keeps every line, comment and table; a looser sandbox_mode is replaced", async () => {
    const { confineCodexToml } = await import("../../src/hooks/confine-codex.js");
    const paths = { dirs: ["/h/.local/state/turngate"], files: [] };
    const before = [
      "# my settings",
      'model = "gpt-5"',
      'sandbox_mode = "danger-full-access"',
      "",
      "[model_providers.fake]",
      'base_url = "http://127.0.0.1:1/v1"',
      "",
      "[sandbox_workspace_write]",
      'writable_roots = ["/opt/cache"]',
      "",
    ].join("\n");
    expect(confineCodexToml(before, "/c/config.toml", paths, ["/c/config.toml"], env)).toBe(
      before.replace('"danger-full-access"', '"workspace-write"'),
    );
    const noMode = '# top\nmodel = "gpt-5"\n\n[profiles.fast]\nmodel = "o4"\n';
    expect(confineCodexToml(noMode, "/c/config.toml", paths, [], env)).toBe(
      `sandbox_mode = "workspace-write"\n${noMode}`,
    );
    const done = `sandbox_mode = "workspace-write"\n${noMode}`;
    expect(confineCodexToml(done, "/c/config.toml", paths, [], env)).toBe(done);
  });

  test("turngate's state under /tmp or $TMPDIR: the matching exclude_* is set in [sandbox_workspace_write]", async () => {
    const { confineCodexToml } = await import("../../src/hooks/confine-codex.js");
    const tmpState = { dirs: ["/tmp/tg"], files: [] };
    expect(
      confineCodexToml(null, "/c/config.toml", tmpState, [], { ...env, TMPDIR: "/scratch" }),
    ).toBe(
      'sandbox_mode = "workspace-write"\n\n[sandbox_workspace_write]\nexclude_slash_tmp = true\n',
    );
    expect(
      confineCodexToml(
        "[sandbox_workspace_write]\nnetwork_access = true\nexclude_slash_tmp = false\n\n[x]\ny = 1\n",
        "/c/config.toml",
        { dirs: ["/scratch/tg"], files: ["/tmp/key.pem"] },
        [],
        { ...env, TMPDIR: "/scratch" },
      ),
    ).toBe(
      'sandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nexclude_tmpdir_env_var = true\nnetwork_access = true\nexclude_slash_tmp = true\n\n[x]\ny = 1\n',
    );
  });

  test("refused: a writable root over turngate's state, a table turngate does not edit, a file that is not TOML", async () => {
    const { confineCodexToml } = await import("../../src/hooks/confine-codex.js");
    const paths = { dirs: ["/h/.local/state/turngate"], files: [] };
    expect(() =>
      confineCodexToml(
        '[sandbox_workspace_write]\nwritable_roots = ["/h/.local"]\n',
        "/c/config.toml",
        paths,
        [],
        env,
      ),
    ).toThrow(
      "sandbox_workspace_write.writable_roots in /c/config.toml lets Codex's agent write /h/.local, which holds or lies in turngate's state /h/.local/state/turngate; remove that root (or move turngate's state) and run the install again; nothing was written",
    );
    expect(() =>
      confineCodexToml(
        "sandbox_workspace_write = { network_access = true }\n",
        "/c/config.toml",
        { dirs: ["/tmp/tg"], files: [] },
        [],
        env,
      ),
    ).toThrow(
      '/c/config.toml sets sandbox_mode or [sandbox_workspace_write] in a form turngate does not edit (an inline table, dotted keys); set sandbox_mode = "workspace-write" and sandbox_workspace_write.exclude_slash_tmp = true by hand; nothing was written',
    );
    expect(() => confineCodexToml("a = [", "/c/config.toml", paths, [], env)).toThrow(
      /^\/c\/config\.toml is not TOML \(.+\); fix it by hand, nothing was written$/,
    );
  });
});

test("--confine for a harness turngate cannot confine names the supported ones", async () => {
  for (const harness of ["cursor", "goose"] as const) {
    await expect(
      planInstall(harness, "project", root, cmd, env, { confine: true, cwd: root }),
    ).rejects.toThrow(
      `--confine writes a harness's sandbox settings for claude-code and codex only; turngate cannot confine ${harness}'s agent (nothing was written)`,
    );
  }
});

describe("the command: turngate hook install <harness> --confine", () => {
  test("codex --user --dry-run prints both diffs; the install writes them and says what Codex gives; twice changes nothing; cursor is refused", async () => {
    const { mkdtempSync, readFileSync, realpathSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { main } = await import("../../src/index.js");
    const { Collector } = await import("../helpers.js");
    const home = realpathSync(mkdtempSync(join(tmpdir(), "turngate-confine-cli-")));
    try {
      const env = { PATH: process.env.PATH, HOME: home, XDG_STATE_HOME: join(home, "xdg") };
      const run = async (args: string[]) => {
        const stdout = new Collector();
        const stderr = new Collector();
        const code = await main(args, { stdout, stderr, cwd: home, env });
        return { code, stdout: stdout.text, stderr: stderr.text };
      };
      const args = ["hook", "install", "codex", "--user", "--confine", "--command", "tg"];
      const dry = await run([...args, "--dry-run"]);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(
        // turngate's state is under /tmp here, which workspace-write leaves writable: excluded.
        `--- /dev/null\n+++ ${join(home, ".codex", "config.toml")}\n+sandbox_mode = "workspace-write"\n+\n+[sandbox_workspace_write]\n+exclude_slash_tmp = true\n`,
      );
      expect(dry.stdout).toContain(`+++ ${join(home, ".codex", "hooks.json")}\n`);
      const installed = await run(args);
      expect(installed.code).toBe(0);
      expect(installed.stdout).toContain(`wrote ${join(home, ".codex", "config.toml")}\n`);
      expect(installed.stdout).toContain(
        "Confined writes: Codex runs the agent's commands in its workspace-write sandbox, which cannot write turngate's state folder; it can still read the whole disk, the signing key included, so proofs record trust confined-writes, not confined.",
      );
      expect(readFileSync(join(home, ".codex", "config.toml"), "utf8")).toBe(
        'sandbox_mode = "workspace-write"\n\n[sandbox_workspace_write]\nexclude_slash_tmp = true\n',
      );
      const again = await run(args);
      expect(again.stdout).toBe(
        "install: codex (user level) already has turngate's hooks: nothing changed\n",
      );
      const cursor = await run(["hook", "install", "cursor", "--confine", "--command", "tg"]);
      expect(cursor.code).not.toBe(0);
      expect(cursor.stderr).toContain(
        "--confine writes a harness's sandbox settings for claude-code and codex only; turngate cannot confine cursor's agent (nothing was written)",
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
