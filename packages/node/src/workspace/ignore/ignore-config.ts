import { lstatSync, readFileSync, readlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { WorkspaceObserverError } from "../errors.js";
import { sha256Hex } from "../hash/digest.js";
import { hashFileFollowingSync } from "../hash/hash.js";
import { runGit } from "../listing/git.js";
import type { IgnoreSource, IgnoreSourceKind } from "./ignore-state.js";

/** Where a repository lives, seen from the directory that is listed with it. */
export interface RepoLayout {
  /** Absolute top of the work tree (as git reports it). */
  toplevel: string;
  /** The listed directory's path inside the work tree: `""` or ending in `/`. */
  prefix: string;
  /** Absolute path of `$GIT_DIR/info/exclude` (in the common dir for linked worktrees). */
  infoExclude: string;
  /** Absolute paths of the repository's `config`, `config.worktree` and `HEAD`. */
  config: string;
  worktreeConfig: string;
  head: string;
}

/** The configuration that decides which global excludes file git reads. */
export interface ExcludesConfig {
  /** Absolute path git reads as the global excludes file, or null when there is none. */
  excludesFile: string | null;
  /** Raw `core.ignoreCase`, or null when unset. */
  ignoreCase: string | null;
}

/**
 * `git rev-parse --show-toplevel --show-prefix --git-path info/exclude --git-path config
 * --git-path config.worktree --git-path HEAD` in `cwd`.
 * Throws {@link WorkspaceObserverError} `git_failed` when git cannot run or fails.
 */
export async function readRepoLayout(cwd: string): Promise<RepoLayout> {
  const paths = ["info/exclude", "config", "config.worktree", "HEAD"];
  const out = await gitText(
    ["rev-parse", "--show-toplevel", "--show-prefix", ...paths.flatMap((p) => ["--git-path", p])],
    cwd,
  );
  const [toplevel, prefix, infoExclude, config, worktreeConfig, head] = out.split("\n");
  if (
    toplevel === undefined ||
    prefix === undefined ||
    infoExclude === undefined ||
    config === undefined ||
    worktreeConfig === undefined ||
    head === undefined
  ) {
    throw new WorkspaceObserverError("git_failed", `git rev-parse printed ${JSON.stringify(out)}`);
  }
  return {
    toplevel,
    prefix,
    infoExclude: resolve(cwd, infoExclude),
    config: resolve(cwd, config),
    worktreeConfig: resolve(cwd, worktreeConfig),
    head: resolve(cwd, head),
  };
}

/**
 * Resolves the global excludes file the way `--exclude-standard` does: the last
 * `core.excludesFile` (with `~` expanded, `git config --type=path`), else
 * `$XDG_CONFIG_HOME/git/ignore`, else `$HOME/.config/git/ignore`; also reads the raw
 * `core.ignoreCase`. Uses this process's environment, which is the one git gets.
 * Throws {@link WorkspaceObserverError} `git_failed` when `git config` fails (exit ≥ 2).
 */
export async function readExcludesConfig(cwd: string): Promise<ExcludesConfig> {
  let result: Awaited<ReturnType<typeof runGit>>;
  try {
    result = await runGit(
      ["config", "-z", "--type=path", "--get-regexp", "^core\\.(excludesfile|ignorecase)$"],
      cwd,
    );
  } catch (error) {
    throw new WorkspaceObserverError("git_failed", `could not run git in ${cwd}: ${String(error)}`);
  }
  if (result.code !== 0 && result.code !== 1) {
    throw new WorkspaceObserverError(
      "git_failed",
      `git config failed in ${cwd} (exit ${result.code}): ${result.stderr}`,
    );
  }
  let excludesFile: string | null = null;
  let ignoreCase: string | null = null;
  for (const item of result.stdout.toString("utf8").split("\0")) {
    const newline = item.indexOf("\n");
    if (newline < 0) continue;
    const key = item.slice(0, newline);
    const value = item.slice(newline + 1);
    if (key === "core.excludesfile") excludesFile = value === "" ? null : resolve(cwd, value);
    else if (key === "core.ignorecase") ignoreCase = value;
  }
  return { excludesFile: excludesFile ?? defaultExcludesFile(), ignoreCase };
}

/** git's default global excludes file: `$XDG_CONFIG_HOME/git/ignore` or `$HOME/.config/git/ignore`. */
function defaultExcludesFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg !== undefined && xdg !== "") return join(xdg, "git", "ignore");
  const home = env.HOME;
  if (home !== undefined && home !== "") return join(home, ".config", "git", "ignore");
  return null;
}

/**
 * Identity of `<toplevel>/.git`: `dir <ino>` for a directory, `file <sha256>` for a gitdir
 * file (linked worktrees, submodules), `absent`, or `other`. Never throws.
 */
export function gitEntryIdentity(toplevel: string): string {
  const path = join(toplevel, ".git");
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st === undefined) return "absent";
    if (st.isDirectory()) return `dir ${st.ino}`;
    if (st.isFile()) return `file ${hashFileFollowingSync(path)}`;
    return "other";
  } catch {
    return "other";
  }
}

/**
 * Reads one ignore source from `absPath` into an {@link IgnoreSource} stored under `path`.
 * A `.gitignore` is read without following a symlink (git does not follow one); the other
 * kinds follow symlinks like git. A missing or unreadable file gives `digest: null` (git
 * warns and reads no rules from a file it cannot open). Never throws.
 */
export function readIgnoreSource(
  kind: IgnoreSourceKind,
  absPath: string,
  path: string,
): IgnoreSource {
  const absent: IgnoreSource = { kind, path, digest: null, content: null, symlink: false };
  try {
    if (kind === "gitignore") {
      const st = lstatSync(absPath, { throwIfNoEntry: false });
      if (st === undefined || !(st.isFile() || st.isSymbolicLink())) return absent;
      if (st.isSymbolicLink()) {
        const link = readlinkSync(absPath, { encoding: "buffer" });
        return { kind, path, digest: sha256Hex(link), content: null, symlink: true };
      }
    }
    const bytes = readFileSync(absPath);
    return {
      kind,
      path,
      digest: sha256Hex(bytes),
      content: bytes.toString("base64"),
      symlink: false,
    };
  } catch {
    return absent;
  }
}

/** Runs git and returns its stdout without the final newline; throws `git_failed`. */
export async function gitText(
  args: string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
): Promise<string> {
  let result: Awaited<ReturnType<typeof runGit>>;
  try {
    result = await runGit(args, cwd, env === undefined ? {} : { env });
  } catch (error) {
    throw new WorkspaceObserverError("git_failed", `could not run git in ${cwd}: ${String(error)}`);
  }
  if (result.code !== 0) {
    throw new WorkspaceObserverError(
      "git_failed",
      `git ${args[0]} failed in ${cwd} (exit ${result.code}): ${result.stderr}`,
    );
  }
  const text = result.stdout.toString("utf8");
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}
