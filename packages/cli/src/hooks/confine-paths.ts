import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { SIGNING_KEY_ENV, userStateDir } from "@turngate/node";
import { hookStateBase } from "./session-state.js";

/** The trust levels a hook's answer can record (docs/hooks.md "Confined hooks"), lowest first. */
export type HookTrust = "unsandboxed" | "confined-writes" | "confined";

/** A trust level and the reason it is not higher (empty when it is the highest). */
export interface HookTrustJudgement {
  level: HookTrust;
  why: string;
}

const RANK: Record<HookTrust, number> = { unsandboxed: 0, "confined-writes": 1, confined: 2 };

/**
 * The lower of two judgements ("never more than both support", issue 32 item 2); on a tie
 * the first one's reason is kept.
 */
export function lowerTrust(a: HookTrustJudgement, b: HookTrustJudgement): HookTrustJudgement {
  return RANK[b.level] < RANK[a.level] ? b : a;
}

/** What the agent must neither read nor write (docs/hooks.md "Confined hooks"). */
export interface ProtectedPaths {
  /**
   * Folders: the user state folder (`$XDG_STATE_HOME/turngate`, else
   * `~/.local/state/turngate`: the signing key `signing-key.pem` and, by default, the hook
   * sessions), and `TURNGATE_HOOK_STATE_DIR` when it lies elsewhere.
   */
  dirs: string[];
  /** Files: the key `TURNGATE_SIGNING_KEY` names as a path, when outside those folders. */
  files: string[];
}

/**
 * The folders and files turngate keeps from a confined agent: its state folder (baselines,
 * session files, turn proofs), the hook state folder and the signing key, as absolute paths
 * (a `TURNGATE_SIGNING_KEY` path relative to `cwd`; a PEM given inline is not a file and is
 * not listed). A path inside another listed folder is left out.
 * Input: the environment (`XDG_STATE_HOME`, `HOME`, `TURNGATE_HOOK_STATE_DIR`,
 * `TURNGATE_SIGNING_KEY`) and the directory relative paths resolve against.
 */
export function protectedPaths(env: NodeJS.ProcessEnv, cwd: string): ProtectedPaths {
  const dirs: string[] = [];
  for (const dir of [userStateDir(env), resolve(cwd, hookStateBase(env))]) {
    if (!dirs.some((d) => within(dir, d))) dirs.push(dir);
  }
  const files: string[] = [];
  const key = env[SIGNING_KEY_ENV];
  if (key !== undefined && key.trim() !== "" && !key.trimStart().startsWith("-----BEGIN")) {
    const path = resolve(cwd, key);
    if (!dirs.some((d) => within(path, d))) files.push(path);
  }
  return { dirs, files };
}

/** Whether `path` is `dir` or lies inside it (both absolute, compared lexically). */
export function within(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** `~` and `~/…` expanded with `HOME`; other paths as given. */
export function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? homedir();
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/**
 * Characters a harness reads as pattern syntax in a path rule (globs, brackets, escapes): a
 * protected path holding one would be matched as something else, so it is refused.
 */
export const PATTERN_CHARACTERS = /[*?[\]{}()\\!]/;
