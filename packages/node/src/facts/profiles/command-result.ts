/** Our runner's result as Harn's normalized `CommandResult` (harn-verification.md §2.5). */
import type { ShellRunResult } from "../../runner/shell.js";

/** `CommandResult` fields the verification facts read, plus the log of the run. */
export interface CheckCommandResult {
  ok: boolean;
  success: boolean;
  status: "completed" | "failed" | "timed_out" | "cancelled";
  exit_code: number | null;
  timed_out: boolean;
  /** Combined stdout + stderr (our runner captures one interleaved stream). */
  stdout: string;
  stderr: string;
  combined: string;
  duration_ms: number;
  output_path?: string;
  spawn_error?: string;
}

/**
 * Maps a `runShellCommand` result: `timed_out` when the timeout fired, `cancelled` when
 * aborted, `completed` for exit 0, else `failed` (a spawn failure too). `ok` = exit 0 and
 * not timed out.
 */
export function toCommandResult(run: ShellRunResult): CheckCommandResult {
  const ok = run.exitCode === 0 && !run.timedOut && !run.aborted && run.spawnError === undefined;
  const status = run.timedOut
    ? "timed_out"
    : run.aborted
      ? "cancelled"
      : ok
        ? "completed"
        : "failed";
  const out: CheckCommandResult = {
    ok,
    success: ok,
    status,
    exit_code: run.timedOut ? null : run.exitCode,
    timed_out: run.timedOut,
    stdout: run.output,
    stderr: "",
    combined: run.output,
    duration_ms: Math.round(run.durationMs),
  };
  if (run.log !== undefined) out.output_path = run.log.path;
  if (run.spawnError !== undefined) out.spawn_error = run.spawnError;
  return out;
}
