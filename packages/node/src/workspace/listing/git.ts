import { spawn } from "node:child_process";

/** Default limit (ms) for one git query; listing a very large repo can take seconds. */
export const GIT_TIMEOUT_MS = 60_000;

/** The outcome of one git invocation: exit code (null if killed), raw stdout, stderr text. */
export interface GitResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Options of {@link runGit}. */
export interface RunGitOptions {
  /** Kill git after this many ms (the result's `code` is then null). */
  timeoutMs?: number;
  /** Bytes written to git's stdin (stdin is closed, empty, without it). */
  input?: Buffer;
  /** The complete environment for git; default: this process's environment. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `git <args>` in `cwd` without a shell and collects its output.
 *
 * `GIT_OPTIONAL_LOCKS=0` keeps git from refreshing (and locking) the index while a
 * concurrent agent may be using it. The process is killed after `options.timeoutMs`
 * (default {@link GIT_TIMEOUT_MS}; code null). Rejects only if git cannot be spawned (e.g.
 * `ENOENT`: git not installed).
 */
export function runGit(
  args: string[],
  cwd: string,
  options: RunGitOptions = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd,
      env: { ...(options.env ?? process.env), GIT_OPTIONAL_LOCKS: "0" },
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    if (options.input !== undefined && child.stdin !== null) {
      child.stdin.on("error", () => undefined); // git may exit before reading everything
      child.stdin.end(options.input);
    }
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
