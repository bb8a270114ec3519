import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * The user's cache folder for turngate: `$XDG_CACHE_HOME/turngate` when that variable is an
 * absolute path, else `$HOME/.cache/turngate` (the process's home folder when `HOME` is
 * unset). Where the clean rooms (docs/design.md §3b) and the stored snapshots' entries files
 * live, outside every workspace. Input: the environment. Output: an absolute path; nothing is
 * created. Never throws.
 */
export function turngateCacheHome(env: NodeJS.ProcessEnv = process.env): string {
  const cache =
    env.XDG_CACHE_HOME !== undefined && isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : join(env.HOME ?? homedir(), ".cache");
  return join(cache, "turngate");
}
