import { dirname, isAbsolute, join, resolve } from "node:path";
import { hashFileFollowingSync } from "../hash/hash.js";
import { gitText, type RepoLayout } from "./ignore-config.js";
import type { ConfigFile } from "./ignore-state.js";

/**
 * Every file git may read configuration from in `cwd`, so that a later change of
 * `core.excludesFile` or `core.ignoreCase` can be noticed by re-reading files instead of
 * running git: the system file (`GIT_CONFIG_SYSTEM`, or the compiled-in one, which
 * `git config --system --edit` names; none with `GIT_CONFIG_NOSYSTEM`), the global ones
 * (`GIT_CONFIG_GLOBAL`, or `$XDG_CONFIG_HOME/git/config` / `~/.config/git/config` and
 * `~/.gitconfig`), the repository's `config` and `config.worktree`, every file
 * `git config --list --show-origin` names, every `include.path`/`includeIf.*.path` target
 * (resolved like git: `~/` from `$HOME`, relative to the including file), and `HEAD` when an
 * `includeIf "onbranch:…"` exists (the branch decides whether it applies). Files that do not
 * exist are listed too: creating one is a change. Sorted, without repeats.
 *
 * Throws {@link WorkspaceObserverError} `git_failed` when `git config --list` fails.
 */
export async function configFilesOf(
  cwd: string,
  layout: RepoLayout,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  const files = new Set<string>([layout.config, layout.worktreeConfig]);
  // Two independent git queries, run at the same time (the system file's error, if any, is
  // the one thrown, as when they ran one after the other).
  const listing = gitText(["config", "--list", "--show-origin", "-z"], cwd);
  listing.catch(() => undefined); // awaited below
  const system = await systemConfigFile(cwd, env);
  if (system !== undefined) files.add(system);
  for (const path of globalConfigFiles(env)) files.add(path);
  const listed = await listing;
  const items = listed.split("\0");
  for (let i = 0; i + 1 < items.length; i += 2) {
    const origin = items[i] as string;
    const entry = items[i + 1] as string;
    const file = origin.startsWith("file:") ? resolve(cwd, origin.slice(5)) : undefined;
    if (file !== undefined) files.add(file);
    const newline = entry.indexOf("\n");
    const key = newline < 0 ? entry : entry.slice(0, newline);
    if (!(key === "include.path" || (key.startsWith("includeif.") && key.endsWith(".path")))) {
      continue;
    }
    if (key.startsWith("includeif.onbranch:")) files.add(layout.head);
    const target = includeTarget(entry.slice(newline + 1), file, env);
    if (target !== undefined) files.add(target);
  }
  return [...files].sort();
}

/** The content digest of each config file, null when it cannot be read. Never throws. */
export function fingerprintConfigFiles(paths: readonly string[]): ConfigFile[] {
  return paths.map((path) => {
    try {
      return { path, digest: hashFileFollowingSync(path) };
    } catch {
      return { path, digest: null };
    }
  });
}

/** The global config files git reads, from the environment (as git computes them). */
function globalConfigFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = env.GIT_CONFIG_GLOBAL;
  if (explicit !== undefined) return explicit === "" ? [] : [resolve(explicit)];
  const out: string[] = [];
  const xdg = env.XDG_CONFIG_HOME;
  const home = env.HOME;
  if (xdg !== undefined && xdg !== "") out.push(join(xdg, "git", "config"));
  else if (home !== undefined && home !== "") out.push(join(home, ".config", "git", "config"));
  if (home !== undefined && home !== "") out.push(join(home, ".gitconfig"));
  return out;
}

async function systemConfigFile(cwd: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (isTrue(env.GIT_CONFIG_NOSYSTEM)) return undefined;
  if (env.GIT_CONFIG_SYSTEM !== undefined) return resolve(env.GIT_CONFIG_SYSTEM);
  // `--edit` hands the file's path to the editor; `echo` prints it and changes nothing.
  const path = await gitText(["config", "--system", "--edit"], cwd, {
    ...env,
    GIT_EDITOR: "echo",
  });
  return path === "" ? undefined : resolve(cwd, path);
}

function includeTarget(
  value: string,
  includingFile: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (value.startsWith("~/")) {
    const home = env.HOME;
    return home === undefined || home === "" ? undefined : join(home, value.slice(2));
  }
  if (isAbsolute(value)) return value;
  return includingFile === undefined ? undefined : resolve(dirname(includingFile), value);
}

/** git's boolean reading of an environment value: true/yes/on or a non-zero integer. */
function isTrue(value: string | undefined): boolean {
  if (value === undefined) return false;
  const text = value.trim();
  if (/^-?\d+$/.test(text)) return Number(text) !== 0;
  return /^(?:true|yes|on)$/i.test(text);
}
