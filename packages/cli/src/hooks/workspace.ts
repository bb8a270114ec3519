import { spawnSync } from "node:child_process";
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { GIT_SAFETY_ENV, gitSafetyArgs } from "@turngate/node";

/**
 * The workspace a hook event is about (issue 19 item 1): the directory the payload names
 * (`cwd`, `CLAUDE_PROJECT_DIR`, Cursor's first `workspace_roots` entry, Goose's
 * `working_dir` — the adapter picks), else the hook process's cwd, raised to the top of its
 * git work tree (`git rev-parse --show-toplevel` with turngate's git safety options).
 * Outside a git work tree the directory itself is the workspace. A hook event does not call
 * this directly: `locateSessionWorkspace` (docs/hooks.md "Where the workspace is") resolves
 * a session's first workspace with it and pins it, since the payload's `cwd` follows the
 * agent's shell.
 * Input: the payload's directory (or undefined) and the process cwd.
 * Output: an absolute, symlink-resolved path.
 * Errors: `Error` naming the directory when it does not exist or is not a directory.
 */
export function findWorkspace(named: string | undefined, cwd: string): string {
  const dir = named === undefined ? cwd : isAbsolute(named) ? named : resolve(cwd, named);
  let real: string;
  try {
    real = realpathSync(dir);
    if (!statSync(real).isDirectory()) throw new Error("not a directory");
  } catch (error) {
    throw new Error(
      `the workspace folder ${JSON.stringify(dir)} from the payload cannot be used (${(error as Error).message})`,
    );
  }
  const result = spawnSync("git", [...gitSafetyArgs(), "rev-parse", "--show-toplevel"], {
    cwd: real,
    encoding: "utf8",
    env: { ...process.env, ...GIT_SAFETY_ENV },
    stdio: ["ignore", "pipe", "ignore"],
    timeout: 10_000,
  });
  const top = result.status === 0 ? result.stdout.replace(/\n$/, "") : "";
  return top !== "" ? top : real;
}
