import { readFile, rm, rmdir } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CLAUDE_GATE_FOLDERS, harnessGateFiles, writeFileAtomic } from "@turngate/node";
import { ADAPTERS, type Harness } from "./adapters/index.js";
import { applyClaudeConfine, claudeConfineRules, claudeSettingsFiles } from "./confine-claude.js";
import { codexConfigFiles, confineCodexToml } from "./confine-codex.js";
import { protectedPaths } from "./confine-paths.js";

/** The harnesses `turngate hook install --confine` writes a sandbox for (docs/hooks.md "Confined hooks"). */
export const CONFINABLE: readonly Harness[] = ["claude-code", "codex"];

/** Seconds a stop hook may run (the checks run inside it); the harnesses' defaults are 30–60 s. */
export const STOP_HOOK_TIMEOUT_S = 600;

/** Where an install writes: the project's hook file (default) or the user's (`--user`). */
export type InstallScope = "user" | "project";

/** One file an install or uninstall changes. */
export interface PlannedFile {
  path: string;
  /** The file's text before (null: it does not exist). */
  before: string | null;
  /** The file's text after (null: it is removed). */
  after: string | null;
}

/** What `planInstall` / `planUninstall` would do. */
export interface InstallPlan {
  harness: Harness;
  scope: InstallScope;
  files: PlannedFile[];
}

/**
 * The hook configuration files of `harness` at `scope` (issue 19 item 2, issue 34 item 4):
 * - claude-code: `~/.claude/settings.json` / `<root>/.claude/settings.local.json` (the
 *   project's personal file, not the team-shared `settings.json`);
 * - codex: `$CODEX_HOME/hooks.json` (default `~/.codex`) / `<root>/.codex/hooks.json`;
 * - cursor: `~/.cursor/hooks.json` / `<root>/.cursor/hooks.json`;
 * - goose: the plugin `~/.agents/plugins/turngate/` / `<root>/.agents/plugins/turngate/`
 *   (`plugin.json` and `hooks/hooks.json`).
 */
export function hookFiles(
  harness: Harness,
  scope: InstallScope,
  root: string,
  env: NodeJS.ProcessEnv,
): { config: string; plugin?: string } {
  const home = env.HOME ?? homedir();
  switch (harness) {
    case "claude-code":
      return {
        config: join(
          scope === "user" ? join(home, ".claude") : join(root, ".claude"),
          scope === "user" ? "settings.json" : "settings.local.json",
        ),
      };
    case "codex":
      return {
        config: join(
          scope === "user" ? (env.CODEX_HOME ?? join(home, ".codex")) : join(root, ".codex"),
          "hooks.json",
        ),
      };
    case "cursor":
      return {
        config: join(
          scope === "user" ? join(home, ".cursor") : join(root, ".cursor"),
          "hooks.json",
        ),
      };
    case "goose": {
      const plugin = join(scope === "user" ? home : root, ".agents", "plugins", "turngate");
      return { config: join(plugin, "hooks", "hooks.json"), plugin: join(plugin, "plugin.json") };
    }
  }
}

/**
 * Whether a hook command is one of turngate's for `harness` (`… hook <harness> <Event>`, a
 * user-level one ending `--user`).
 */
export function isOurCommand(command: unknown, harness: Harness): boolean {
  return (
    typeof command === "string" &&
    new RegExp(`(^|\\s)hook\\s+${harness}\\s+[A-Za-z]+(\\s+--user)?\\s*$`).test(command)
  );
}

/** Whether the JSON text of a hook file holds one of turngate's commands for `harness`. */
export function holdsOurCommand(text: string | null, harness: Harness): boolean {
  if (text === null) return false;
  let found = false;
  const walk = (value: unknown): void => {
    if (found || typeof value !== "object" || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === "command" && isOurCommand(inner, harness)) found = true;
      else walk(inner);
    }
  };
  try {
    walk(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
  } catch {
    return false;
  }
  return found;
}

type Json = Record<string, unknown>;

/**
 * The plan of `turngate hook install <harness>`: every event of the adapter's
 * `installEntries` gets one entry running `<command> hook <harness> <Event>` (stop events
 * with a 600 s timeout; Cursor's `stop` with `loop_limit` 5; at user scope the command ends
 * `--user`, so the hook gates only projects that opted in). An entry of ours already there
 * is updated in place; every other entry, key and event is kept as it was; the file keeps
 * its indentation. Installing twice changes nothing the second time.
 * With `confine` (`--confine`, issue 32 item 2, docs/hooks.md "Confined hooks") the
 * harness's own sandbox settings are merged in beside the hooks, keeping the agent's shell
 * and file tools off turngate's state folder and signing key (`protectedPaths`):
 * Claude Code — the same settings file gets the `sandbox` block and `permissions.deny`
 * rules (`applyClaudeConfine`), which also keep the agent off the workspace programs the
 * harnesses' settings name (`harnessGateFiles`); Codex — the scope's `config.toml` gets
 * `sandbox_mode = "workspace-write"` (`confineCodexToml`), which cannot hide the key.
 * Input: harness, scope, workspace root, the command that runs turngate, env (HOME,
 * CODEX_HOME, the state and key variables), and `options.cwd` (a relative
 * `TURNGATE_SIGNING_KEY`). Output: the files with their text before and after.
 * Errors: `Error` naming the file when it is not a JSON object (or, for Codex's
 * `config.toml`, not TOML), `Error` naming the supported harnesses when `confine` is asked
 * of another, and the confinement's own refusals (nothing is written then).
 */
export async function planInstall(
  harness: Harness,
  scope: InstallScope,
  root: string,
  command: string,
  env: NodeJS.ProcessEnv,
  options: { confine?: boolean; cwd?: string } = {},
): Promise<InstallPlan> {
  if (options.confine === true && !CONFINABLE.includes(harness)) {
    throw new Error(
      `--confine writes a harness's sandbox settings for ${CONFINABLE.join(" and ")} only; turngate cannot confine ${harness}'s agent (nothing was written)`,
    );
  }
  const paths = protectedPaths(env, options.cwd ?? root);
  const files = hookFiles(harness, scope, root, env);
  const before = await readText(files.config);
  const doc = parseConfig(before, files.config);
  const adapter = ADAPTERS[harness];
  if (harness === "cursor" && doc.version === undefined) doc.version = 1;
  const hooks = objectAt(doc, "hooks", files.config);
  for (const entry of adapter.installEntries) {
    const line = `${command} hook ${harness} ${entry.event}${scope === "user" ? " --user" : ""}`;
    const isStop = adapter.eventKind(entry.event) === "stop";
    const list = arrayAt(hooks, entry.event, files.config);
    if (harness === "cursor") {
      const mine = list.find((item) => isOurCommand((item as Json)?.command, harness));
      const wanted: Json = { command: line, ...(isStop ? { loop_limit: 5 } : {}) };
      if (mine) Object.assign(mine as Json, wanted);
      else list.push(wanted);
      continue;
    }
    const handler: Json = {
      type: "command",
      command: line,
      ...(isStop ? { timeout: STOP_HOOK_TIMEOUT_S } : {}),
    };
    let placed = false;
    for (const group of list) {
      const inner = (group as Json)?.hooks;
      if (!Array.isArray(inner)) continue;
      const at = inner.findIndex((h) => isOurCommand((h as Json)?.command, harness));
      if (at >= 0) {
        inner[at] = { ...(inner[at] as Json), ...handler };
        if (entry.matcher !== undefined) (group as Json).matcher = entry.matcher;
        placed = true;
      }
    }
    if (!placed)
      list.push({
        ...(entry.matcher !== undefined ? { matcher: entry.matcher } : {}),
        hooks: [handler],
      });
  }
  if (options.confine === true && harness === "claude-code") {
    const settings = scope === "user" ? [files.config] : claudeSettingsFiles(root, env);
    const programs = harnessGateFiles(root, env);
    const folders = CLAUDE_GATE_FOLDERS.map((rel) => join(root, rel));
    applyClaudeConfine(doc, claudeConfineRules(paths, settings, programs, folders), files.config);
  }
  const planned: PlannedFile[] = [{ path: files.config, before, after: serialize(doc, before) }];
  if (options.confine === true && harness === "codex") {
    const [userToml, projectToml] = codexConfigFiles(root, env) as [string, string];
    const toml = scope === "user" ? userToml : projectToml;
    const tomlBefore = await readText(toml);
    const guarded = [toml, files.config];
    planned.push({
      path: toml,
      before: tomlBefore,
      after: confineCodexToml(tomlBefore, toml, paths, guarded, env),
    });
  }
  if (files.plugin) {
    const pluginBefore = await readText(files.plugin);
    const manifest = {
      name: "turngate",
      version: "0.1.0",
      description: "turngate: end the turn only when a passing check is bound to the changed bytes",
    };
    planned.push({
      path: files.plugin,
      before: pluginBefore,
      after: serialize(manifest, pluginBefore),
    });
  }
  return { harness, scope, files: planned };
}

/**
 * The plan of `turngate hook uninstall <harness>`: only turngate's entries are removed
 * (`isOurCommand`); a group, event list or `hooks` object left empty by that is removed
 * too; everything else stays. Goose's plugin folder is turngate's own: its two files go.
 * Output: the files with their text before and after (after null: the file is removed).
 */
export async function planUninstall(
  harness: Harness,
  scope: InstallScope,
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<InstallPlan> {
  const files = hookFiles(harness, scope, root, env);
  if (files.plugin) {
    return {
      harness,
      scope,
      files: [
        { path: files.config, before: await readText(files.config), after: null },
        { path: files.plugin, before: await readText(files.plugin), after: null },
      ],
    };
  }
  const before = await readText(files.config);
  if (before === null)
    return { harness, scope, files: [{ path: files.config, before, after: null }] };
  const doc = parseConfig(before, files.config);
  const hooks = doc.hooks;
  if (typeof hooks === "object" && hooks !== null && !Array.isArray(hooks)) {
    const map = hooks as Json;
    for (const event of Object.keys(map)) {
      const list = map[event];
      if (!Array.isArray(list)) continue;
      const kept = list.flatMap((item) => {
        const entry = item as Json;
        if (harness === "cursor") return isOurCommand(entry?.command, harness) ? [] : [item];
        const inner = entry?.hooks;
        if (!Array.isArray(inner)) return [item];
        const rest = inner.filter((h) => !isOurCommand((h as Json)?.command, harness));
        if (rest.length === inner.length) return [item];
        return rest.length === 0 ? [] : [{ ...entry, hooks: rest }];
      });
      if (kept.length === 0) delete map[event];
      else map[event] = kept;
    }
    if (Object.keys(map).length === 0) delete doc.hooks;
  }
  return { harness, scope, files: [{ path: files.config, before, after: serialize(doc, before) }] };
}

/** Write a plan: each changed file atomically (or removed). Output: the paths changed. */
export async function applyPlan(plan: InstallPlan): Promise<string[]> {
  const changed: string[] = [];
  for (const file of plan.files) {
    if (file.before === file.after) continue;
    if (file.after === null) await rm(file.path, { force: true });
    else await writeFileAtomic(file.path, file.after);
    changed.push(file.path);
  }
  if (plan.harness === "goose" && plan.files.every((f) => f.after === null)) {
    const pluginDir = dirname(plan.files[1]?.path ?? "");
    // Only the folders left empty: a file someone else put there keeps them.
    await rmdir(join(pluginDir, "hooks")).catch(() => {});
    await rmdir(pluginDir).catch(() => {});
  }
  return changed;
}

/**
 * A unified-style line diff of `before` → `after` (`--- path`, `+++ path`, then every line
 * prefixed with ` `, `-` or `+`, by longest common subsequence; hook files are small).
 */
export function lineDiff(path: string, before: string | null, after: string | null): string {
  const a = before === null ? [] : before.replace(/\n$/, "").split("\n");
  const b = after === null ? [] : after.replace(/\n$/, "").split("\n");
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] =
        a[i] === b[j]
          ? (lcs[i + 1]![j + 1] as number) + 1
          : Math.max(lcs[i + 1]![j] as number, lcs[i]![j + 1] as number);
    }
  }
  const out = [
    `--- ${before === null ? "/dev/null" : path}`,
    `+++ ${after === null ? "/dev/null" : path}`,
  ];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(` ${a[i]}`);
      i++;
      j++;
    } else if (
      j < b.length &&
      (i >= a.length || (lcs[i]![j + 1] as number) >= (lcs[i + 1]![j] as number))
    ) {
      out.push(`+${b[j]}`);
      j++;
    } else {
      out.push(`-${a[i]}`);
      i++;
    }
  }
  return `${out.join("\n")}\n`;
}

/** A file's text, or null when it does not exist. Errors: other `fs` errors. */
export async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function parseConfig(text: string | null, path: string): Json {
  if (text === null || text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new Error(
      `${path} is not JSON (${(error as Error).message}); fix it by hand, nothing was written`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`${path} is not a JSON object; fix it by hand, nothing was written`);
  }
  return value as Json;
}

function objectAt(doc: Json, key: string, path: string): Json {
  const value = doc[key];
  if (value === undefined) {
    doc[key] = {};
    return doc[key] as Json;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`"${key}" in ${path} is not an object; fix it by hand, nothing was written`);
  }
  return value as Json;
}

function arrayAt(doc: Json, key: string, path: string): unknown[] {
  const value = doc[key];
  if (value === undefined) {
    doc[key] = [];
    return doc[key] as unknown[];
  }
  if (!Array.isArray(value)) {
    throw new Error(`"hooks.${key}" in ${path} is not a list; fix it by hand, nothing was written`);
  }
  return value;
}

/**
 * `value` as JSON with the indentation `before` used (default 2 spaces) and a final newline;
 * `before` itself when it already holds exactly `value` (nothing to rewrite).
 */
function serialize(value: unknown, before: string | null): string {
  if (before !== null) {
    try {
      const text = before.charCodeAt(0) === 0xfeff ? before.slice(1) : before;
      if (JSON.stringify(JSON.parse(text)) === JSON.stringify(value)) return before;
    } catch {
      // not JSON: rewritten below
    }
  }
  const indent = /\n([ \t]+)\S/.exec(before ?? "")?.[1] ?? "  ";
  return `${JSON.stringify(value, null, indent)}\n`;
}
