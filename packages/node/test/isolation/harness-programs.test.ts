/**
 * The workspace programs the harnesses' settings name (docs/design.md §3b "Gate files",
 * `isolation/harness-programs.ts`): which words of a hook command or an MCP server entry are
 * workspace files, read from real settings files in a temporary workspace and home.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  harnessProgramPaths,
  harnessSettingsFiles,
  programPathsIn,
} from "../../src/isolation/harness-programs.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "turngate-harness-programs-")));
  made.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const hook = (command: string) => ({
  hooks: { PostToolUse: [{ matcher: "Edit", hooks: [{ type: "command", command }] }] },
});
const rel = (root: string, paths: string[]) => paths.map((p) => p.slice(root.length + 1)).sort();

describe("programPathsIn: the words of a command that name workspace files", () => {
  test("a project-dir variable, a relative path with a slash and an interpreter's script are named; the program on PATH, options, redirections and the root are not", () => {
    const root = tree({ "fmt.py": "", "tools/lint.sh": "", "notes.txt": "" });
    const doc = {
      ...hook(
        `cd "$CLAUDE_PROJECT_DIR" && python3 fmt.py --config=.claude/fmt.toml >> .claude/hook.log 2>&1; "\${CLAUDE_PROJECT_DIR}"/.claude/hooks/check.sh notes.txt missing.txt > out.log`,
      ),
      other: { command: "tools/lint.sh -q" },
    };
    expect(rel(root, programPathsIn(doc, root))).toEqual([
      ".claude/fmt.toml",
      ".claude/hooks/check.sh",
      "fmt.py",
      "notes.txt",
      "tools/lint.sh",
    ]);
  });

  test("an MCP server's command and args, Codex's notify list; paths outside the root, folders, computed words and a bare program name are not named", () => {
    const root = tree({ "mcp/server.js": "", "mcp/lib/x.js": "" });
    const doc = {
      mcpServers: {
        local: { command: "node", args: ["mcp/server.js", "--port", "3000"] },
        folder: { command: "node", args: ["mcp/lib"] },
        outside: { command: "/usr/bin/env", args: ["../elsewhere.js", "/etc/passwd"] },
        computed: { command: "sh", args: [] },
        npx: { command: "npx -y @scope/server" },
        home: { command: "~/bin/server --data ~/data/x.db" },
        dynamic: { command: "$HOME/bin/run ./$(whoami).sh" },
      },
      notify: ["python3", "scripts/notify.py"],
    };
    expect(rel(root, programPathsIn(doc, root))).toEqual(["mcp/server.js", "scripts/notify.py"]);
  });

  test("a symlink in the workspace is named by its own path", () => {
    const root = tree({ "real.sh": "" });
    symlinkSync("/bin/true", join(root, "link.sh"));
    expect(rel(root, programPathsIn(hook("./link.sh && ./real.sh"), root))).toEqual([
      "link.sh",
      "real.sh",
    ]);
  });
});

describe("harnessProgramPaths: every harness's settings, project and user level", () => {
  test("Claude Code's project and user settings, .mcp.json, Codex's hooks.json and config.toml, Cursor's hooks.json and a goose plugin; the settings files themselves are not programs", () => {
    const home = tree({
      ".claude/settings.json": JSON.stringify(hook("$CLAUDE_PROJECT_DIR/scripts/guard.sh")),
    });
    const root = tree({
      ".claude/settings.json": JSON.stringify(hook("./.claude/hooks/format.sh")),
      ".claude/settings.local.json": JSON.stringify(hook("cat .claude/settings.json")),
      ".mcp.json": JSON.stringify({ mcpServers: { a: { command: "node", args: ["mcp.js"] } } }),
      "mcp.js": "",
      ".codex/hooks.json": JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: "command", command: "python3 tools/stop.py" }] }] },
      }),
      ".codex/config.toml": '[mcp_servers.docs]\ncommand = "node"\nargs = ["docs/server.mjs"]\n',
      ".cursor/hooks.json": JSON.stringify({
        version: 1,
        hooks: { afterFileEdit: [{ command: ".cursor/fmt.sh" }] },
      }),
      ".agents/plugins/mine/hooks/hooks.json": JSON.stringify(hook("bin/goose-hook")),
      ".gitignore": "not json",
    });
    expect(rel(root, harnessProgramPaths(root, { HOME: home }))).toEqual([
      ".claude/hooks/format.sh",
      ".cursor/fmt.sh",
      "bin/goose-hook",
      "docs/server.mjs",
      "mcp.js",
      "scripts/guard.sh",
      "tools/stop.py",
    ]);
    expect(harnessSettingsFiles(root, { HOME: home, CODEX_HOME: "/codex" })).toContain(
      "/codex/config.toml",
    );
  });

  test("settings that cannot be parsed, or name nothing in the workspace, give no paths", () => {
    const home = tree({});
    const root = tree({
      ".claude/settings.json": "{ not json",
      ".codex/config.toml": "= broken",
      ".cursor/hooks.json": JSON.stringify({ version: 1, hooks: { stop: [{ command: "true" }] } }),
    });
    expect(harnessProgramPaths(root, { HOME: home })).toEqual([]);
  });
});
