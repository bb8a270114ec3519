/**
 * `turngate hook install|uninstall` (issue 19 item 2, issue 34 item 4): project level by
 * default (Claude Code's `.claude/settings.local.json`), `--user` says what it gates, a
 * project install over a user one warns, `--dry-run` prints the diff and writes nothing,
 * idempotent, other entries kept, uninstall removes only turngate's entries. Run in-process
 * against a temporary HOME.
 */
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
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type CliContext, main } from "../../src/index.js";
import { Collector, gitProject } from "../helpers.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup() {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "turngate-home-")));
  const p = gitProject({ "a.txt": "a\n" });
  cleanups.push(() => {
    rmSync(home, { recursive: true, force: true });
    p.cleanup();
  });
  const run = async (args: string[]) => {
    const stdout = new Collector();
    const stderr = new Collector();
    const ctx: CliContext = {
      stdout,
      stderr,
      cwd: p.root,
      env: { ...process.env, HOME: home, CODEX_HOME: undefined },
    };
    const code = await main(args, ctx);
    return { code, stdout: stdout.text, stderr: stderr.text };
  };
  const put = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  return { home, root: p.root, run, put };
}

const CMD = ["--command", "turngate"];

describe("turngate hook install / uninstall", () => {
  test("claude-code --user: merges into ~/.claude/settings.json keeping other entries; twice changes nothing; uninstall removes only ours", async () => {
    const { home, run, put } = setup();
    const file = join(home, ".claude", "settings.json");
    const theirs = {
      permissions: { allow: ["Bash(ls)"] },
      hooks: { Stop: [{ hooks: [{ type: "command", command: "echo theirs" }] }] },
    };
    put(file, `${JSON.stringify(theirs, null, 4)}\n`);
    const first = await run(["hook", "install", "claude-code", "--user", ...CMD]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`wrote ${file}`);
    expect(first.stdout).toContain(
      `These user-level hooks run in every project you open with claude-code. They gate only projects that opted in: a turngate.config.json at the project's root, or a folder listed in ${join(home, ".config", "turngate", "hooks.json")} ({"projects": ["/path/to/project"]}); every other project's stop passes with one line saying why.`,
    );
    const doc = JSON.parse(readFileSync(file, "utf8"));
    expect(doc.permissions).toEqual({ allow: ["Bash(ls)"] });
    expect(doc.hooks.Stop).toEqual([
      { hooks: [{ type: "command", command: "echo theirs" }] },
      {
        hooks: [
          { type: "command", command: "turngate hook claude-code Stop --user", timeout: 600 },
        ],
      },
    ]);
    expect(doc.hooks.PostToolUse).toEqual([
      {
        matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash",
        hooks: [{ type: "command", command: "turngate hook claude-code PostToolUse --user" }],
      },
    ]);
    expect(Object.keys(doc.hooks)).toEqual([
      "Stop",
      "SessionStart",
      "UserPromptSubmit",
      "PostToolUse",
      "SubagentStop",
    ]);
    // The file keeps its 4-space indentation.
    expect(readFileSync(file, "utf8")).toContain('\n    "permissions"');
    const bytes = readFileSync(file, "utf8");
    const second = await run(["hook", "install", "claude-code", "--user", ...CMD]);
    expect(second.stdout).toBe(
      "install: claude-code (user level) already has turngate's hooks: nothing changed\n",
    );
    expect(readFileSync(file, "utf8")).toBe(bytes);
    // A new command updates our entries in place instead of adding a second set.
    await run(["hook", "install", "claude-code", "--user", "--command", "/opt/bin/turngate"]);
    const moved = JSON.parse(readFileSync(file, "utf8"));
    expect(moved.hooks.Stop[1].hooks).toEqual([
      { type: "command", command: "/opt/bin/turngate hook claude-code Stop --user", timeout: 600 },
    ]);
    expect(moved.hooks.Stop).toHaveLength(2);
    const removed = await run(["hook", "uninstall", "claude-code", "--user"]);
    expect(removed.code).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(theirs);
  });

  test("--dry-run prints the diff and writes nothing", async () => {
    const { home, run } = setup();
    const r = await run(["hook", "install", "codex", "--user", "--dry-run", ...CMD]);
    expect(r.code).toBe(0);
    const file = join(home, ".codex", "hooks.json");
    expect(r.stdout.split("\n").slice(0, 3)).toEqual(["--- /dev/null", `+++ ${file}`, "+{"]);
    expect(r.stdout).toContain('+            "command": "turngate hook codex Stop --user",');
    expect(existsSync(file)).toBe(false);
  });

  test("the default is the project: claude-code writes .claude/settings.local.json, never the user's or the team's file", async () => {
    const { home, root, run } = setup();
    const r = await run(["hook", "install", "claude-code", ...CMD]);
    expect(r.code).toBe(0);
    const file = join(root, ".claude", "settings.local.json");
    expect(r.stdout).toContain(`wrote ${file}\n`);
    expect(JSON.parse(readFileSync(file, "utf8")).hooks.Stop).toEqual([
      { hooks: [{ type: "command", command: "turngate hook claude-code Stop", timeout: 600 }] },
    ]);
    expect(existsSync(join(home, ".claude", "settings.json"))).toBe(false);
    expect(existsSync(join(root, ".claude", "settings.json"))).toBe(false);
    expect(r.stdout).not.toContain("user-level hooks");
  });

  test("a project install over an existing user-level install warns that both would run", async () => {
    const { home, root, run } = setup();
    await run(["hook", "install", "codex", "--user", ...CMD]);
    const r = await run(["hook", "install", "codex", ...CMD]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `turngate: warning: ${join(home, ".codex", "hooks.json")} already has turngate's user-level hooks: with both, every event of this project runs turngate twice. Keep one: \`turngate hook uninstall codex --user\`, or skip this project-level install\n`,
    );
    expect(existsSync(join(root, ".codex", "hooks.json"))).toBe(true);
    // Without a user-level install there is no such warning.
    const other = setup();
    const clean = await other.run(["hook", "install", "codex", ...CMD]);
    expect(clean.stderr).not.toContain("warning");
  });

  test("--project writes the project's file and notes that the agent can edit it", async () => {
    const { root, run } = setup();
    const r = await run(["hook", "install", "cursor", "--project", ...CMD]);
    expect(r.code).toBe(0);
    const file = join(root, ".cursor", "hooks.json");
    expect(r.stderr).toBe(
      `turngate: note: ${file} is inside the workspace: the agent can edit or delete it and so switch turngate off (a user-level install, --user, is out of the project's reach)\n`,
    );
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      version: 1,
      hooks: {
        beforeSubmitPrompt: [{ command: "turngate hook cursor beforeSubmitPrompt" }],
        afterFileEdit: [{ command: "turngate hook cursor afterFileEdit" }],
        afterShellExecution: [{ command: "turngate hook cursor afterShellExecution" }],
        stop: [{ command: "turngate hook cursor stop", loop_limit: 5 }],
      },
    });
  });

  test("goose: a plugin folder of its own; uninstall removes it", async () => {
    const { home, run } = setup();
    await run(["hook", "install", "goose", "--user", ...CMD]);
    const dir = join(home, ".agents", "plugins", "turngate");
    expect(JSON.parse(readFileSync(join(dir, "plugin.json"), "utf8")).name).toBe("turngate");
    const hooks = JSON.parse(readFileSync(join(dir, "hooks", "hooks.json"), "utf8")).hooks;
    expect(hooks.Stop).toEqual([
      { hooks: [{ type: "command", command: "turngate hook goose Stop --user", timeout: 600 }] },
    ]);
    await run(["hook", "uninstall", "goose", "--user"]);
    expect(existsSync(dir)).toBe(false);
  });

  test("a hook file that is not JSON is refused and left untouched", async () => {
    const { home, run, put } = setup();
    const file = join(home, ".claude", "settings.json");
    put(file, "{ not json");
    const r = await run(["hook", "install", "claude-code", "--user", ...CMD]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file} is not JSON`);
    expect(readFileSync(file, "utf8")).toBe("{ not json");
  });

  test("an unknown harness is a usage error naming the choices", async () => {
    const { run } = setup();
    const r = await run(["hook", "install", "aider"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("must be one of claude-code, codex, cursor, goose");
  });
});
