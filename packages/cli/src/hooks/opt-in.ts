import { existsSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import { CONFIG_FILE_NAME } from "../config.js";

/**
 * Whether a user-level hook gates a project (issue 34 item 4). A user-level install
 * (`turngate hook install <harness> --user`) runs in every project the person opens with
 * that harness; it gates only the projects that opted in, so a folder with no checks is
 * never blocked by it. Opt-in is decided once, when the turn starts, and kept in the hook
 * session (outside the workspace): an agent that deletes `turngate.config.json` during the
 * turn does not opt out.
 */
export interface OptIn {
  gated: boolean;
  /** Why, in one line: what opted the project in, or what was looked for and not found. */
  why: string;
}

/** The user config of the hooks: `$XDG_CONFIG_HOME/turngate/hooks.json`, else `~/.config/turngate/hooks.json`. */
export function userHookConfigPath(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(env.HOME ?? homedir(), ".config");
  return join(base, "turngate", "hooks.json");
}

/**
 * Decide whether the project at `root` opted in (docs/hooks: "User-level install"):
 * 1. a `turngate.config.json` at the workspace root; else
 * 2. `root` is one of the folders listed in the user config's `"projects"` (absolute paths
 *    or `~/…`; a listed folder also covers the projects below it; symlinks resolved).
 * Input: the workspace root (absolute, symlinks resolved) and the environment (HOME,
 * XDG_CONFIG_HOME). Output: the decision and why.
 * Errors: `Error` naming the user config file and the field when it exists but is not
 * `{"projects": [string, …]}` (the caller fails closed: the stop repeats the error).
 */
export function decideOptIn(root: string, env: NodeJS.ProcessEnv): OptIn {
  if (existsSync(join(root, CONFIG_FILE_NAME))) {
    return { gated: true, why: `${CONFIG_FILE_NAME} at the workspace root` };
  }
  const file = userHookConfigPath(env);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return {
      gated: false,
      why: `no ${CONFIG_FILE_NAME} in ${root} and no user config ${file} listing it`,
    };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `the user config ${file} is not JSON (${(error as Error).message}): fix it (it holds {"projects": ["/path/to/project", …]})`,
    );
  }
  const projects = (doc as { projects?: unknown } | null)?.projects;
  if (
    typeof doc !== "object" ||
    doc === null ||
    Array.isArray(doc) ||
    (projects !== undefined &&
      (!Array.isArray(projects) || projects.some((p) => typeof p !== "string")))
  ) {
    throw new Error(
      `the user config ${file}: "projects" must be a list of folder paths (absolute or ~/…)`,
    );
  }
  const home = env.HOME ?? homedir();
  for (const entry of (projects ?? []) as string[]) {
    const expanded =
      entry === "~" ? home : entry.startsWith("~/") ? join(home, entry.slice(2)) : entry;
    if (!isAbsolute(expanded)) {
      throw new Error(
        `the user config ${file}: "projects" entry ${JSON.stringify(entry)} must be an absolute path or start with ~/`,
      );
    }
    let real = expanded;
    try {
      real = realpathSync(expanded);
    } catch {
      // a folder that does not exist (yet) is compared as written
    }
    const rel = relative(real, root);
    if (rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))) {
      return { gated: true, why: `listed in ${file} (${entry})` };
    }
  }
  return {
    gated: false,
    why: `no ${CONFIG_FILE_NAME} in ${root} and ${file} does not list it`,
  };
}
