/**
 * The workspace files an agent harness runs as programs outside every check (docs/design.md
 * §3b "Harness programs"; docs/guarantees.md): the scripts its hooks name and the programs its
 * MCP server lists start. A harness runs them with the user's rights (Claude Code runs hooks
 * outside its own sandbox), so an agent that rewrites one gets code run where the signing key
 * and the hook sessions are: they are gate files like the settings that name them.
 *
 * Read from the settings files of every harness turngate knows (project and user level):
 * every `command` (a string is a shell command, a list an argument vector), the `args` list
 * beside a `command` (resolved in the entry's `cwd` when it has one), Codex's `notify`, and
 * Claude Code's other program settings (`apiKeyHelper`, `awsAuthRefresh`,
 * `awsCredentialExport`, `otelHeadersHelper`), and what an `env` block loads at start
 * (`NODE_OPTIONS`' `--require`/`--import` files, `BASH_ENV`, `ENV`, `PYTHONSTARTUP`); plus the YAML front matter of Claude Code's
 * subagents, skills and slash commands (`.claude/agents/`, `.claude/skills/`,
 * `.claude/commands/`, project and user), whose `hooks` run the same way. Which words of a
 * command are program files is `program-words.ts`. Not followed: what such a program imports
 * or sources, and the project dependencies a hook runs (`npx prettier`, a virtualenv's
 * tools); docs/guarantees.md names that residual.
 */
import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { HOOK_SETTINGS_PATHS } from "./confine.js";
import {
  argvPrograms,
  type CommandScope,
  pythonPathFolders,
  shellCommandPrograms,
} from "./program-words.js";

export { PROJECT_DIR_VARIABLES } from "./program-words.js";

/** Claude Code settings whose string value is a shell command it runs (Claude Code settings docs). */
export const PROGRAM_SETTING_KEYS: readonly string[] = Object.freeze([
  "apiKeyHelper",
  "awsAuthRefresh",
  "awsCredentialExport",
  "otelHeadersHelper",
]);

/** Variables of an `env` block that name a script a shell or Python runs at start. */
const ENV_SCRIPT_VARIABLES: readonly string[] = Object.freeze(["BASH_ENV", "ENV", "PYTHONSTARTUP"]);

/** Claude Code folders of Markdown files whose front matter may hold `hooks`. */
const FRONT_MATTER_FOLDERS: readonly string[] = Object.freeze([
  ".claude/agents",
  ".claude/skills",
  ".claude/commands",
]);

/** How deep plugin and front-matter folders are walked. */
const WALK_DEPTH = 3;

/** What the harnesses' settings name: program files in the workspace, and computed program words. */
export interface HarnessPrograms {
  /** Absolute paths, sorted, without duplicates; never a settings file itself. */
  paths: string[];
  /** `<settings file>: <word>` for each program or script word computed when it runs. */
  unresolved: string[];
  /** The front-matter files (subagents, skills, commands) that hold `hooks`: gate files too. */
  frontMatter: string[];
}

/**
 * The settings files whose commands `harnessPrograms` reads (absolute paths; they need
 * not exist): the workspace's `HOOK_SETTINGS_PATHS` files, the `hooks.json` files under
 * its `.agents/plugins/`, and the user-level ones: Claude Code's `settings.json` (in
 * `CLAUDE_CONFIG_DIR`, else `~/.claude`), Codex's `hooks.json` and `config.toml` (in
 * `CODEX_HOME`, else `~/.codex`), Cursor's `hooks.json` and `mcp.json` (`~/.cursor`) and
 * goose's plugins (`~/.agents/plugins/`). (`harnessPrograms` also reads Claude Code's
 * `~/.claude.json`: its user and this project's MCP servers.) Input: the workspace root (absolute) and the
 * environment (`HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`). Never throws.
 */
export function harnessSettingsFiles(root: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  const files: string[] = [];
  for (const rel of HOOK_SETTINGS_PATHS) {
    if (rel === ".agents/plugins") files.push(...walkFiles(join(root, rel), isHooksJson));
    else files.push(join(root, rel));
  }
  files.push(join(env.CLAUDE_CONFIG_DIR || join(home, ".claude"), "settings.json"));
  const codexHome = env.CODEX_HOME || join(home, ".codex");
  files.push(join(codexHome, "hooks.json"), join(codexHome, "config.toml"));
  files.push(join(home, ".cursor", "hooks.json"), join(home, ".cursor", "mcp.json"));
  files.push(...walkFiles(join(home, ".agents", "plugins"), isHooksJson));
  return [...new Set(files)];
}

/**
 * The workspace files the harnesses' settings name as programs, see the module docs.
 * A file that is absent still counts (an agent could create it). Input: the workspace root
 * (absolute), the environment (`harnessSettingsFiles`; `HOME` for `~` and `$HOME`). A
 * settings file that is absent or cannot be parsed names nothing here (the settings files
 * are gate files themselves). Never throws.
 */
export function harnessPrograms(root: string, env: NodeJS.ProcessEnv): HarnessPrograms {
  const home = env.HOME || homedir();
  const scope: CommandScope = { root, home, cwd: root };
  const settings = harnessSettingsFiles(root, env);
  const paths = new Set<string>();
  const unresolved: string[] = [];
  const read = (file: string, doc: unknown) => {
    const found = programsIn(doc, scope);
    for (const path of found.paths) paths.add(path);
    for (const word of found.unresolved) unresolved.push(`${file}: ${word}`);
  };
  for (const file of settings) {
    const doc = readSettings(file);
    if (doc !== undefined) read(file, doc);
  }
  // Claude Code's own state file keeps the servers `claude mcp add` writes: the user's
  // (top-level `mcpServers`) and, per project folder, `projects[<folder>].mcpServers`.
  const claudeJson = join(env.CLAUDE_CONFIG_DIR || home, ".claude.json");
  const state = readSettings(claudeJson);
  if (typeof state === "object" && state !== null) {
    const record = state as Record<string, unknown>;
    read(claudeJson, record.mcpServers);
    const projects = record.projects;
    if (typeof projects === "object" && projects !== null) {
      read(
        claudeJson,
        (projects as Record<string, Record<string, unknown> | undefined>)[root]?.mcpServers,
      );
    }
  }
  const frontMatter: string[] = [];
  const claudeHome = env.CLAUDE_CONFIG_DIR || join(home, ".claude");
  for (const rel of FRONT_MATTER_FOLDERS) {
    for (const base of [join(root, rel), join(claudeHome, rel.slice(".claude/".length))]) {
      for (const file of walkFiles(base, (name) => name.endsWith(".md"))) {
        const doc = frontMatterOf(file);
        if (doc === undefined || doc.hooks === undefined) continue;
        frontMatter.push(file);
        read(file, doc.hooks);
      }
    }
  }
  for (const file of [...settings, ...frontMatter]) paths.delete(file);
  return { paths: [...paths].sort(), unresolved, frontMatter: frontMatter.sort() };
}

/**
 * The gate files the harnesses' settings add (docs/design.md §3b "Harness programs"): the
 * program paths and the front-matter files that hold `hooks`, sorted. Never throws.
 */
export function harnessGateFiles(root: string, env: NodeJS.ProcessEnv): string[] {
  const found = harnessPrograms(root, env);
  return [...new Set([...found.paths, ...found.frontMatter])].sort();
}

/**
 * A harness settings path below the workspace root, at any depth: Claude Code reads
 * `.claude/` and `.mcp.json` from the folder it is started in (a monorepo's package), and the
 * other harnesses likewise. The root's own are fingerprinted (`HOOK_SETTINGS_PATHS`); a label
 * outside the workspace (`~/…`, an absolute path: the environment's rows) is not one.
 */
const NESTED_SETTINGS =
  /^(?![~/])(?:.+\/)(?:\.claude\/(?:settings\.json|settings\.local\.json|agents\/.*|skills\/.*|commands\/.*)|\.mcp\.json|\.codex\/.*|\.cursor\/(?:hooks|mcp)\.json|\.agents\/plugins\/.*)$/;

/**
 * The workspace-relative paths among `paths` (a turn's ledger paths) that are a harness's
 * settings in a subfolder of the workspace (`apps/api/.claude/settings.json`,
 * `pkg/.mcp.json`, `pkg/.claude/agents/x.md`): a harness started there reads them, so a turn
 * that changes one is reviewed like the root's (docs/design.md §3b). Pure.
 */
export function nestedHarnessSettings(paths: readonly string[]): string[] {
  return paths.filter((path) => NESTED_SETTINGS.test(path));
}

/** `harnessPrograms(root, env).paths`. Never throws. */
export function harnessProgramPaths(root: string, env: NodeJS.ProcessEnv): string[] {
  return harnessPrograms(root, env).paths;
}

/**
 * The workspace paths and computed program words one parsed settings document names (see
 * the module docs). Input: the document (JSON, TOML or YAML, as parsed), the scope (root,
 * home, the folder commands run in). Output: paths unsorted, possibly repeated. Never throws.
 */
export function programsIn(
  doc: unknown,
  scope: CommandScope,
): { paths: string[]; unresolved: string[] } {
  const out = { paths: [] as string[], unresolved: [] as string[] };
  const add = (found: { paths: string[]; unresolved: string[] }) => {
    out.paths.push(...found.paths);
    out.unresolved.push(...found.unresolved);
  };
  const strings = (value: unknown[]) => value.filter((v): v is string => typeof v === "string");
  const walk = (value: unknown, depth: number, pythonPath: readonly string[] | undefined): void => {
    if (depth > 32 || typeof value !== "object" || value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1, pythonPath);
      return;
    }
    const record = value as Record<string, unknown>;
    let here: CommandScope =
      typeof record.cwd === "string" ? { ...scope, cwd: resolve(scope.root, record.cwd) } : scope;
    // An `env` block's PYTHONPATH holds for the commands of its record and of those inside
    // it (Claude Code's settings-wide `env`, an MCP entry's own).
    const env = record.env;
    const ownPath =
      typeof env === "object" && env !== null && !Array.isArray(env)
        ? (env as Record<string, unknown>).PYTHONPATH
        : undefined;
    const folders = typeof ownPath === "string" ? pythonPathFolders(ownPath, here) : pythonPath;
    if (folders !== undefined) here = { ...here, pythonPath: folders };
    const { command, args } = record;
    if (typeof command === "string") {
      if (Array.isArray(args)) add(argvPrograms([command, ...strings(args)], here));
      else add(shellCommandPrograms(command, here));
    } else if (Array.isArray(command)) {
      add(argvPrograms(strings(command), here));
    }
    if (Array.isArray(record.notify)) add(argvPrograms(strings(record.notify), here));
    for (const key of PROGRAM_SETTING_KEYS) {
      const text = record[key];
      if (typeof text === "string") add(shellCommandPrograms(text, here));
    }
    // An `env` block (Claude Code's settings, an MCP entry) can load code into what runs.
    const envBlock = record.env;
    if (typeof envBlock === "object" && envBlock !== null && !Array.isArray(envBlock)) {
      const vars = envBlock as Record<string, unknown>;
      if (typeof vars.NODE_OPTIONS === "string") {
        add(shellCommandPrograms(`node ${vars.NODE_OPTIONS}`, here));
      }
      for (const name of ENV_SCRIPT_VARIABLES) {
        const file = vars[name];
        if (typeof file === "string" && file !== "") add(argvPrograms(["sh", file], here));
      }
    }
    for (const [key, inner] of Object.entries(record)) {
      if (key !== "command" && key !== "args" && key !== "notify") walk(inner, depth + 1, folders);
    }
  };
  walk(doc, 0, scope.pythonPath);
  return out;
}

/** A settings file parsed (JSON, or TOML for `.toml`), undefined when absent or unreadable. */
function readSettings(file: string): unknown {
  let text: string;
  try {
    if (!statSync(file).isFile()) return undefined;
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    if (file.endsWith(".toml")) return parseToml(text);
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
}

/** The YAML front matter of a Markdown file (between its first two `---` lines), parsed. */
function frontMatterOf(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\s*(?:\r?\n|$)/.exec(text);
  if (match === null) return undefined;
  try {
    const doc = parseYaml(match[1] as string) as unknown;
    return typeof doc === "object" && doc !== null && !Array.isArray(doc)
      ? (doc as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const isHooksJson = (name: string) => name === "hooks.json";

/** Files under `dir` (`WALK_DEPTH` levels, symlinks not followed) whose name `keep` accepts. */
function walkFiles(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (folder: string, depth: number) => {
    if (depth > WALK_DEPTH) return;
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(folder, name);
      let isDir = false;
      try {
        isDir = lstatSync(path).isDirectory();
      } catch {
        continue;
      }
      if (isDir) walk(path, depth + 1);
      else if (keep(name)) out.push(path);
    }
  };
  if (isAbsolute(dir)) walk(dir, 0);
  return out;
}
