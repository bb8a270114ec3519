import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { GIT_SAFETY_ENV, gitSafetyArgs, rememberGitWorkTree } from "@turngate/node";

/**
 * The top of the git work tree that contains `dir` (`git rev-parse --show-toplevel`, with
 * turngate's git safety options), when `dir` lies strictly below it; undefined when `dir`
 * is the top itself, not in a work tree, or git is unavailable.
 *
 * Issue 10 "run from a subdirectory": `turngate run` in `repo/pkg` observes `repo`, so
 * `echo broken >> ../go.mod` is seen. Symlinks are resolved before comparing. Never throws.
 *
 * Issue 33: git's answer (is `dir` in a work tree, and its top) is handed to the workspace
 * observer (`rememberGitWorkTree`), which then starts no `git rev-parse --is-inside-work-tree`
 * of its own; same environment, same safety options. Nothing is handed over when git did not
 * answer (killed by the timeout).
 */
export function enclosingRepositoryRoot(dir: string): string | undefined {
  const result = spawnSync("git", [...gitSafetyArgs(), "rev-parse", "--show-toplevel"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, ...GIT_SAFETY_ENV },
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 10_000,
  });
  const gitMissing = (result.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
  if (result.status !== 0 || typeof result.stdout !== "string") {
    if (gitMissing || (result.error === undefined && result.status !== null)) {
      rememberGitWorkTree(dir, false);
    }
    return undefined;
  }
  const top = result.stdout.replace(/\n$/, "");
  if (top === "") return undefined;
  rememberGitWorkTree(dir, true);
  rememberGitWorkTree(top, true);
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return undefined;
  }
  return real === top || !real.startsWith(`${top}/`) ? undefined : top;
}
