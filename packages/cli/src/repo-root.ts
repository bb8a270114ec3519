import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { GIT_SAFETY_ENV, gitSafetyArgs } from "@turngate/node";

/**
 * The top of the git work tree that contains `dir` (`git rev-parse --show-toplevel`, with
 * turngate's git safety options), when `dir` lies strictly below it; undefined when `dir`
 * is the top itself, not in a work tree, or git is unavailable.
 *
 * Issue 10 "run from a subdirectory": `turngate run` in `repo/pkg` observes `repo`, so
 * `echo broken >> ../go.mod` is seen. Symlinks are resolved before comparing. Never throws.
 */
export function enclosingRepositoryRoot(dir: string): string | undefined {
  const result = spawnSync("git", [...gitSafetyArgs(), "rev-parse", "--show-toplevel"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, ...GIT_SAFETY_ENV },
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 10_000,
  });
  if (result.status !== 0 || typeof result.stdout !== "string") return undefined;
  const top = result.stdout.replace(/\n$/, "");
  if (top === "") return undefined;
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return undefined;
  }
  return real === top || !real.startsWith(`${top}/`) ? undefined : top;
}
