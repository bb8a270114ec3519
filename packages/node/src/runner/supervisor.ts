import type { Writable } from "node:stream";

/**
 * The check supervisor (issue 10, "turngate's own processes never outlive it").
 *
 * Every check runs as `/bin/sh -c SUPERVISED_WRAPPER turngate-check SHELL COMMAND` with a
 * pipe from turngate on fd 3. The wrapper (the process group leader) starts one background
 * subshell that blocks reading fd 3, closes fd 3 for itself, then `exec`s `SHELL -c COMMAND`
 * (same pid, same exit status). turngate holds the only write end:
 * - when the check ends normally, turngate writes `done\n` (`releaseSupervisor`) and the
 *   subshell exits without doing anything;
 * - when turngate dies — even by SIGKILL, which no handler sees — the kernel closes its end,
 *   `read` hits EOF and the subshell runs `kill -9 0`: SIGKILL to its own process group,
 *   which is the check's group (background jobs and test workers included).
 *
 * Why this and not a parent-death signal: `setpriv --pdeathsig` / `prctl(PR_SET_PDEATHSIG)`
 * only signal the direct child (the shell), not the grandchildren of the group, and only on
 * Linux; the supervisor needs no native code, works wherever `/bin/sh` does, and signals the
 * group by `0` (its own), so a recycled pgid can never be hit. Its limit: a check process
 * that leaves the group (`setsid`) escapes it, as it escapes today's group kill.
 */

/** The shell that runs the wrapper: absolute, so a planted `sh` on PATH is not it. */
export const SUPERVISOR_SHELL = "/bin/sh";

/** The wrapper script ($1 = the check's shell, $2 = the command). POSIX sh. */
export const SUPERVISED_WRAPPER =
  '( read -r _ <&3 || kill -9 0 ) </dev/null >/dev/null 2>&1 &\nexec 3<&-\nexec "$1" -c "$2"';

/**
 * `spawn` file and arguments that run `command` with `shell -c` under the supervisor; the
 * caller must spawn detached (its own process group) with a `"pipe"` at stdio index 3.
 * Input: the check's shell (e.g. `sh`) and command text. Output: `{file, args}`. Pure.
 */
export function supervisedSpawn(shell: string, command: string): { file: string; args: string[] } {
  return {
    file: SUPERVISOR_SHELL,
    args: ["-c", SUPERVISED_WRAPPER, "turngate-check", shell, command],
  };
}

/**
 * Tell the supervisor that the check ended normally, so it exits without killing (write
 * `done\n`, then close). Input: the parent's end of the fd-3 pipe. Never throws (a
 * supervisor already gone closed the pipe: nothing to tell).
 */
export function releaseSupervisor(pipe: Writable | null | undefined): void {
  if (!pipe || pipe.destroyed) return;
  pipe.on("error", () => {});
  pipe.end("done\n");
}
