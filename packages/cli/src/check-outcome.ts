import type { VerificationCheck, VerificationCommand } from "@turngate/core";
import { type FailureClass, failureClass, type ShellRunResult } from "@turngate/node";
import { formatSeconds } from "./duration.js";

/** What the CLI shows for one check's run. */
export interface CheckRunLike {
  command: VerificationCommand;
  check: VerificationCheck;
  execution: ShellRunResult;
}

const SIGNAL_NAMES: Record<number, string> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  6: "SIGABRT",
  9: "SIGKILL",
  11: "SIGSEGV",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
};

/** The failure class of a check's run (`failureClass` of @turngate/node), null when it ran as expected. */
export function failureClassOf(run: CheckRunLike): FailureClass | null {
  return failureClass(run.execution, run.command.expect_exit ?? 0);
}

/**
 * Why a check did not pass, in words, for its failure class (issue #12 item 5):
 * `exit code 1, expected 0` (assertion), `timed out after 1000 ms` (timeout),
 * `cancelled before it finished` (cancelled), `ended by signal SIGKILL` (signal; with
 * `(exit 137)` when a shell reported it), `command not found, exit 127` /
 * `not executable, exit 126` / `could not start: …` (infrastructure). Null for a run with
 * no failure class.
 */
export function failureDetail(run: CheckRunLike): string | null {
  const execution = run.execution;
  const code = execution.exitCode;
  switch (failureClassOf(run)) {
    case null:
      return null;
    case "assertion":
      return `exit code ${code}, expected ${run.command.expect_exit ?? 0}`;
    case "timeout":
      return `timed out after ${execution.timeoutMs} ms`;
    case "cancelled":
      return "cancelled before it finished";
    case "signal": {
      if (execution.signal !== null) return `ended by signal ${execution.signal}`;
      const name = SIGNAL_NAMES[(code ?? 0) - 128] ?? `number ${(code ?? 0) - 128}`;
      return `ended by signal ${name} (exit ${code})`;
    }
    case "infrastructure":
      if (execution.spawnError !== undefined) return `could not start: ${execution.spawnError}`;
      if (code === 127) return "command not found, exit 127";
      if (code === 126) return "not executable, exit 126";
      return "could not run";
  }
}

/**
 * The end of a progress line for a finished check (after `check <id> `):
 * `passed in 1.2s`; `failed in 1.2s: exit code 1, expected 0 (assertion)`;
 * `timed out after 1000 ms (timeout)`; `cancelled after 0.3s (cancelled)`;
 * `ended by signal SIGKILL after 0.1s (signal)`; `could not run after 0.0s: command not
 * found, exit 127 (infrastructure)`; `needs_review in 1.2s` (ran, result not trusted).
 */
export function progressOutcome(run: CheckRunLike, durationMs: number): string {
  const took = formatSeconds(durationMs);
  const cls = failureClassOf(run);
  const detail = failureDetail(run);
  switch (cls) {
    case null:
      return `${run.check.status} in ${took}`;
    case "assertion":
      return `failed in ${took}: ${detail} (assertion)`;
    case "timeout":
      return `${detail} (timeout)`;
    case "cancelled":
      return `cancelled after ${took} (cancelled)`;
    case "signal":
      return `${detail} after ${took} (signal)`;
    case "infrastructure":
      return `could not run after ${took}: ${detail} (infrastructure)`;
  }
}
