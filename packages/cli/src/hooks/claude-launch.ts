import { spawnSync } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";

/**
 * What Claude Code was launched with, beyond its settings files (docs/hooks.md "Confined
 * hooks", issue 32 item 2): settings passed at launch (`--settings <file or JSON>`, which
 * outrank the project and user files), the managed settings file (which outranks
 * everything), and launch flags that weaken or skip what `--confine` wrote.
 */
export interface ClaudeLaunch {
  /** Settings that join the judgement: the managed file, then `--settings` (text null: absent). */
  settings: { path: string; text: string | null }[];
  /** Why the launch itself rules out `confined` (a flag), or null. */
  gap: string | null;
}

/** Where Claude Code reads managed settings (Claude Code settings docs), per platform. */
export function managedSettingsFile(platform: NodeJS.Platform = process.platform): string | null {
  if (platform === "linux") return "/etc/claude-code/managed-settings.json";
  if (platform === "darwin") return "/Library/Application Support/ClaudeCode/managed-settings.json";
  return null;
}

/** One process of the hook's ancestry: its id, its parent's, its arguments and working folder. */
export interface AncestorProcess {
  pid: number;
  ppid: number;
  argv: string[];
  /** The executable's path where the platform gives it (Linux `/proc/PID/exe`), else "". */
  exe: string;
  /** The working folder (Linux `/proc/PID/cwd`), else "": a relative `--settings` file resolves there. */
  cwd: string;
}

/** Whether a process is Claude Code: its executable or first argument is `claude`/`claude.exe`, or a path of the `@anthropic-ai/claude-code` package. */
export function isClaudeCode(p: Pick<AncestorProcess, "argv" | "exe">): boolean {
  const names = [p.exe, p.argv[0] ?? ""].map((a) => basename(a));
  if (names.some((n) => n === "claude" || n === "claude.exe")) return true;
  return p.argv.slice(0, 2).some((a) => a.includes("@anthropic-ai/claude-code/"));
}

/**
 * The launch of the nearest Claude Code process among `ancestors` (nearest first; see
 * `hookAncestry`): the managed settings file's text, `--settings` (inline JSON as is, a file
 * read relative to that process's folder), and a gap for `--dangerously-skip-permissions` or a
 * `--setting-sources` that leaves out user, project or local settings (where `--confine`
 * writes). No Claude Code ancestor (the hook run by hand, or a platform that shows no
 * ancestry): the managed file only. `read` returns a file's text or null when absent; a
 * file that exists but cannot be read is `"\u0000"` (not JSON: a gap). Never throws.
 */
export function claudeLaunch(
  ancestors: readonly AncestorProcess[],
  read: (path: string) => string | null,
  platform: NodeJS.Platform = process.platform,
): ClaudeLaunch {
  const settings: ClaudeLaunch["settings"] = [];
  const managed = managedSettingsFile(platform);
  if (managed !== null) settings.push({ path: managed, text: read(managed) });
  const claude = ancestors.find(isClaudeCode);
  if (claude === undefined) return { settings, gap: null };
  const flags = claude.argv.slice(1);
  let gap: string | null = null;
  for (let i = 0; i < flags.length; i += 1) {
    const arg = flags[i] as string;
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? splitOnce(arg) : [arg, null];
    const value = () => inline ?? flags[++i] ?? "";
    if (name === "--") break;
    if (name === "--dangerously-skip-permissions") {
      gap ??= "Claude Code was launched with --dangerously-skip-permissions";
    } else if (name === "--settings") {
      const given = value();
      if (given.trimStart().startsWith("{")) {
        settings.push({ path: "--settings (inline JSON)", text: given });
      } else {
        const path = isAbsolute(given) || claude.cwd === "" ? given : join(claude.cwd, given);
        settings.push({ path: `--settings ${path}`, text: read(path) ?? "\u0000" });
      }
    } else if (name === "--setting-sources") {
      const sources = value()
        .split(",")
        .map((s) => s.trim());
      const left = ["user", "project", "local"].filter((s) => !sources.includes(s));
      if (left.length > 0)
        gap ??= `Claude Code was launched with --setting-sources ${sources.join(",")}, which skips the ${left.join(" and ")} settings --confine may have written`;
    }
  }
  return { settings, gap };
}

function splitOnce(arg: string): [string, string] {
  const at = arg.indexOf("=");
  return [arg.slice(0, at), arg.slice(at + 1)];
}

/**
 * The hook process's ancestors, nearest first, at most `limit` (4: Claude Code runs a hook
 * command through a shell, and an installed `turngate` may be a shell shim, so Claude Code is
 * the parent, grandparent or great-grandparent; a Claude Code further up, such as one a
 * developer runs the test suite in, is not the harness running this hook): on Linux from
 * `/proc/PID/{stat,cmdline,exe,cwd}`, elsewhere from `ps -o ppid=,args=` (arguments split on
 * spaces). Stops at pid 1 or at a process it cannot read. Never throws.
 */
export function hookAncestry(
  start: number = process.ppid,
  platform: NodeJS.Platform = process.platform,
  limit = 4,
): AncestorProcess[] {
  const found: AncestorProcess[] = [];
  let pid = start;
  while (pid > 1 && found.length < limit) {
    const p = platform === "linux" ? procAncestor(pid) : psAncestor(pid);
    if (p === undefined) break;
    found.push(p);
    pid = p.ppid;
  }
  return found;
}

function procAncestor(pid: number): AncestorProcess | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0$/, "").split("\0");
    const link = (name: string) => {
      try {
        return readlinkSync(`/proc/${pid}/${name}`);
      } catch {
        return "";
      }
    };
    return Number.isInteger(ppid)
      ? { pid, ppid, argv, exe: link("exe"), cwd: link("cwd") }
      : undefined;
  } catch {
    return undefined;
  }
}

function psAncestor(pid: number): AncestorProcess | undefined {
  const out = spawnSync("ps", ["-o", "ppid=,args=", "-p", String(pid)], { encoding: "utf8" });
  const match = out.status === 0 ? /^\s*(\d+)\s+(.*)$/.exec(out.stdout.trim()) : null;
  if (match === null) return undefined;
  return {
    pid,
    ppid: Number(match[1]),
    argv: (match[2] as string).split(/\s+/),
    exe: "",
    cwd: "",
  };
}
