/**
 * What the CLI's process benchmarks share (noop-turn, verify-turn): git's identity and no
 * system config, a checked synchronous run, and a wall-clock timer.
 */
import { spawnSync } from "node:child_process";

/** The benchmarks' environment: this process's plus git's identity, no system gitconfig. */
export const BENCH_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

/**
 * Runs `cmd args` in `cwd` with {@link BENCH_ENV} plus `extra` and returns its output (UTF-8).
 * Throws, with the command, its exit status and its output, when it exits non-zero.
 */
export function runOk(
  cmd: string,
  args: string[],
  cwd: string,
  extra: Record<string, string> = {},
): { stdout: string; stderr: string } {
  const out = spawnSync(cmd, args, { cwd, env: { ...BENCH_ENV, ...extra }, encoding: "utf8" });
  if (out.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} exited ${out.status}: ${out.stdout}${out.stderr}`);
  return { stdout: out.stdout, stderr: out.stderr };
}

/** The wall time of `fn()` in ms (`performance.now()`). */
export function timed(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}
