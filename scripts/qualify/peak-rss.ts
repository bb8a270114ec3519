/**
 * A child process's peak resident set size, portably and without new dependencies: a tiny
 * Python wrapper (`python3 -S`, only `os` and `sys`: `posix_spawnp` + `wait4`) runs the
 * command and, after it exits, writes the `ru_maxrss` of the rusage `wait4` returned for it
 * to a pipe of its own (fd 3, close-on-exec, so the command never holds it), so the
 * command's stdout and stderr stay the command's. This is what GNU `time -f %M` reads,
 * without needing /usr/bin/time; sampling `/proc/<pid>/status` VmHWM before exit is not
 * reliable (the process may be gone).
 *
 * What the figure is (getrusage(2), wait4(2)): the peak RSS of the largest single process among the
 * command and the descendants it waited for — not the sum over the process tree. For
 * `turngate verify` that is the Node process or one of its git children, whichever peaked
 * higher. Linux carries the wrapper's own resident size into its child's peak at `exec`
 * (the child starts as a copy of the wrapper), so a figure can never be below the wrapper's
 * size (≈ 8.5 MB for python3.11 -S here): {@link peakRssFloorBytes} measures that floor, and a result at the floor
 * means "at most this".
 */
import { spawnSync } from "node:child_process";

/**
 * The wrapper (Python 3.9+): runs argv[1:] (PATH lookup) with stdin/stdout/stderr inherited, writes
 * `<ru_maxrss in bytes> <exit status>` to fd 3 (ru_maxrss is KiB on Linux, bytes on macOS),
 * exits 0. A command killed by signal N reports status 128 + N.
 */
export const PEAK_RSS_WRAPPER = [
  "import os, sys",
  "os.set_inheritable(3, False)",
  "pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ)",
  "_, w, ru = os.wait4(pid, 0)",
  "r = ru.ru_maxrss if sys.platform == 'darwin' else ru.ru_maxrss * 1024",
  "s = os.waitstatus_to_exitcode(w)",
  "s = s if s >= 0 else 128 - s",
  "os.write(3, ('%d %d' % (r, s)).encode())",
].join("\n");

/** One measured child: its peak RSS in bytes, its exit status and its output (UTF-8). */
export interface PeakRssRun {
  peakRssBytes: number;
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Parses the wrapper's fd-3 line `"<bytes> <status>"`. Throws (naming the text) on anything
 * else: the wrapper did not run to its end.
 */
export function parsePeakRssLine(text: string): { peakRssBytes: number; status: number } {
  const m = /^(\d+) (\d+)$/.exec(text.trim());
  if (m === null) throw new Error(`peak-RSS wrapper printed no "<bytes> <status>" line: "${text}"`);
  return { peakRssBytes: Number(m[1]), status: Number(m[2]) };
}

/**
 * Runs `cmd args` in `cwd` (environment `env`, default this process's) under the python3
 * wrapper and returns its peak RSS in bytes, exit status and output. Synchronous. Throws
 * when python3 cannot be started or the wrapper printed no figure (the command not found
 * is a status 1 Python error, also thrown, with its stderr); a non-zero exit of the command
 * itself is returned in `status`, not thrown.
 */
export function peakRss(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  python = "python3",
): PeakRssRun {
  const out = spawnSync(python, ["-S", "-c", PEAK_RSS_WRAPPER, cmd, ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    maxBuffer: 256 * 1024 * 1024,
  });
  if (out.error !== undefined) throw new Error(`${python}: ${out.error.message}`);
  const fd3 = out.output[3];
  const text = fd3 === null || fd3 === undefined ? "" : fd3.toString("utf8");
  if (out.status !== 0 || text === "")
    throw new Error(
      `peak-RSS wrapper for ${cmd} exited ${out.status ?? out.signal}: ${out.stderr.toString("utf8").trim()}`,
    );
  return {
    ...parsePeakRssLine(text),
    stdout: out.stdout.toString("utf8"),
    stderr: out.stderr.toString("utf8"),
  };
}

/**
 * Like {@link peakRss} but throws (with the command, status and output) when the command
 * exits non-zero; returns its peak RSS in bytes and its stdout.
 */
export function peakRssOk(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): { peakRssBytes: number; stdout: string } {
  const run = peakRss(cmd, args, cwd, env);
  if (run.status !== 0)
    throw new Error(`${cmd} ${args.join(" ")} exited ${run.status}: ${run.stdout}${run.stderr}`);
  return { peakRssBytes: run.peakRssBytes, stdout: run.stdout };
}

/** The wrapper's floor in bytes: the peak RSS it reports for `true` (a command of ~1 MB). */
export function peakRssFloorBytes(cwd: string): number {
  return peakRssOk("true", [], cwd).peakRssBytes;
}
