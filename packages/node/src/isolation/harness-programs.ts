/**
 * The workspace files an agent harness runs as programs outside every check (docs/design.md
 * §3b, "Gate files"; docs/guarantees.md): the scripts its hooks name and the programs its MCP
 * server lists start. A harness runs them with the user's rights (Claude Code runs hooks
 * outside its own sandbox), so an agent that rewrites one gets code run where the signing key
 * and the hook sessions are: they are gate files like the settings that name them.
 *
 * Read from the settings files of every harness turngate knows (project and user level):
 * every `command` string (shell words; `$CLAUDE_PROJECT_DIR`, `$CURSOR_PROJECT_DIR` and
 * `$PWD` read as the workspace root), the `args` list beside a `command`, and Codex's
 * `notify` list. A word names a workspace file when it is a path inside the root (absolute,
 * or relative with a `/`, resolved against the root: the harnesses run project hooks there),
 * or when it is a later word (an interpreter's script, `python3 hook.py`) naming an existing
 * file at the root (an npm package name, `@scope/name`, is not a path). Not followed: what such a program imports or sources, and the project
 * dependencies a hook runs (`npx prettier`, a virtualenv's tools); docs/guarantees.md names
 * that residual.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { shellWords, splitShellCommand } from "@turngate/core";
import { parse as parseToml } from "smol-toml";
import { HOOK_SETTINGS_PATHS } from "./confine.js";

/** Variables a harness sets to the project folder when it runs a hook; read as the root. */
export const PROJECT_DIR_VARIABLES: readonly string[] = Object.freeze([
  "CLAUDE_PROJECT_DIR",
  "CURSOR_PROJECT_DIR",
  "PWD",
]);

/** Folders of plugins (goose) walked for their `hooks.json`, and how deep. */
const PLUGIN_DEPTH = 3;

/**
 * The settings files whose commands `harnessProgramPaths` reads (absolute paths; they need
 * not exist): the workspace's `HOOK_SETTINGS_PATHS` files, the `hooks.json` files under
 * its `.agents/plugins/`, and the user-level ones: Claude Code's `settings.json` (in
 * `CLAUDE_CONFIG_DIR`, else `~/.claude`), Codex's `hooks.json` and `config.toml` (in
 * `CODEX_HOME`, else `~/.codex`), Cursor's `hooks.json` and `mcp.json` (`~/.cursor`) and
 * goose's plugins (`~/.agents/plugins/`). Input: the workspace root (absolute) and the
 * environment (`HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`). Never throws.
 */
export function harnessSettingsFiles(root: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || homedir();
  const files: string[] = [];
  for (const rel of HOOK_SETTINGS_PATHS) {
    if (rel === ".agents/plugins") files.push(...pluginHookFiles(join(root, rel)));
    else files.push(join(root, rel));
  }
  files.push(join(env.CLAUDE_CONFIG_DIR || join(home, ".claude"), "settings.json"));
  const codexHome = env.CODEX_HOME || join(home, ".codex");
  files.push(join(codexHome, "hooks.json"), join(codexHome, "config.toml"));
  files.push(join(home, ".cursor", "hooks.json"), join(home, ".cursor", "mcp.json"));
  files.push(...pluginHookFiles(join(home, ".agents", "plugins")));
  return [...new Set(files)];
}

/**
 * The workspace files the harnesses' settings name as programs (see the module docs), as
 * sorted absolute paths without duplicates: never the root itself, an existing folder, or
 * one of the settings files. A file that is absent still counts (an agent could create it).
 * Input: the workspace root (absolute), the environment (`harnessSettingsFiles`). A settings
 * file that is absent or cannot be parsed names nothing here (the settings files are gate
 * files themselves). Never throws.
 */
export function harnessProgramPaths(root: string, env: NodeJS.ProcessEnv): string[] {
  const settings = harnessSettingsFiles(root, env);
  const found = new Set<string>();
  for (const file of settings) {
    const doc = readSettings(file);
    if (doc === undefined) continue;
    for (const path of programPathsIn(doc, root)) found.add(path);
  }
  for (const file of settings) found.delete(file);
  return [...found].sort();
}

/**
 * The workspace paths one parsed settings document names as programs (see the module
 * docs). Input: the document (JSON or TOML, as parsed) and the workspace root (absolute).
 * Output: absolute paths, unsorted, possibly repeated. Pure but for `lstat`/`stat` of
 * candidate paths. Never throws.
 */
export function programPathsIn(doc: unknown, root: string): string[] {
  const out: string[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (depth > 32 || typeof value !== "object" || value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1);
      return;
    }
    const record = value as Record<string, unknown>;
    const command = record.command;
    const args = Array.isArray(record.args) ? record.args : undefined;
    if (typeof command === "string") {
      if (args === undefined) out.push(...commandPaths(command, root));
      else {
        const words = [command, ...args.filter((a): a is string => typeof a === "string")];
        out.push(...wordPaths(words, root));
      }
    } else if (Array.isArray(command)) {
      out.push(
        ...wordPaths(
          command.filter((a): a is string => typeof a === "string"),
          root,
        ),
      );
    }
    if (Array.isArray(record.notify)) {
      out.push(
        ...wordPaths(
          record.notify.filter((a): a is string => typeof a === "string"),
          root,
        ),
      );
    }
    for (const [key, inner] of Object.entries(record)) {
      if (key !== "command" && key !== "args" && key !== "notify") walk(inner, depth + 1);
    }
  };
  walk(doc, 0);
  return out;
}

/** The workspace paths of one shell command string (every simple command of its list). */
function commandPaths(command: string, root: string): string[] {
  const text = withProjectDir(command, root);
  const out: string[] = [];
  for (const segment of splitShellCommand(text)) {
    const words: string[] = [];
    let skipNext = false;
    let assignments = true;
    for (const word of shellWords(segment.text)) {
      if (skipNext) {
        skipNext = false;
        continue;
      }
      // Redirections: `>log`, `2>>err`, `&>out`, or `>` followed by its target word.
      const redirect = /^(\d*|&)(>>?|<<?|>\||<>)(&?\d*-?)$/.exec(word.raw);
      if (redirect !== null) {
        if (redirect[3] === "") skipNext = true;
        continue;
      }
      if (/^(\d*|&)(>>?|<<?|>\||<>)/.test(word.raw)) continue;
      if (word.value === null) {
        words.push("");
        assignments = false;
        continue;
      }
      if (assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.value)) continue;
      assignments = false;
      words.push(word.value);
    }
    out.push(...wordPaths(words, root));
  }
  return out;
}

/**
 * `$VAR` and `${VAR}` of `PROJECT_DIR_VARIABLES` replaced by the root, when the root holds no
 * character the shell would read (a root that does leaves them as computed words, which name
 * nothing).
 */
function withProjectDir(command: string, root: string): string {
  if (/[\s'"`$\\;&|<>(){}*?[\]#~!]/.test(root)) return command;
  let text = command;
  for (const name of PROJECT_DIR_VARIABLES) {
    text = text.replace(new RegExp(`\\$\\{${name}\\}|\\$${name}(?![A-Za-z0-9_])`, "g"), root);
  }
  return text;
}

/** The workspace paths among a program's words (the first is the program itself). */
function wordPaths(words: readonly string[], root: string): string[] {
  const out: string[] = [];
  words.forEach((word, index) => {
    if (word === "") return;
    let value = word;
    if (value.startsWith("-")) {
      const eq = value.indexOf("=");
      if (eq < 0) return;
      value = value.slice(eq + 1);
      if (value === "") return;
    }
    // An npm package name (`npx @scope/server`) is not a path; `~/…` is the home folder's.
    if (value.startsWith("@") || value.startsWith("~")) return;
    const bare = !isAbsolute(value) && !value.includes("/");
    if (bare && (index === 0 || value === "." || value === "..")) return;
    const path = resolve(root, value);
    const rel = relative(root, path);
    if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return;
    let kind: "file" | "folder" | "absent";
    try {
      kind = statSync(path).isDirectory() ? "folder" : "file";
    } catch {
      kind = existsSync(path) || isLink(path) ? "file" : "absent";
    }
    if (kind === "folder") return;
    if (bare && kind === "absent") return;
    out.push(path);
  });
  return out;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
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

/** Every `hooks.json` under a plugins folder (goose), `PLUGIN_DEPTH` levels deep. */
function pluginHookFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (folder: string, depth: number) => {
    if (depth > PLUGIN_DEPTH) return;
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
      else if (name === "hooks.json") out.push(path);
    }
  };
  walk(dir, 0);
  return out;
}
