/**
 * How Claude Code was launched lowers a confined hook's trust (issue 32 item 2, docs/hooks.md
 * "Confined hooks"): `--settings` (inline or a file) and the managed settings file join the
 * settings judgement, and `--dangerously-skip-permissions` or a `--setting-sources` that
 * skips where `--confine` writes is a gap. `claudeLaunch` is pure over the ancestry it is
 * given; `hookAncestry` reads this process's own. The real Claude Code with `--settings` is in
 * real-harness/claude-code-confined.test.ts.
 */
import { realpathSync } from "node:fs";
import { describe, expect, test } from "vitest";
import {
  type AncestorProcess,
  claudeLaunch,
  hookAncestry,
  isClaudeCode,
} from "../../src/hooks/claude-launch.js";
import { judgeClaudeSettings } from "../../src/hooks/confine-claude.js";
import { planInstall } from "../../src/hooks/install.js";

const env = { HOME: "/h" };
const paths = { dirs: ["/h/.local/state/turngate"], files: [] };
const MANAGED = "/etc/claude-code/managed-settings.json";

const shell = (pid: number): AncestorProcess => ({
  pid,
  ppid: pid + 1,
  argv: ["/bin/sh", "-c", "turngate hook claude-code Stop"],
  exe: "/usr/bin/dash",
  cwd: "/w/proj",
});
const claude = (argv: string[], exe = "/opt/claude/bin/claude.exe"): AncestorProcess => ({
  pid: 20,
  ppid: 1,
  argv: ["claude", ...argv],
  exe,
  cwd: "/w/proj",
});

/** A reader over a fixed set of files (absent: null). */
const files =
  (present: Record<string, string>) =>
  (path: string): string | null =>
    present[path] ?? null;

describe("claudeLaunch", () => {
  test("no Claude Code among the ancestors (a hook run by hand): only the managed file, no gap", () => {
    expect(claudeLaunch([shell(10)], files({}), "linux")).toEqual({
      settings: [{ path: MANAGED, text: null }],
      gap: null,
    });
    expect(claudeLaunch([shell(10)], files({}), "win32")).toEqual({ settings: [], gap: null });
  });

  test("--settings inline, --settings=FILE relative to Claude Code's folder, and an unreadable file", () => {
    const read = files({ [MANAGED]: '{"sandbox":{}}', "/w/proj/s.json": '{"a":1}' });
    expect(
      claudeLaunch(
        [shell(10), claude(["-p", "x", "--settings", '{"sandbox":{"enabled":false}}'])],
        read,
        "linux",
      ),
    ).toEqual({
      settings: [
        { path: MANAGED, text: '{"sandbox":{}}' },
        { path: "--settings (inline JSON)", text: '{"sandbox":{"enabled":false}}' },
      ],
      gap: null,
    });
    expect(
      claudeLaunch([claude(["--settings=s.json", "--settings", "/gone.json"])], read, "linux"),
    ).toEqual({
      settings: [
        { path: MANAGED, text: '{"sandbox":{}}' },
        { path: "--settings /w/proj/s.json", text: '{"a":1}' },
        { path: "--settings /gone.json", text: "\u0000" },
      ],
      gap: null,
    });
  });

  test("--dangerously-skip-permissions and a --setting-sources that skips user, project or local are gaps; all three kept is none", () => {
    const read = files({});
    expect(claudeLaunch([claude(["--dangerously-skip-permissions"])], read, "linux").gap).toBe(
      "Claude Code was launched with --dangerously-skip-permissions",
    );
    expect(claudeLaunch([claude(["--setting-sources", "user"])], read, "linux").gap).toBe(
      "Claude Code was launched with --setting-sources user, which skips the project and local settings --confine may have written",
    );
    expect(
      claudeLaunch([claude(["--setting-sources=local, project,user"])], read, "linux").gap,
    ).toBe(null);
    // After `--` come the prompt's words, not flags.
    expect(
      claudeLaunch([claude(["--", "--dangerously-skip-permissions"])], read, "linux").gap,
    ).toBe(null);
  });

  test("isClaudeCode: the executable or first argument named claude / claude.exe, or the npm package's script", () => {
    expect(isClaudeCode({ argv: ["claude"], exe: "/usr/bin/whatever" })).toBe(true);
    expect(isClaudeCode({ argv: ["x"], exe: "/a/claude.exe" })).toBe(true);
    expect(
      isClaudeCode({
        argv: ["node", "/g/lib/node_modules/@anthropic-ai/claude-code/cli.js"],
        exe: "/usr/bin/node",
      }),
    ).toBe(true);
    expect(isClaudeCode({ argv: ["node", "/w/claude-notes.js"], exe: "/usr/bin/node" })).toBe(
      false,
    );
  });

  test("hookAncestry reads this process's parents, nearest first, at most four", () => {
    const found = hookAncestry(process.pid, process.platform);
    expect(found.length).toBeGreaterThan(0);
    expect(found.length).toBeLessThanOrEqual(4);
    expect(found[0]?.pid).toBe(process.pid);
    if (process.platform === "linux") {
      expect(found[0]?.exe).toBe(realpathSync(process.execPath));
      expect(found[0]?.cwd).toBe(process.cwd());
    }
    if (found.length > 1) expect(found[1]?.pid).toBe(process.ppid);
  });
});

describe("judgeClaudeSettings with the launch", () => {
  const judge = async (launch: Parameters<typeof judgeClaudeSettings>[3]) => {
    const plan = await planInstall("claude-code", "project", "/w/proj", "tg", env, {
      confine: true,
    });
    return judgeClaudeSettings(
      [
        { path: "/h/.claude/settings.json", text: null },
        { path: "/w/proj/.claude/settings.json", text: null },
        { path: "/w/proj/.claude/settings.local.json", text: plan.files[0]?.after as string },
      ],
      paths,
      env,
      launch,
    );
  };

  test("the settings --confine wrote stay confined with an empty managed file and harmless --settings", async () => {
    expect(
      await judge({
        settings: [
          { path: MANAGED, text: null },
          { path: "--settings (inline JSON)", text: '{"model":"x"}' },
        ],
        gap: null,
      }),
    ).toEqual({ level: "confined", why: "" });
  });

  test("--settings or managed settings that weaken the sandbox lower it, naming where; a launch gap wins", async () => {
    expect(
      await judge({
        settings: [{ path: "--settings (inline JSON)", text: '{"sandbox":{"enabled":false}}' }],
        gap: null,
      }),
    ).toEqual({
      level: "unsandboxed",
      why: "Claude Code's sandbox is not enabled (sandbox.enabled) (set by --settings (inline JSON))",
    });
    expect(
      await judge({
        settings: [{ path: MANAGED, text: '{"sandbox":{"excludedCommands":["npm"]}}' }],
        gap: null,
      }),
    ).toEqual({
      level: "unsandboxed",
      why: `sandbox.excludedCommands runs some commands outside Claude Code's sandbox (set by ${MANAGED})`,
    });
    expect(
      await judge({ settings: [{ path: "--settings /gone.json", text: "\u0000" }], gap: null }),
    ).toEqual({
      level: "unsandboxed",
      why: "--settings /gone.json cannot be read as a JSON object (set by --settings /gone.json)",
    });
    expect(
      await judge({
        settings: [],
        gap: "Claude Code was launched with --dangerously-skip-permissions",
      }),
    ).toEqual({
      level: "unsandboxed",
      why: "Claude Code was launched with --dangerously-skip-permissions",
    });
  });
});
