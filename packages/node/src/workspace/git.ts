import { spawn } from "node:child_process";

/** Default limit (ms) for one git query; listing a very large repo can take seconds. */
export const GIT_TIMEOUT_MS = 60_000;

/** The outcome of one git invocation: exit code (null if killed), raw stdout, stderr text. */
export interface GitResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs `git <args>` in `cwd` without a shell and collects its output.
 *
 * `GIT_OPTIONAL_LOCKS=0` keeps git from refreshing (and locking) the index while a
 * concurrent agent may be using it. The process is killed after `timeoutMs` (code null).
 * Rejects only if git cannot be spawned (e.g. `ENOENT`: git not installed).
 */
export function runGit(
  args: string[],
  cwd: string,
  timeoutMs = GIT_TIMEOUT_MS,
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
      killSignal: "SIGKILL",
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({
        code,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString("utf8").trim(),
      });
    });
  });
}

/**
 * True if `dir` is inside a git work tree (`git rev-parse --is-inside-work-tree` prints
 * `true`). False if git is missing, fails, or `dir` is in a bare repo or a `.git` dir.
 */
export async function isInsideGitWorkTree(dir: string): Promise<boolean> {
  try {
    const result = await runGit(["rev-parse", "--is-inside-work-tree"], dir);
    return result.code === 0 && result.stdout.toString("utf8").trim() === "true";
  } catch {
    return false;
  }
}
