import { spawn } from "node:child_process";
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import { findOnPath } from "../runner/check-env.js";

/**
 * The check sandbox (docs/design.md §3b, "Check sandbox"): bubblewrap (`bwrap`, Debian
 * package `bubblewrap`) runs each check of a clean-room turn in its own mount, PID, network,
 * IPC and UTS namespaces. What the check sees:
 *
 * - the system read-only: {@link SYSTEM_DIRS} bound at their own paths (a usrmerge symlink
 *   such as `/bin -> usr/bin` is recreated as the same symlink); nothing else of the host
 *   file system (no `/home`, `/root`, `/srv`, `/mnt`, `/var`, other workspaces);
 * - a private `/proc`, `/dev`, `/tmp` and `/dev/shm` (tmpfs);
 * - a private, empty `HOME` (tmpfs at the user's home path), with the toolchains that live
 *   under it bound read-only at their own paths ({@link SandboxPlan.readOnly});
 * - the clean room bound read-write **at the workspace's own path**, so absolute paths baked
 *   into dependency folders resolve to the copy;
 * - the `readOnly` and `writable` binds of the plan, in that order, over all of the above;
 * - no network (loopback only) unless `network` is true;
 * - `--die-with-parent` and a PID namespace: when the check's shell exits, when turngate
 *   dies (even by SIGKILL) or when the check is stopped, every process it started dies,
 *   `setsid` and double forks included.
 */

/** System folders bound read-only when they exist (symlinks kept as symlinks). */
export const SYSTEM_DIRS: readonly string[] = Object.freeze([
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/nix",
]);

/** One bind of a {@link SandboxPlan}: `src` on the host at `dest` inside (absolute paths). */
export interface SandboxBind {
  src: string;
  dest: string;
}

/**
 * One mount inside the room (after the room is bound at the workspace path): a read-only
 * bind, a private tmpfs (a scratch layer whose writes are discarded with the check), or a
 * symlink with the given text.
 */
export type RoomMount =
  | { op: "ro-bind"; src: string; dest: string }
  | { op: "tmpfs"; dest: string }
  | { op: "symlink"; target: string; dest: string };

/** Everything one sandboxed command needs. Paths are absolute. */
export interface SandboxPlan {
  /** The clean room's folder on the host. */
  room: string;
  /** The workspace's real path: where the room is mounted inside. */
  workspace: string;
  /** The working directory inside (the workspace path or a folder below it). */
  cwd: string;
  /** The home folder path: an empty tmpfs inside. */
  home: string | undefined;
  /** Read-only binds outside the workspace (toolchains under home), in order. */
  readOnly: readonly SandboxBind[];
  /** Mounts inside the room (unchanged dependency folders), in order. */
  inside?: readonly RoomMount[];
  /** Read-write binds applied last (the check environment's fresh folder, result folders). */
  writable: readonly SandboxBind[];
  /** Share the host's network (config `"network": true`); default loopback only. */
  network?: boolean;
}

/** Whether the sandbox can start here, decided by starting it ({@link probeSandbox}). */
export type SandboxAvailability =
  | { available: true; bwrap: string }
  | { available: false; reason: string };

/**
 * bubblewrap's arguments for `plan`, up to (not including) the command. Pure apart from
 * `lstat`/`readlink` of {@link SYSTEM_DIRS} (which of them exist, and which are symlinks).
 * Output: the argument list; mounts are applied in the order given (later ones cover
 * earlier ones).
 */
export function bwrapArgs(plan: SandboxPlan): string[] {
  const args = namespaceArgs({ network: plan.network === true, newSession: true });
  for (const dir of SYSTEM_DIRS) {
    let link: string | undefined;
    try {
      const stat = lstatSync(dir);
      if (stat.isSymbolicLink()) link = readlinkSync(dir);
      else if (!stat.isDirectory()) continue;
    } catch {
      continue;
    }
    if (link !== undefined) args.push("--symlink", link, dir);
    else args.push("--ro-bind", dir, dir);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm");
  args.push("--dir", "/var", "--symlink", "../tmp", "/var/tmp");
  if (plan.home !== undefined && plan.home !== "/" && !isWithinOrSame(plan.workspace, plan.home)) {
    args.push("--tmpfs", plan.home);
  }
  // Toolchains under home first (they sit in the tmpfs), then the room over the workspace
  // path, then what is mounted inside the room (dependency folders), then writable folders.
  for (const bind of plan.readOnly) {
    if (!isWithinOrSame(plan.workspace, bind.dest)) args.push("--ro-bind", bind.src, bind.dest);
  }
  args.push("--bind", plan.room, plan.workspace);
  for (const mount of plan.inside ?? []) {
    if (mount.op === "ro-bind") args.push("--ro-bind", mount.src, mount.dest);
    else if (mount.op === "tmpfs") args.push("--tmpfs", mount.dest);
    else args.push("--symlink", mount.target, mount.dest);
  }
  for (const bind of plan.writable) args.push("--bind", bind.src, bind.dest);
  args.push("--chdir", plan.cwd);
  return args;
}

/**
 * The namespace part shared by both sandbox profiles (the check sandbox here, the confined
 * agent in `confine.ts`): `--die-with-parent` and its own PID, IPC, UTS and (where the
 * kernel allows) cgroup namespaces, so every process started inside dies with the
 * sandbox's first process and with turngate; `--new-session` when `newSession` (no
 * controlling terminal: nothing inside can push keystrokes into the host's terminal);
 * `--unshare-net` unless `network`; `--cap-drop ALL`: started by root, bubblewrap would
 * otherwise keep every capability, and a process inside could remount `/` writable or
 * unmount what hides turngate's state (found by the attack round). Output: bubblewrap
 * arguments.
 */
export function namespaceArgs(options: { network: boolean; newSession: boolean }): string[] {
  const args = [
    "--die-with-parent",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
  ];
  if (options.newSession) args.push("--new-session");
  if (!options.network) args.push("--unshare-net");
  return args;
}

/** True when `path` is `dir` or below it (absolute paths, no trailing separator). */
export function isWithinOrSame(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Toolchain folders under the home folder bound read-only (when they exist), and the
 * dependency caches those toolchains read offline: Go's module cache (`go/pkg/mod`) and
 * cargo's registry and git checkouts. The caches are the agent's to write in unconfined
 * mode (docs/design.md §3b: until the per-preset `setup` step rebuilds them from in-scope
 * bytes, a patched cache is a documented gap, as in place).
 */
export const HOME_TOOLCHAINS: readonly string[] = Object.freeze([
  ".rustup",
  ".cargo/bin",
  ".cargo/registry",
  ".cargo/git",
  "go/pkg/mod",
  ".pyenv",
  ".nvm",
  ".volta",
  ".local/share/uv",
  ".local/share/fnm",
  ".asdf",
  "go/bin",
  "sdk",
]);

/**
 * The read-only binds that give a sandboxed check the same toolchains a plain run would
 * use: {@link HOME_TOOLCHAINS} under `home`, `env`'s absolute `GOMODCACHE`, `RUSTUP_HOME`
 * and `CARGO_HOME` (its `bin`, `registry` and `git`), every absolute folder of `path` (the
 * checks' `PATH`) that lies under `home` or outside the system folders, and Go's `GOROOT`
 * (from the `go` found on `path`) when it lies under `home`. Folders inside `exclude` (the workspace,
 * turngate's state) are never bound: the room stands for the workspace.
 * Output: binds at their own paths, deduplicated, nested ones left out.
 */
export function toolchainBinds(
  home: string | undefined,
  path: string,
  exclude: readonly string[],
  env: NodeJS.ProcessEnv = {},
): SandboxBind[] {
  const candidates: string[] = [];
  if (home !== undefined && home !== "/") {
    for (const name of HOME_TOOLCHAINS) candidates.push(join(home, name));
  }
  for (const configured of [env.GOMODCACHE, env.CARGO_HOME, env.RUSTUP_HOME]) {
    if (configured === undefined || !isAbsolute(configured)) continue;
    candidates.push(configured === env.CARGO_HOME ? join(configured, "bin") : configured);
    if (configured === env.CARGO_HOME) {
      candidates.push(join(configured, "registry"), join(configured, "git"));
    }
  }
  for (const dir of path.split(":")) {
    if (!isAbsolute(dir)) continue;
    if (SYSTEM_DIRS.some((system) => isWithinOrSame(system, dir))) continue;
    candidates.push(dir);
  }
  const go = findOnPath("go", path);
  if (go !== undefined) {
    try {
      const goroot = join(realpathSync(go), "..", "..");
      if (home !== undefined && isWithinOrSame(home, goroot)) candidates.push(goroot);
    } catch {
      // a dangling go: nothing to bind
    }
  }
  const kept: string[] = [];
  for (const dir of candidates) {
    if (!existsSync(dir)) continue;
    if (exclude.some((root) => isWithinOrSame(root, dir) || isWithinOrSame(dir, root))) continue;
    if (kept.some((other) => isWithinOrSame(other, dir))) continue;
    for (let i = kept.length - 1; i >= 0; i -= 1) {
      if (isWithinOrSame(dir, kept[i] as string)) kept.splice(i, 1);
    }
    kept.push(dir);
  }
  return kept.map((dir) => ({ src: dir, dest: dir }));
}

/** Where bubblewrap is looked for: `TURNGATE_BWRAP` (an absolute path), else `bwrap` on `PATH`. */
export function findBwrap(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env.TURNGATE_BWRAP;
  if (configured !== undefined && configured !== "") {
    return isAbsolute(configured) && existsSync(configured) ? configured : undefined;
  }
  return findOnPath("bwrap", env.PATH ?? "/usr/bin:/bin");
}

/** Probe results kept per bubblewrap path for the life of the process. */
const probed = new Map<string, Promise<SandboxAvailability>>();

/**
 * Whether the check sandbox starts on this machine, decided by **starting it**: bubblewrap
 * runs a shell with the same namespaces and a private room the checks get, which checks
 * that it holds no capability (`CapEff` 0 in `/proc/self/status`; a sandbox that kept one is
 * refused, never used) (a root user or `user_namespaces` in `/proc` prove nothing:
 * container seccomp profiles and AppArmor refuse namespaces). The answer is kept per bubblewrap path for the life of the process;
 * `TURNGATE_BWRAP=none` says it is unavailable (for tests of the fallback). Never throws.
 * Output: `{available: true, bwrap}` or `{available: false, reason}` where `reason` names
 * what failed and how to fix it.
 */
export function probeSandbox(env: NodeJS.ProcessEnv = process.env): Promise<SandboxAvailability> {
  if (env.TURNGATE_BWRAP === "none") {
    return Promise.resolve({ available: false, reason: "TURNGATE_BWRAP=none" });
  }
  const bwrap = findBwrap(env);
  if (bwrap === undefined) {
    return Promise.resolve({
      available: false,
      reason:
        env.TURNGATE_BWRAP !== undefined && env.TURNGATE_BWRAP !== ""
          ? `TURNGATE_BWRAP=${env.TURNGATE_BWRAP} is not an absolute path to bubblewrap`
          : "bubblewrap (bwrap) is not installed: apt-get install bubblewrap (or set TURNGATE_BWRAP to its absolute path)",
    });
  }
  let answer = probed.get(bwrap);
  if (answer === undefined) {
    answer = startProbe(bwrap);
    probed.set(bwrap, answer);
  }
  return answer;
}

/** Exit status of {@link CAPABILITY_PROBE} when the sandbox kept a capability. */
const CAPABILITY_EXIT = 97;

/** The probe's command inside the sandbox: exits {@link CAPABILITY_EXIT} unless `CapEff` is 0. */
const CAPABILITY_PROBE = `grep -qx 'CapEff:[[:space:]]*0*' /proc/self/status || exit ${CAPABILITY_EXIT}`;

async function startProbe(bwrap: string): Promise<SandboxAvailability> {
  const args = bwrapArgs({
    room: "/tmp",
    workspace: "/tmp",
    cwd: "/",
    home: undefined,
    readOnly: [],
    writable: [],
  });
  const outcome = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(bwrap, [...args, "/bin/sh", "-c", CAPABILITY_PROBE], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 20_000,
      killSignal: "SIGKILL",
    });
    const err: Buffer[] = [];
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (error) => resolve({ code: null, stderr: error.message }));
    child.on("close", (code) => resolve({ code, stderr: Buffer.concat(err).toString("utf8") }));
  });
  if (outcome.code === 0) return { available: true, bwrap };
  if (outcome.code === CAPABILITY_EXIT) {
    return {
      available: false,
      reason:
        "bubblewrap started a sandbox that kept capabilities (CapEff is not 0 inside, though --cap-drop ALL was given): a process inside could remount the system writable; turngate does not use it",
    };
  }
  const detail = outcome.stderr.trim().split("\n")[0] ?? "";
  return {
    available: false,
    reason: `bubblewrap could not start a sandbox here (${detail || `exit ${outcome.code}`}): user namespaces are refused (a container's seccomp profile, AppArmor's restrict_unprivileged_userns); allow them or run in-place`,
  };
}

/** Forget the kept probe result (tests). */
export function resetSandboxProbe(): void {
  probed.clear();
}
