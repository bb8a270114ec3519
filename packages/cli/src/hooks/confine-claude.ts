import { homedir } from "node:os";
import { join } from "node:path";
import { CLAUDE_GATE_FOLDERS } from "@turngate/node";
import type { ClaudeLaunch } from "./claude-launch.js";
import {
  expandHome,
  type HookTrustJudgement,
  PATTERN_CHARACTERS,
  type ProtectedPaths,
  within,
} from "./confine-paths.js";

type Json = Record<string, unknown>;

/**
 * Claude Code's settings files a confined hook reads and protects (Claude Code settings
 * docs): the user's `~/.claude/settings.json`, the project's `.claude/settings.json` and
 * `.claude/settings.local.json`. Managed (administrator) settings are not the agent's to
 * change and are not read.
 */
export function claudeSettingsFiles(root: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? homedir();
  return [
    join(home, ".claude", "settings.json"),
    join(root, ".claude", "settings.json"),
    join(root, ".claude", "settings.local.json"),
  ];
}

/** The entries `--confine` adds to Claude Code's settings (docs/hooks.md "Confined hooks"). */
export interface ClaudeConfineRules {
  /** `sandbox.filesystem.denyRead`: the protected folders and files. */
  denyRead: string[];
  /**
   * `sandbox.filesystem.denyWrite`: the protected folders and files, the settings files, and
   * the workspace programs the settings name (`harnessGateFiles`).
   */
  denyWrite: string[];
  /** `permissions.deny`: `Read(//…)` and `Edit(//…)` of each protected path, `Edit` of the settings files. */
  deny: string[];
}

/** A permission rule's absolute path: `//` starts an absolute path (Claude Code permissions docs). */
const absoluteRule = (tool: "Read" | "Edit", path: string, dir: boolean) =>
  `${tool}(/${path.replace(/\/+$/, "")}${dir ? "/**" : ""})`;

/**
 * The rules that keep Claude Code's tools out of turngate's state and key and off its own
 * settings (Claude Code settings docs, sandbox and permissions): the sandboxed shell gets
 * `sandbox.filesystem.denyRead` / `denyWrite` on each protected path (absolute paths); the
 * file tools (Read, Edit, Write and the searches) get `permissions.deny` rules
 * `Read(//path/**)` and `Edit(//path/**)` (a file: without `/**`); the settings files get
 * `Edit(//file)` and `denyWrite` as absolute paths, plus `Edit(.claude/settings.json)` and
 * `Edit(.claude/settings.local.json)` relative to the folder Claude Code runs in (for a
 * user-level install, which cannot name every project); the workspace programs the harnesses'
 * settings name (`programs`: hook scripts, MCP servers, which Claude Code runs outside its
 * sandbox) get `denyWrite` and `Edit(//file)` like the settings files; so do the gate folders
 * whose front matter can hold hooks (`gateFolders`: the workspace's `CLAUDE_GATE_FOLDERS`,
 * `Edit(//folder/**)`, and `Edit(.claude/agents/**)`, … relative to the folder Claude Code
 * runs in).
 * Errors: `Error` naming a path that holds pattern characters (`*?[]{}()\!`): such a rule
 * would match something else, so nothing is written.
 */
export function claudeConfineRules(
  paths: ProtectedPaths,
  settingsFiles: readonly string[],
  programs: readonly string[] = [],
  gateFolders: readonly string[] = [],
): ClaudeConfineRules {
  for (const path of [
    ...paths.dirs,
    ...paths.files,
    ...settingsFiles,
    ...programs,
    ...gateFolders,
  ]) {
    if (PATTERN_CHARACTERS.test(path)) {
      throw new Error(
        `${path} holds a character Claude Code reads as a pattern (${PATTERN_CHARACTERS.source}), so a rule cannot name it; move turngate's state (TURNGATE_HOOK_STATE_DIR, XDG_STATE_HOME) and run the install again; nothing was written`,
      );
    }
  }
  const denied = [...paths.dirs, ...paths.files];
  return {
    denyRead: denied,
    denyWrite: [...denied, ...settingsFiles, ...programs, ...gateFolders],
    deny: [
      ...paths.dirs.flatMap((d) => [absoluteRule("Read", d, true), absoluteRule("Edit", d, true)]),
      ...paths.files.flatMap((f) => [
        absoluteRule("Read", f, false),
        absoluteRule("Edit", f, false),
      ]),
      ...settingsFiles.map((f) => absoluteRule("Edit", f, false)),
      ...programs.map((f) => absoluteRule("Edit", f, false)),
      ...gateFolders.map((d) => absoluteRule("Edit", d, true)),
      "Edit(.claude/settings.json)",
      "Edit(.claude/settings.local.json)",
      ...CLAUDE_GATE_FOLDERS.map((d) => `Edit(${d}/**)`),
    ],
  };
}

/**
 * Merge the confinement into a Claude Code settings document (in place): `sandbox.enabled`,
 * `sandbox.failIfUnavailable` (Claude Code refuses to start when its sandbox cannot run,
 * instead of running commands unsandboxed) set `true`; `sandbox.allowUnsandboxedCommands`
 * set `false` (the `dangerouslyDisableSandbox` escape is ignored); the rules appended to
 * `sandbox.filesystem.denyRead` / `denyWrite` and `permissions.deny` where missing. Every
 * other key and list entry is kept.
 * Errors: `Error` naming the file when `sandbox`, `sandbox.filesystem` or `permissions` is
 * not an object, or one of the lists is not a list.
 */
export function applyClaudeConfine(doc: Json, rules: ClaudeConfineRules, file: string): void {
  const sandbox = objectAt(doc, "sandbox", file);
  sandbox.enabled = true;
  sandbox.failIfUnavailable = true;
  sandbox.allowUnsandboxedCommands = false;
  const filesystem = objectAt(sandbox, "filesystem", file, "sandbox.");
  appendMissing(filesystem, "denyRead", rules.denyRead, file, "sandbox.filesystem.");
  appendMissing(filesystem, "denyWrite", rules.denyWrite, file, "sandbox.filesystem.");
  appendMissing(objectAt(doc, "permissions", file), "deny", rules.deny, file, "permissions.");
}

/**
 * What Claude Code's settings files (their text at turn start) let a hook record
 * (docs/hooks.md "Confined hooks"): `confined` when, across the user, project and local
 * files, the sandbox is on (`enabled` and `failIfUnavailable` true in some file, false in
 * none), its escape is off (`allowUnsandboxedCommands` false in some file), nothing weakens
 * it (`filesystem.disabled`, `enableWeakerNestedSandbox`, `allowNestedUserNamespaces`, a
 * non-empty `excludedCommands`), the merged `denyRead` and `denyWrite` cover every protected
 * path and `permissions.deny` holds `Read` and `Edit` rules covering each, and the settings
 * files themselves are denied to `Edit`; otherwise `unsandboxed`, naming the first gap.
 * A file that is not a JSON object counts as a gap. Claude Code's launch (`claudeLaunch`)
 * joins in: a weakening flag is a gap, and the managed settings and `--settings` join the
 * merge (not the `Edit` check: the agent cannot change how Claude Code was launched); a gap
 * they cause is named "(set by …)". Each workspace program the settings name (`programs`: a
 * hook script, an MCP server, run outside the sandbox) must be covered by `denyWrite` and an
 * `Edit(//…)` rule, or the agent could have code run where the key is: a gap; so is a program
 * word computed when it runs (`unresolved`: `$RUNNER`, `$(cat x)`).
 * Input: each settings file's path and text (null: absent), the protected paths, the env
 * (`~`), the launch (default: none), the programs (absolute paths; default none), the
 * unresolved words (`<file>: <word>`; default none).
 */
export function judgeClaudeSettings(
  files: readonly { path: string; text: string | null }[],
  paths: ProtectedPaths,
  env: NodeJS.ProcessEnv,
  launch: ClaudeLaunch = { settings: [], gap: null },
  programs: readonly string[] = [],
  unresolved: readonly string[] = [],
): HookTrustJudgement {
  if (launch.gap !== null) return unsandboxed(launch.gap);
  const computed = unresolved[0];
  if (computed !== undefined)
    return unsandboxed(
      `${computed} computes the program a hook or MCP server runs outside Claude Code's sandbox, so turngate cannot tell which file that is or keep the agent from rewriting it`,
    );
  const given = launch.settings.filter((f) => f.text !== null && f.text.trim() !== "");
  const judged = judgeSettingsFiles(files, given, paths, env, programs);
  if (judged.level === "confined" || given.length === 0) return judged;
  // Name the launch settings when they, not the files, are what lowers the trust.
  const filesAlone = judgeSettingsFiles(files, [], paths, env, programs);
  if (filesAlone.level !== "confined") return judged;
  return unsandboxed(`${judged.why} (set by ${given.map((f) => f.path).join(" and ")})`);
}

function judgeSettingsFiles(
  files: readonly { path: string; text: string | null }[],
  launched: readonly { path: string; text: string | null }[],
  paths: ProtectedPaths,
  env: NodeJS.ProcessEnv,
  programs: readonly string[],
): HookTrustJudgement {
  const docs: Json[] = [];
  for (const file of [...files, ...launched]) {
    if (file.text === null || file.text.trim() === "") continue;
    try {
      const value = JSON.parse(file.text.replace(/^\uFEFF/, "")) as unknown;
      if (!isObject(value)) throw new Error("not an object");
      docs.push(value);
    } catch {
      return unsandboxed(`${file.path} cannot be read as a JSON object`);
    }
  }
  // CLAUDE_CONFIG_DIR moves Claude Code's user settings out of ~/.claude: --confine neither
  // wrote nor protected the file it then reads.
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (configDir !== undefined && configDir !== "") {
    return unsandboxed(
      `CLAUDE_CONFIG_DIR (${configDir}) moves Claude Code's user settings where --confine did not write or protect them`,
    );
  }
  const sandboxes = docs.map((d) => (isObject(d.sandbox) ? d.sandbox : {}));
  const flag = (key: string) => sandboxes.map((s) => s[key]);
  if (!flag("enabled").includes(true) || flag("enabled").includes(false))
    return unsandboxed("Claude Code's sandbox is not enabled (sandbox.enabled)");
  if (!flag("failIfUnavailable").includes(true) || flag("failIfUnavailable").includes(false))
    return unsandboxed(
      "Claude Code may run commands unsandboxed when its sandbox cannot start (sandbox.failIfUnavailable)",
    );
  if (!flag("allowUnsandboxedCommands").includes(false))
    return unsandboxed(
      "commands may leave Claude Code's sandbox (sandbox.allowUnsandboxedCommands is not false)",
    );
  for (const key of ["enableWeakerNestedSandbox", "allowNestedUserNamespaces"]) {
    if (flag(key).includes(true))
      return unsandboxed(`sandbox.${key} weakens Claude Code's sandbox`);
  }
  if (sandboxes.some((s) => Array.isArray(s.excludedCommands) && s.excludedCommands.length > 0))
    return unsandboxed("sandbox.excludedCommands runs some commands outside Claude Code's sandbox");
  // A Unix socket is a way out of the sandbox to a process outside it.
  const networks = sandboxes.map((s) => (isObject(s.network) ? s.network : {}));
  for (const holder of [...sandboxes, ...networks]) {
    if (holder.allowAllUnixSockets === true || strings(holder.allowUnixSockets).length > 0)
      return unsandboxed(
        "sandbox allows Unix sockets (allowUnixSockets / allowAllUnixSockets): a command could reach a process outside the sandbox",
      );
  }
  const filesystems = sandboxes.map((s) => (isObject(s.filesystem) ? s.filesystem : {}));
  if (filesystems.some((f) => f.disabled === true))
    return unsandboxed("sandbox.filesystem.disabled turns the sandbox's file rules off");
  const merged = (key: string) =>
    filesystems.flatMap((f) => strings(f[key])).map((p) => expandHome(p, env));
  const denyRules = docs.flatMap((d) => strings(isObject(d.permissions) ? d.permissions.deny : []));
  const ruled = (tool: "Read" | "Edit") =>
    denyRules.flatMap((rule) => {
      const match = new RegExp(`^${tool}\\(//(.+?)(/\\*\\*)?\\)$`).exec(rule);
      return match ? [`/${match[1]}`] : [];
    });
  for (const path of [...paths.dirs, ...paths.files]) {
    // allowRead takes precedence over denyRead (Claude Code settings docs): an entry at, above
    // or below a protected path opens (part of) it again.
    const reopened = merged("allowRead").find((a) => within(path, a) || within(a, path));
    if (reopened !== undefined)
      return unsandboxed(`sandbox.filesystem.allowRead ${reopened} re-opens ${path}`);
    if (!merged("denyRead").some((d) => within(path, d)))
      return unsandboxed(`sandbox.filesystem.denyRead does not cover ${path}`);
    if (!merged("denyWrite").some((d) => within(path, d)))
      return unsandboxed(`sandbox.filesystem.denyWrite does not cover ${path}`);
    for (const tool of ["Read", "Edit"] as const) {
      if (!ruled(tool).some((d) => within(path, d)))
        return unsandboxed(`permissions.deny has no ${tool}(//…) rule covering ${path}`);
    }
  }
  for (const program of programs) {
    if (
      !merged("denyWrite").some((d) => within(program, d)) ||
      !ruled("Edit").some((d) => within(program, d))
    )
      return unsandboxed(
        `${program} holds code Claude Code runs outside its sandbox (a hook's or MCP server's program, or subagent, skill and command front matter), and no sandbox.filesystem.denyWrite and Edit(//…) rule keeps the agent from rewriting it (run turngate hook install claude-code --confine again to add them)`,
      );
  }
  const [userFile, ...projectFiles] = files.map((f) => f.path);
  if (userFile !== undefined && !ruled("Edit").includes(userFile))
    return unsandboxed(`permissions.deny does not deny Edit of ${userFile}`);
  for (const file of projectFiles) {
    const relativeRule = `Edit(.claude/${file.split("/").at(-1)})`;
    if (!ruled("Edit").includes(file) && !denyRules.includes(relativeRule))
      return unsandboxed(`permissions.deny does not deny Edit of ${file}`);
  }
  return { level: "confined", why: "" };
}

/**
 * What Claude Code's `permission_mode` (the hook payload's) lets a hook record:
 * `bypassPermissions` never `confined` (tool calls skip the permission checks); a mode the
 * payload does not give is not trusted either. Other modes (`default`, `acceptEdits`,
 * `plan`, `dontAsk`, `auto`) keep the deny rules and the sandbox.
 */
export function judgeClaudeMode(mode: unknown): HookTrustJudgement {
  if (typeof mode !== "string") return unsandboxed("the payload names no permission_mode");
  if (mode === "bypassPermissions")
    return unsandboxed("Claude Code runs with permission_mode bypassPermissions");
  return { level: "confined", why: "" };
}

function unsandboxed(why: string): HookTrustJudgement {
  return { level: "unsandboxed", why };
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function objectAt(doc: Json, key: string, file: string, prefix = ""): Json {
  if (doc[key] === undefined) doc[key] = {};
  const value = doc[key];
  if (!isObject(value))
    throw new Error(
      `"${prefix}${key}" in ${file} is not an object; fix it by hand, nothing was written`,
    );
  return value;
}

function appendMissing(
  doc: Json,
  key: string,
  values: readonly string[],
  file: string,
  prefix: string,
): void {
  if (doc[key] === undefined) doc[key] = [];
  const list = doc[key];
  if (!Array.isArray(list))
    throw new Error(
      `"${prefix}${key}" in ${file} is not a list; fix it by hand, nothing was written`,
    );
  for (const value of values) if (!list.includes(value)) list.push(value);
}
