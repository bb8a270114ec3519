/**
 * The workspace programs the harnesses' settings name (docs/design.md §3b "Harness
 * programs", `isolation/harness-programs.ts` and `program-words.ts`): which words of a hook
 * command or an MCP server entry are program files, read from real settings files in a
 * temporary workspace and home. The command forms are those an attack round used to hide a
 * program from the first reading, and the false alarms an honest user hit.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  harnessGateFiles,
  harnessPrograms,
  harnessSettingsFiles,
  nestedHarnessSettings,
  programsIn,
} from "../../src/isolation/harness-programs.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>, name = "turngate-harness-programs-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), name)));
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
const rel = (root: string, paths: readonly string[]) =>
  paths.map((p) => (p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p)).sort();
/** The workspace-relative program paths of one hook command in `root` (home: `home`). */
const named = (root: string, command: string, home = "/nonexistent-home") =>
  rel(root, programsIn(hook(command), { root, home, cwd: root }).paths);

describe("programsIn: the words of a command that name program files", () => {
  test("the project folder in every spelling, with a space in the root: $CLAUDE_PROJECT_DIR, ${…:-.}, $(pwd), $(git rev-parse --show-toplevel)", () => {
    const root = tree({}, "turngate harness programs ");
    expect(named(root, '"$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh')).toEqual([".claude/hooks/a.sh"]);
    expect(named(root, '"${CLAUDE_PROJECT_DIR:-.}"/b.sh')).toEqual(["b.sh"]);
    expect(named(root, '"$(pwd)"/c.sh && `pwd`/d.sh')).toEqual(["c.sh", "d.sh"]);
    expect(named(root, '"$(git rev-parse --show-toplevel)"/tools/e.sh')).toEqual(["tools/e.sh"]);
  });

  test("cd in a list, a shell's -c script, a subshell, wrappers and assignments move or reveal the program", () => {
    const root = tree({ "tools/fmt.sh": "" });
    expect(named(root, 'cd "$CLAUDE_PROJECT_DIR/tools" && ./fmt.sh')).toEqual(["tools/fmt.sh"]);
    expect(named(root, "bash -c 'cd tools && ./fmt.sh'")).toEqual(["tools/fmt.sh"]);
    expect(named(root, "(./sub.sh) ; { ./group.sh; }")).toEqual(["group.sh", "sub.sh"]);
    expect(named(root, "X=1 env -u Y Z=2 timeout 5 nice -n 3 ./w.sh")).toEqual(["w.sh"]);
    expect(named(root, "bash -e -o pipefail tools/fmt.sh")).toEqual(["tools/fmt.sh"]);
  });

  test("interpreters: the script (absent too), -m modules, preloads; Node's folder and extensionless resolution; runners' --directory", () => {
    const root = tree({
      "mcp/server.js": "",
      "tools/mcp-b/index.js": "",
      "hooks/__init__.py": "",
      "hooks/fmt.py": "",
      "srv/mcp/server.py": "",
    });
    expect(named(root, "python3 hook.py")).toEqual(["hook.py"]);
    expect(named(root, "node mcp/server")).toEqual(["mcp/server.js"]);
    expect(named(root, "node tools/mcp-b")).toEqual(["tools/mcp-b/index.js"]);
    expect(named(root, "python3 -m hooks.fmt")).toEqual(["hooks/__init__.py", "hooks/fmt.py"]);
    expect(named(root, "node -r ./setup.js --import ./loader.mjs main.js")).toEqual([
      "loader.mjs",
      "main.js",
      "setup.js",
    ]);
    expect(named(root, "uv --directory srv/mcp run server.py")).toEqual(["srv/mcp/server.py"]);
    expect(named(root, "deno run -A tools/x.ts")).toEqual(["tools/x.ts"]);
    expect(named(root, "python3 -c 'import os' && node -e 1")).toEqual([]);
  });

  test("data words name nothing: a log tee appends to, a redirection, a database path, notes cat prints, a formatter's files, npx packages", () => {
    const root = tree({ "docs/notes.md": "", "package.json": "{}" });
    expect(named(root, "jq . | tee -a .claude/hooks.log >> out.log 2>&1")).toEqual([]);
    expect(named(root, "uvx mcp-server-sqlite --db-path ./data.db")).toEqual([]);
    expect(named(root, "cat docs/notes.md")).toEqual([]);
    expect(named(root, "npx prettier --check package.json && npx -y @scope/server")).toEqual([]);
  });

  test("compound commands, command substitutions, a script on stdin, cd's options, a runner's --, go run", () => {
    const root = tree({ "cmd/hook/main.go": "", "cmd/hook/main_test.go": "" });
    expect(named(root, "if [ -x .claude/hooks/guard ]; then .claude/hooks/guard; fi")).toEqual([
      ".claude/hooks/guard",
    ]);
    expect(named(root, "for f in a b; do ./each.sh; done")).toEqual(["each.sh"]);
    expect(named(root, 'echo "$("$CLAUDE_PROJECT_DIR"/.claude/hooks/ctx)" `./tick`')).toEqual([
      ".claude/hooks/ctx",
      "tick",
    ]);
    expect(named(root, "bash < .claude/hooks/guard")).toEqual([".claude/hooks/guard"]);
    expect(named(root, 'cd -- "$CLAUDE_PROJECT_DIR/tools" && ./hook')).toEqual(["tools/hook"]);
    expect(named(root, "uv run -- python .claude/hooks/guard")).toEqual([".claude/hooks/guard"]);
    expect(named(root, "go run ./cmd/hook")).toEqual(["cmd/hook/main.go"]);
  });

  test("what a manifest decides (npm run, pnpm, make) and a piped script are unresolved, not a path", () => {
    const root = tree({});
    const scope = { root, home: "/nonexistent-home", cwd: root };
    const found = programsIn(
      hook("npm run --silent lint && pnpm test && make -s lint && cat x | sh"),
      scope,
    );
    expect(found).toEqual({
      paths: [],
      unresolved: [
        "npm run --silent lint (what runs is in package.json's scripts)",
        "pnpm test (what runs is in package.json's scripts)",
        "make -s lint (what runs is in the Makefile)",
        "sh",
      ],
    });
  });

  test("a program's arguments are its data: a linter's or test runner's files, a hook script's argument, git's paths, deno's subcommands, preloaded packages, perl -I and ts-node -P", () => {
    const root = tree({ "src/index.ts": "", "tests/test_api.py": "", "src/app.py": "" });
    expect(
      named(root, "npx eslint --fix src/index.ts && uv run pytest tests/test_api.py -q"),
    ).toEqual([]);
    expect(named(root, '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh src/app.py')).toEqual([
      ".claude/hooks/check.sh",
    ]);
    expect(named(root, "git diff --quiet -- src/index.ts && deno fmt && bun test")).toEqual([]);
    expect(named(root, "node -r dotenv/config app.js")).toEqual(["app.js"]);
    expect(named(root, "perl -I lib x.pl && ts-node -P tsconfig.json y.ts")).toEqual([
      "x.pl",
      "y.ts",
    ]);
  });

  test("home spellings: ~/…, $HOME/… and an absolute path reach a workspace inside the home; paths outside name nothing", () => {
    const home = tree({});
    const root = join(home, "proj");
    mkdirSync(root);
    expect(named(root, "~/proj/tools/a.sh && $HOME/proj/tools/b.sh", home)).toEqual([
      "tools/a.sh",
      "tools/b.sh",
    ]);
    expect(named(root, `${root}/c.sh ~/bin/d.sh /usr/bin/env ../e.sh`, home)).toEqual(["c.sh"]);
  });

  test("MCP entries: command and args with ${PWD} and ${CLAUDE_PROJECT_DIR} expanded, Codex's cwd, notify, an env block's NODE_OPTIONS and BASH_ENV; a computed program is unresolved", () => {
    const root = tree({ "mcp/lib/x.js": "" });
    const scope = { root, home: "/nonexistent-home", cwd: root };
    const doc = {
      mcpServers: {
        a: { command: "node", args: ["${PWD}/mcp/a.js", "--port", "3000"] },
        b: { command: "node", args: ["server.js"], cwd: "tools/mcp" },
        c: { command: "${CLAUDE_PROJECT_DIR}/bin/c" },
        d: { command: "$RUNNER", args: ["x"] },
      },
      notify: ["python3", "scripts/notify.py"],
      apiKeyHelper: "./scripts/key.sh",
      env: {
        NODE_OPTIONS: "--require ./tools/otel.cjs --max-old-space-size=4096",
        BASH_ENV: "env.sh",
      },
    };
    const found = programsIn(doc, scope);
    expect(rel(root, found.paths)).toEqual([
      "bin/c",
      "env.sh",
      "mcp/a.js",
      "scripts/key.sh",
      "scripts/notify.py",
      "tools/mcp/server.js",
      "tools/otel.cjs",
    ]);
    expect(found.unresolved).toEqual(["$RUNNER"]);
  });

  test("an env block's PYTHONPATH: python -m finds the module in its folders too, settings-wide and per MCP entry; a computed entry names no folder", () => {
    const root = tree({
      "src/hooks/__init__.py": "",
      "src/hooks/fmt.py": "",
      "lib/srv/__main__.py": "",
    });
    const settings = {
      env: { PYTHONPATH: "$CLAUDE_PROJECT_DIR/src:${OTHER}/x" },
      ...hook("python3 -m hooks.fmt"),
    };
    expect(
      rel(root, programsIn(settings, { root, home: "/nonexistent-home", cwd: root }).paths),
    ).toEqual(["src/hooks/__init__.py", "src/hooks/fmt.py"]);
    // Without the env block: only where the module would be in the project folder.
    expect(named(root, "python3 -m hooks.fmt")).toEqual(["hooks/fmt.py"]);
    const mcp = {
      mcpServers: {
        srv: { command: "python3", args: ["-m", "srv"], env: { PYTHONPATH: "lib" } },
        other: { command: "python3", args: ["-m", "srv"] },
      },
    };
    expect(
      rel(root, programsIn(mcp, { root, home: "/nonexistent-home", cwd: root }).paths),
    ).toEqual(["lib/srv/__main__.py", "srv.py"]);
  });

  test("a symlink in the workspace is named by its own path", () => {
    const root = tree({ "real.sh": "" });
    symlinkSync("/bin/true", join(root, "link.sh"));
    expect(named(root, "./link.sh && ./real.sh")).toEqual(["link.sh", "real.sh"]);
  });
});

describe("harnessPrograms: every harness's settings, project and user level", () => {
  test("Claude Code's project and user settings, .mcp.json, ~/.claude.json's servers, Codex's hooks.json and config.toml, Cursor's hooks.json, a goose plugin and subagent front matter; the settings files themselves are not programs", () => {
    const home = tree({
      ".claude/settings.json": JSON.stringify(hook("$CLAUDE_PROJECT_DIR/scripts/guard.sh")),
    });
    const root = tree({
      ".claude/settings.json": JSON.stringify(hook("./.claude/hooks/format.sh")),
      ".claude/settings.local.json": JSON.stringify(hook("cat .claude/settings.json")),
      ".claude/agents/reviewer.md": `---\nname: reviewer\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: ./.claude/agents/stop.sh\n---\nReview.\n`,
      ".claude/skills/plain/SKILL.md": "---\nname: plain\n---\nNo hooks.\n",
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
    });
    // `claude mcp add` keeps servers in ~/.claude.json: the user's, and per project folder.
    const server = (file: string) => ({ command: "node", args: [file] });
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: { u: server("mcp/user.js") },
        projects: {
          [root]: { mcpServers: { p: server("mcp/proj.js") } },
          "/another/project": { mcpServers: { o: server("mcp/other.js") } },
        },
      }),
    );
    const found = harnessPrograms(root, { HOME: home });
    expect(rel(root, found.paths)).toEqual([
      ".claude/agents/stop.sh",
      ".claude/hooks/format.sh",
      ".cursor/fmt.sh",
      "bin/goose-hook",
      "docs/server.mjs",
      "mcp.js",
      "mcp/proj.js",
      "mcp/user.js",
      "scripts/guard.sh",
      "tools/stop.py",
    ]);
    expect(rel(root, found.frontMatter)).toEqual([".claude/agents/reviewer.md"]);
    expect(found.unresolved).toEqual([]);
    expect(rel(root, harnessGateFiles(root, { HOME: home }))).toContain(
      ".claude/agents/reviewer.md",
    );
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
    expect(harnessPrograms(root, { HOME: home })).toEqual({
      paths: [],
      unresolved: [],
      frontMatter: [],
    });
  });
});

describe("nestedHarnessSettings: a harness's settings in a subfolder (a harness started there reads them)", () => {
  test("settings, MCP lists, subagents and plugins below the root are named; the root's own and look-alikes are not", () => {
    expect(
      nestedHarnessSettings([
        "apps/api/.claude/settings.json",
        "apps/api/.claude/settings.local.json",
        "apps/api/.claude/agents/x.md",
        "apps/api/.claude/skills/s/SKILL.md",
        "pkg/.mcp.json",
        "pkg/.codex/config.toml",
        "pkg/.cursor/hooks.json",
        "pkg/.agents/plugins/p/hooks/hooks.json",
        ".claude/settings.json",
        ".mcp.json",
        "apps/api/.claude/notes.md",
        "docs/claude/settings.json",
        "pkg/mcp.json",
        "~/.claude/settings.json",
      ]),
    ).toEqual([
      "apps/api/.claude/settings.json",
      "apps/api/.claude/settings.local.json",
      "apps/api/.claude/agents/x.md",
      "apps/api/.claude/skills/s/SKILL.md",
      "pkg/.mcp.json",
      "pkg/.codex/config.toml",
      "pkg/.cursor/hooks.json",
      "pkg/.agents/plugins/p/hooks/hooks.json",
    ]);
  });
});
