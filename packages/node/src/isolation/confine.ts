/**
 * The confined agent (docs/design.md §3b, docs/guarantees.md "Confined agents"): the second profile
 * of the sandbox launcher (`sandbox.ts` is the check sandbox). `turngate run --confine` (or
 * `"confine_agent": true`) runs the agent command inside bubblewrap so that it cannot reach what
 * judges it:
 *
 * - **writable**: the workspace and a private `TMPDIR` (a fresh host folder, removed after
 *   the turn), plus the folders outside the workspace the configuration's `agent_writable`
 *   names;
 * - **read-only** inside the workspace: {@link CONFINE_READ_ONLY} (`.git/` unless
 *   `agent_writable` lists it, `.turngate/`, `turngate.config.json` and the harnesses' hook
 *   settings) and the workspace programs those settings name (`harnessProgramPaths`), each bound read-only over the writable workspace when it exists; with a
 *   writable `.git/`, its `hooks/`, `config` and `info/` stay read-only; the folders between
 *   the workspace and each of them (`.claude/`, `.cursor/`) are bound writable over
 *   themselves, so they can be written in but not renamed or removed (a mount point cannot
 *   be: renaming `.claude/` would otherwise put a new `settings.json` in its place);
 * - **read-only**: everything else the user can read (`/` bound read-only, `/tmp`
 *   included: the agent command may live anywhere);
 * - **invisible**: turngate's state folder, the signing key, the hook session files and the
 *   result-cache user configuration (the user state folder), the clean rooms, turngate's
 *   own package and the user's runtime socket folders ({@link userSocketPaths}: a read-only
 *   empty tmpfs over a folder, `/dev/null` over a file);
 * - **no new unix socket**: bubblewrap installs the seccomp filter of `seccomp-unix.ts`
 *   (`socket(AF_UNIX, …)` fails with `EPERM`), so no server of the user's outside the sandbox
 *   (tmux, the D-Bus session bus, docker, an abstract socket) can be asked to act for it;
 * - **scrubbed**: every `TURNGATE_*` variable is removed from the agent's environment
 *   (`confinedAgentEnv`);
 * - **network through turngate's proxy**: its own network namespace (`--unshare-net`:
 *   only its own loopback, so its own abstract unix sockets too), whose only way out is the
 *   egress proxy turngate serves inside it (`egress-proxy.ts`), which refuses every
 *   destination on this machine (`egress-policy.ts`: a server of yours on 127.0.0.1 would
 *   act for the agent unconfined) unless `agent_network.allow` lists it;
 *   `"agent_network": "host"` keeps the host's namespace instead;
 * - its own PID, IPC, UTS and cgroup namespaces and `--die-with-parent`: the agent's whole
 *   process tree dies with it and with turngate, `setsid` and double forks included.
 */
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { userCacheConfigPath } from "../cache/host-settings.js";
import { userStateDir } from "../proofs/signing-key.js";
import { cleanRoomDir } from "./clean-room.js";
import { isWithinOrSame, namespaceArgs } from "./sandbox.js";

/**
 * Paths (relative to the workspace root) a confined agent may read but not write: git's
 * folder (unless `agent_writable` lists `.git`), turngate's folder, the gate's
 * configuration and the files that install the harnesses' hooks or the programs they start
 * (Claude Code's settings, its subagents, skills and slash commands — whose front matter can
 * hold hooks — and project MCP servers `.mcp.json`, Codex's `.codex/`, Cursor's `hooks.json`
 * and `mcp.json`, goose's plugins folder `.agents/plugins/`).
 * Each is protected whether it exists or not: an absent one gets a placeholder for the turn
 * (`confine-placeholders.ts`).
 */
export const CONFINE_READ_ONLY: readonly string[] = Object.freeze([
  ".git",
  ".turngate",
  "turngate.config.json",
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".claude/agents",
  ".claude/skills",
  ".claude/commands",
  ".mcp.json",
  ".codex",
  ".cursor/hooks.json",
  ".cursor/mcp.json",
  ".agents/plugins",
]);

/**
 * The harnesses' hook settings inside the workspace (relative paths; docs/design.md §3b,
 * docs/hooks.md): Claude Code's `.claude/settings.json` and `.claude/settings.local.json`
 * and its `.claude/agents/`, `.claude/skills/` and `.claude/commands/` folders (front matter
 * there can hold hooks, which run outside its sandbox),
 * Codex's `.codex/config.toml` and `.codex/hooks.json`, Cursor's `.cursor/hooks.json` and
 * goose's plugins folder `.agents/plugins` (a folder: any plugin in it); and the project MCP
 * server lists whose commands a harness starts on the user's machine, outside any check:
 * Claude Code's `.mcp.json` and Cursor's `.cursor/mcp.json` (Codex's are in its
 * `config.toml`). A turn that creates, changes or removes one ends `needs_review`
 * (`turngate:hook-settings`), in every mode: a harness reads them at its next start, so they
 * are the gate's configuration too.
 */
export const HOOK_SETTINGS_PATHS: readonly string[] = Object.freeze([
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".claude/agents",
  ".claude/skills",
  ".claude/commands",
  ".mcp.json",
  ".codex/config.toml",
  ".codex/hooks.json",
  ".cursor/hooks.json",
  ".cursor/mcp.json",
  ".agents/plugins",
]);

/**
 * Claude Code's folders whose Markdown front matter can hold `hooks` (subagents, skills,
 * slash commands): gate folders, denied to its tools by `hook install claude-code --confine`.
 */
export const CLAUDE_GATE_FOLDERS: readonly string[] = Object.freeze([
  ".claude/agents",
  ".claude/skills",
  ".claude/commands",
]);

/** Inside a writable `.git/`, what stays read-only (they run or configure programs). */
export const GIT_ALWAYS_READ_ONLY: readonly string[] = Object.freeze([
  ".git/hooks",
  ".git/config",
  ".git/info",
]);

/** The only workspace path `agent_writable` may name (a confined agent that commits). */
export const AGENT_WRITABLE_IN_WORKSPACE = ".git";

/** What the confined agent's sandbox is built from. Paths are absolute. */
export interface ConfineRequest {
  /** The workspace root (its real path): writable. */
  workspace: string;
  /** Where the agent starts (the workspace or a folder below it). */
  cwd: string;
  /** The agent's private temporary folder on the host (bound writable at its own path). */
  tmpdir: string;
  /** The host's environment: `HOME`, `XDG_*`, `TURNGATE_ROOM_DIR` name the hidden folders. */
  env: NodeJS.ProcessEnv;
  /** turngate's state folder of this turn (`--state-dir`, else `<root>/.turngate`). */
  stateDir?: string;
  /** The signing key file, when it is a file (`--key`, `TURNGATE_SIGNING_KEY`, the user key). */
  keyFile?: string;
  /** The configuration file, when it exists (read-only even outside the workspace). */
  configFile?: string;
  /**
   * More workspace files bound read-only when they exist: the programs the harnesses'
   * settings name (`harnessProgramPaths`, docs/design.md §3b).
   */
  readOnly?: readonly string[];
  /** More paths to hide (turngate's own package folder). */
  hide?: readonly string[];
  /** `agent_writable` entries, validated: `.git` or absolute folders outside the workspace. */
  agentWritable?: readonly string[];
  /** Start the agent in a new session (no controlling terminal); false on a terminal. */
  newSession: boolean;
  /** The user's id (`/run/user/<uid>`, `/tmp/tmux-<uid>`); default `process.getuid()`. */
  uid?: number;
  /**
   * The agent's network (`agent_network`): `proxy` (default), its own network namespace
   * whose only way out is turngate's egress proxy (`egress-proxy.ts`); `host`, the host's
   * network namespace (a server of yours on 127.0.0.1 then takes the agent's requests).
   */
  network?: AgentNetwork;
}

/** A confined agent's network: its own namespace behind turngate's proxy, or the host's. */
export type AgentNetwork = "proxy" | "host";

/** One path a confined agent cannot see: a folder (empty read-only tmpfs) or a file (`/dev/null`). */
export interface HiddenPath {
  path: string;
  kind: "folder" | "file";
}

/** The resolved sandbox of a confined agent ({@link confinePlan}). */
export interface ConfinePlan {
  workspace: string;
  cwd: string;
  tmpdir: string;
  /** Bound read-only over themselves (inside the workspace, or the configuration file). */
  readOnly: string[];
  /**
   * Folders inside the workspace that hold a read-only path, bound writable over
   * themselves before the read-only paths: a mount point cannot be renamed or removed.
   */
  pinned: string[];
  /** Folders outside the workspace bound writable (`agent_writable`). */
  writable: string[];
  /** Made invisible, applied last. */
  hidden: HiddenPath[];
  newSession: boolean;
  /** The agent's network ({@link AgentNetwork}). */
  network: AgentNetwork;
}

/**
 * Resolve what the confined agent may write, read and see (see the module docs). Only
 * existing paths are mounted (bubblewrap would otherwise create mount points on the host);
 * a hidden path that holds the workspace, its start folder or the private `TMPDIR` is left
 * visible (hiding it would hide the workspace). Paths are compared after `realpath`.
 * Output: {@link ConfinePlan}. Never throws.
 */
export function confinePlan(request: ConfineRequest): ConfinePlan {
  const workspace = real(request.workspace);
  const gitWritable = (request.agentWritable ?? []).includes(AGENT_WRITABLE_IN_WORKSPACE);
  const readOnly: string[] = [];
  const addReadOnly = (path: string) => {
    if (!existsSync(path)) return;
    const resolved = real(path);
    if (!readOnly.includes(resolved)) readOnly.push(resolved);
  };
  for (const rel of CONFINE_READ_ONLY) {
    if (rel === ".git" && gitWritable) continue;
    addReadOnly(join(workspace, rel));
  }
  if (gitWritable) for (const rel of GIT_ALWAYS_READ_ONLY) addReadOnly(join(workspace, rel));
  if (request.stateDir !== undefined && isWithinOrSame(workspace, real(request.stateDir))) {
    addReadOnly(request.stateDir);
  }
  if (request.configFile !== undefined) addReadOnly(request.configFile);
  for (const path of request.readOnly ?? []) {
    if (isWithinOrSame(workspace, real(path))) addReadOnly(path);
  }
  const pinned: string[] = [];
  for (const path of readOnly) {
    for (let folder = dirname(path); folder !== workspace; folder = dirname(folder)) {
      if (!isWithinOrSame(workspace, folder) || folder === dirname(folder)) break;
      if (readOnly.some((ro) => isWithinOrSame(ro, folder)) || pinned.includes(folder)) continue;
      pinned.push(folder);
    }
  }
  // Outer folders first: a bind over an outer folder would cover one made inside it before.
  pinned.sort((a, b) => a.length - b.length);

  const writable: string[] = [];
  for (const entry of request.agentWritable ?? []) {
    if (entry === AGENT_WRITABLE_IN_WORKSPACE || !isAbsolute(entry) || !existsSync(entry)) continue;
    const resolved = real(entry);
    if (!isWithinOrSame(workspace, resolved) && !writable.includes(resolved)) {
      writable.push(resolved);
    }
  }

  const candidates: string[] = [
    userStateDir(request.env),
    dirname(userCacheConfigPath(request.env)),
  ];
  candidates.push(dirname(cleanRoomDir(workspace, request.env)));
  if (request.stateDir !== undefined) candidates.push(request.stateDir);
  if (request.keyFile !== undefined) candidates.push(request.keyFile);
  candidates.push(...(request.hide ?? []));
  candidates.push(...userSocketPaths(request.env, request.uid ?? process.getuid?.()));
  const keep = [workspace, real(request.cwd), real(request.tmpdir)];
  const hidden: HiddenPath[] = [];
  for (const candidate of candidates) {
    if (!existsSync(candidate)) continue;
    const path = real(candidate);
    // A read-only folder inside the workspace stays visible (the state folder `.turngate`).
    if (isWithinOrSame(workspace, path) && readOnly.some((ro) => isWithinOrSame(ro, path))) {
      continue;
    }
    if (keep.some((k) => isWithinOrSame(path, k))) continue;
    if (hidden.some((h) => isWithinOrSame(h.path, path))) continue;
    let kind: HiddenPath["kind"];
    try {
      kind = lstatSync(path).isDirectory() ? "folder" : "file";
    } catch {
      continue;
    }
    hidden.push({ path, kind });
  }
  return {
    workspace,
    cwd: real(request.cwd),
    tmpdir: real(request.tmpdir),
    readOnly,
    pinned,
    writable,
    hidden,
    newSession: request.newSession,
    network: request.network ?? "proxy",
  };
}

/**
 * Where the user's servers keep their unix sockets, hidden from a confined agent as a second
 * layer behind the seccomp filter (docs/design.md §3b): `$XDG_RUNTIME_DIR` (when absolute) and
 * `/run/user/<uid>` (the D-Bus session bus, systemd's user manager, a rootless docker or
 * podman), tmux's socket folder `/tmp/tmux-<uid>` (and `$TMUX_TMPDIR/tmux-<uid>`), and the
 * socket of the tmux session turngate runs in (`$TMUX`'s first field). Candidates only:
 * `confinePlan` hides those that exist. Output: absolute paths, without duplicates; none
 * that needs `uid` when it is undefined. Pure.
 */
export function userSocketPaths(env: NodeJS.ProcessEnv, uid: number | undefined): string[] {
  const paths: string[] = [];
  const add = (path: string | undefined) => {
    if (path !== undefined && isAbsolute(path) && !paths.includes(path)) paths.push(path);
  };
  add(env.XDG_RUNTIME_DIR || undefined);
  if (uid !== undefined) {
    add(`/run/user/${uid}`);
    add(`/tmp/tmux-${uid}`);
    if (env.TMUX_TMPDIR) add(join(env.TMUX_TMPDIR, `tmux-${uid}`));
  }
  if (env.TMUX) add(env.TMUX.split(",")[0]);
  return paths;
}

/**
 * bubblewrap's arguments for `plan`, up to (not including) the command. Mounts apply in
 * order, later ones over earlier ones: `/` read-only; a private `/dev`, `/proc` and
 * `/dev/shm`; the workspace writable; the pinned folders over themselves; the read-only
 * paths over them; the writable folders; the private `TMPDIR`; the hidden paths last (so
 * nothing writable uncovers them). Then `--seccomp seccompFd`: the file descriptor (in
 * bubblewrap's process) from which it reads the filter of `seccomp-unix.ts`
 * (`unixSocketFilter`); it is required, so no caller can confine an agent without it.
 * Output: the argument list. Pure.
 */
export function confineArgs(plan: ConfinePlan, seccompFd: number): string[] {
  const args = namespaceArgs({ network: plan.network === "host", newSession: plan.newSession });
  args.push("--ro-bind", "/", "/");
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm");
  args.push("--bind", plan.workspace, plan.workspace);
  for (const path of plan.pinned) args.push("--bind", path, path);
  for (const path of plan.readOnly) args.push("--ro-bind", path, path);
  for (const path of plan.writable) args.push("--bind", path, path);
  args.push("--bind", plan.tmpdir, plan.tmpdir);
  for (const { path, kind } of plan.hidden) {
    if (kind === "folder") args.push("--tmpfs", path, "--remount-ro", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--seccomp", String(seccompFd));
  args.push("--chdir", plan.cwd);
  return args;
}

/** Prefix of the variables removed from a confined agent's environment. */
export const SCRUBBED_ENV_PREFIX = "TURNGATE_";

/**
 * A confined agent's environment: `env` without any `TURNGATE_*` variable (signing keys,
 * cache trust, the host's sandbox claim, consent to `--fresh`, …), with `TMPDIR` (and
 * `TMP`, `TEMP`) set to the private temporary folder, and `keep` added back (the turn's
 * process marker). Output: a new object.
 */
export function confinedAgentEnv(
  env: NodeJS.ProcessEnv,
  tmpdir: string,
  keep: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith(SCRUBBED_ENV_PREFIX)) out[name] = value;
  }
  out.TMPDIR = tmpdir;
  out.TMP = tmpdir;
  out.TEMP = tmpdir;
  return { ...out, ...keep };
}

/**
 * The problem with one `agent_writable` entry, or undefined when it is valid: `.git`
 * (a confined agent that commits), or an absolute path (or `~/…`) outside the workspace.
 * Any other workspace path is refused: the workspace is writable already, and `.turngate`
 * and the gate's configuration are never the agent's to write.
 */
export function agentWritableProblem(entry: string): string | undefined {
  if (entry === AGENT_WRITABLE_IN_WORKSPACE) return undefined;
  if (isAbsolute(entry) || entry.startsWith("~/")) return undefined;
  return `${JSON.stringify(entry)} cannot be made writable: inside the workspace only ".git" may be listed (the rest of the workspace is writable already; .turngate and the gate's configuration never are); outside it, give an absolute path or ~/…`;
}

/** `realpath` of `path`, or `path` when it does not resolve. */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
