/**
 * One vocabulary for why a verification command did not pass, shared by the CLI's
 * progress and text output, its `--json` (`failure_class`) and the hooks (issue #12 item 5).
 */

/** Every failure class. */
export const FAILURE_CLASSES = [
  "assertion",
  "timeout",
  "cancelled",
  "signal",
  "infrastructure",
] as const;

/**
 * Why a command did not pass:
 * - `assertion`: it ran to the end and exited with another code than expected (a test failed);
 * - `timeout`: its timeout stopped it;
 * - `cancelled`: the host aborted it (SIGINT/SIGTERM to turngate, a closed session);
 * - `signal`: a signal ended it (the shell, or the program it ran: exit 129–192, 128 + N);
 * - `infrastructure`: it could not run: not started (`spawnError`, e.g. `ENOENT` for the
 *   working directory), or the shell's 126 (not executable) / 127 (command not found).
 */
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** The parts of a `ShellRunResult` that `failureClass` reads. */
export interface FailureClassInput {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  spawnError?: string;
}

/** Exit code of a shell for a command it found but could not execute (POSIX). */
export const EXIT_NOT_EXECUTABLE = 126;
/** Exit code of a shell for a command it did not find (POSIX). */
export const EXIT_COMMAND_NOT_FOUND = 127;

/**
 * The failure class of one run (`execution` of a `runShellCommand` / `runVerificationCommand`
 * result), or `null` when it exited with `expectExit` (default 0) — a check that is then
 * `needs_review` (masked exit status) did not fail to run.
 *
 * Order: a spawn error → `infrastructure`; a timeout → `timeout`; an abort → `cancelled`;
 * no exit code → `infrastructure`; the expected exit code → null; exit 126/127 →
 * `infrastructure`; a signal, or an exit code 129–192 that a shell gives a child ended by
 * signal N (128 + N) → `signal`; any other code → `assertion`.
 * Input: the run's fields (no I/O). Never throws.
 */
export function failureClass(execution: FailureClassInput, expectExit = 0): FailureClass | null {
  const code = execution.exitCode;
  if (execution.spawnError !== undefined) return "infrastructure";
  if (execution.timedOut) return "timeout";
  if (execution.aborted) return "cancelled";
  if (code === null) return "infrastructure";
  if (code === expectExit && execution.signal === null) return null;
  if (code === EXIT_NOT_EXECUTABLE || code === EXIT_COMMAND_NOT_FOUND) return "infrastructure";
  if (execution.signal !== null || (code > 128 && code <= 192)) return "signal";
  return "assertion";
}
