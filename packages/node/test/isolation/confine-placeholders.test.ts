/**
 * The placeholders of absent gate files (docs/design.md §3b, `isolation/confine-placeholders.ts`):
 * which paths are protected, what is created (parents, then the gate path), the journal, and the
 * removal rules — only what is still turngate's (same inode, empty) goes, innermost first; a
 * parent folder holding other files stays silently; a leftover journal is replayed. The real
 * sandbox is in packages/cli/test/confine/gate-files-absent.test.ts.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  confineGatePaths,
  makeGatePlaceholders,
  PLACEHOLDER_JOURNAL,
  removeLeftoverPlaceholders,
} from "../../src/isolation/index.js";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "tg-placeholders-")));
  dirs.push(dir);
  return dir;
}

describe("confineGatePaths", () => {
  test("every protected workspace path with its kind; .git's own read-only parts only when .git is a writable folder", () => {
    const ws = temp();
    const rel = (paths: { path: string; kind: string }[]) =>
      paths.map((p) => `${p.kind} ${p.path.slice(ws.length + 1)}`);
    expect(rel(confineGatePaths(ws))).toEqual([
      "folder .git",
      "folder .turngate",
      "file turngate.config.json",
      "file .claude/settings.json",
      "file .claude/settings.local.json",
      "folder .claude/agents",
      "folder .claude/skills",
      "folder .claude/commands",
      "file .mcp.json",
      "folder .codex",
      "file .cursor/hooks.json",
      "file .cursor/mcp.json",
      "folder .agents/plugins",
    ]);
    // A writable .git that does not exist is the agent's to create: nothing of it is listed.
    expect(rel(confineGatePaths(ws, [".git"]))).not.toContain("folder .git/hooks");
    mkdirSync(join(ws, ".git"));
    expect(rel(confineGatePaths(ws, [".git"])).slice(-3)).toEqual([
      "folder .git/hooks",
      "file .git/config",
      "folder .git/info",
    ]);
  });
});

describe("makeGatePlaceholders", () => {
  test("absent paths get an empty file or folder (and the folders above them), journaled with their inodes; existing ones get none; remove() takes them all back", () => {
    const ws = temp();
    const state = join(ws, ".turngate");
    writeFileSync(join(ws, "turngate.config.json"), "{}\n");
    const made = makeGatePlaceholders(ws, state, confineGatePaths(ws));
    expect(made.created.map((p) => `${p.role} ${p.kind} ${p.path.slice(ws.length + 1)}`)).toEqual([
      "gate folder .git",
      "parent folder .claude",
      "gate file .claude/settings.json",
      "gate file .claude/settings.local.json",
      "gate folder .claude/agents",
      "gate folder .claude/skills",
      "gate folder .claude/commands",
      "gate file .mcp.json",
      "gate folder .codex",
      "parent folder .cursor",
      "gate file .cursor/hooks.json",
      "gate file .cursor/mcp.json",
      "parent folder .agents",
      "gate folder .agents/plugins",
    ]);
    expect(statSync(join(ws, ".claude/settings.local.json")).size).toBe(0);
    const journal = JSON.parse(readFileSync(join(state, PLACEHOLDER_JOURNAL), "utf8"));
    expect(journal.schema).toBe("turngate.confine_placeholders.v1");
    expect(journal.placeholders.every((p: { ino?: number }) => typeof p.ino === "number")).toBe(
      true,
    );
    // .turngate, where the journal is written, is made first: it is no placeholder.
    expect(existsSync(state)).toBe(true);
    const removal = made.remove();
    expect(removal.kept).toEqual([]);
    expect(removal.removed).toHaveLength(14);
    for (const path of [".git", ".claude", ".mcp.json", ".codex", ".cursor", ".agents"]) {
      expect(existsSync(join(ws, path))).toBe(false);
    }
    expect(readFileSync(join(ws, "turngate.config.json"), "utf8")).toBe("{}\n");
    expect(made.remove()).toEqual({ removed: [], kept: [] });
  });

  test("what someone else wrote or replaced is kept; a parent folder holding the agent's files stays silently", () => {
    const ws = temp();
    mkdirSync(join(ws, ".git"));
    mkdirSync(join(ws, ".turngate"));
    const made = makeGatePlaceholders(ws, join(ws, ".turngate"), confineGatePaths(ws));
    writeFileSync(join(ws, ".cursor/hooks.json"), '{"version":1}\n'); // written into
    // Replaced (another inode: made before the placeholder goes, so its inode cannot be reused).
    writeFileSync(join(ws, "replacement.json"), "");
    renameSync(join(ws, "replacement.json"), join(ws, "turngate.config.json"));
    writeFileSync(join(ws, ".claude/notes.md"), "x\n"); // beside the gate files
    const removal = made.remove();
    expect(removal.kept.map((p) => p.slice(ws.length + 1)).sort()).toEqual([
      ".cursor/hooks.json",
      "turngate.config.json",
    ]);
    expect(existsSync(join(ws, ".claude/settings.json"))).toBe(false);
    expect(existsSync(join(ws, ".claude/notes.md"))).toBe(true);
    expect(existsSync(join(ws, ".codex"))).toBe(false);
  });
});

describe("removeLeftoverPlaceholders", () => {
  test("a journal left by a turn that never ended: its placeholders still turngate's are removed, then the journal; none, nothing", () => {
    const ws = temp();
    const state = join(ws, ".turngate");
    mkdirSync(join(ws, ".git"));
    mkdirSync(state);
    makeGatePlaceholders(ws, state, confineGatePaths(ws)); // never removed: turngate "killed"
    writeFileSync(join(ws, ".claude/settings.json"), "{}\n"); // the host's now
    const removal = removeLeftoverPlaceholders(state);
    expect(removal.kept).toEqual([join(ws, ".claude/settings.json")]);
    expect(removal.removed).toHaveLength(12);
    expect(existsSync(join(ws, "turngate.config.json"))).toBe(false);
    expect(existsSync(join(state, PLACEHOLDER_JOURNAL))).toBe(false);
    expect(removeLeftoverPlaceholders(state)).toEqual({ removed: [], kept: [] });
    writeFileSync(join(state, PLACEHOLDER_JOURNAL), "{");
    expect(removeLeftoverPlaceholders(state)).toEqual({
      removed: [],
      kept: [join(state, PLACEHOLDER_JOURNAL)],
    });
  });
});
