import { realpathSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { ParsedTestResults, VerificationCheck, VerificationCommand } from "@turngate/core";
import {
  checkCwdProblem,
  checkFromExecution,
  checkWithTestResults,
  EXIT_STATUS_MASKED_RISK,
  EXIT_STATUS_UNVERIFIABLE_RISK,
  exitStatusMaskedBy,
} from "@turngate/core";
import { failureClass } from "./failure-class.js";
import { runShellCommand, type ShellRunOptions, type ShellRunResult } from "./shell.js";
import { prepareTestResults, readTestResults } from "./test-results.js";
import { clampTimeoutMs } from "./timeout.js";

/**
 * The folder a command with `cwd` runs in: `root` joined with `cwd`, resolved through
 * symlinks. Output: `{dir}` (absolute), or `{error}` when `cwd` is malformed
 * (`checkCwdProblem`), does not exist, is not a folder, or resolves outside the real root
 * (a symlink leaving the workspace). Never throws. Issue 15 item 2 (ours).
 */
export function resolveCheckCwd(root: string, cwd: string): { dir: string } | { error: string } {
  const problem = checkCwdProblem(cwd);
  if (problem !== undefined) return { error: `cwd ${JSON.stringify(cwd)} ${problem}` };
  let real: string;
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
    real = realpathSync(join(root, cwd));
  } catch {
    return { error: `cwd ${JSON.stringify(cwd)} does not exist in the workspace` };
  }
  const rel = relative(realRoot, real);
  if (rel === ".." || rel.startsWith(`..${sep}`) || rel.startsWith(sep)) {
    return { error: `cwd ${JSON.stringify(cwd)} resolves outside the workspace (${real})` };
  }
  try {
    if (!statSync(real).isDirectory()) {
      return { error: `cwd ${JSON.stringify(cwd)} is not a folder` };
    }
  } catch {
    return { error: `cwd ${JSON.stringify(cwd)} does not exist in the workspace` };
  }
  return { dir: real };
}

/** Options of `runVerificationCommand`. */
export interface VerificationRunOptions {
  /** Workspace root: the command's working directory. */
  root: string;
  /** Folder for full output logs; no log (and no `artifact_uri`) when absent. */
  logDir?: string;
  /** Environment of the command; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Aborting stops the command's process group. */
  signal?: AbortSignal;
  /** The shell (absolute path, issue 10 `planCheckEnvironment`); default `sh`. */
  shell?: string;
  /** Folder under which each run of a command with `results` gets a fresh folder; default the OS temp folder. */
  resultsDir?: string;
  /** Wraps the program before it runs (`ShellRunOptions.launch`: the check sandbox). */
  launch?: ShellRunOptions["launch"];
}

/** One verification command's check plus what the run looked like. */
export interface VerificationRun {
  check: VerificationCheck;
  execution: ShellRunResult;
  /** Tool-result metadata (snake_case) the check was derived from. */
  metadata: Record<string, unknown>;
  /** The structured test results, when the command declared `results` and they were read. */
  testResults?: ParsedTestResults;
}

/**
 * Run one verification command (A3S §1.5, §2.16) with `runShellCommand` and derive its
 * check with core's `checkFromExecution`:
 *
 * - passed iff the exit code equals `expect_exit` and the command ran;
 * - a spawn failure → residual risk `verification command could not run: {error}`; a
 *   timeout → `… could not run: command timed out after {ms}ms`; an abort →
 *   `… could not run: command was cancelled`;
 * - the full log's `file:` URL is metadata `artifact_uri`, so it lands in `evidence_uris`;
 * - a command whose exit status is masked (`cmd || true`, `cmd | tee x` without pipefail,
 *   `cmd; true`: core's `exitStatusMasked`) never counts as passed: when it would pass,
 *   its check becomes `needs_review` with residual risk `exit status masked` (docs/design.md §3).
 *   When it exits with an unexpected code it stays `failed`: some part of it failed
 *   visibly, and that is the more useful verdict for a host's own check. A command that
 *   runs a script turngate cannot read (`sh -c "$(cat x)"`, `eval "$cmd"`, backticks:
 *   `exitStatusMaskedBy` operator `unreadable`) gets residual risk
 *   `exit status cannot be verified` instead, also `needs_review`, never passed.
 *   visibly, and that is the more useful verdict for a host's own check.
 * - a command with `results: {format}` gets a fresh results path (`prepareTestResults`:
 *   `{results}` substituted, `TURNGATE_RESULTS` exported); after the run the results are
 *   read and the check is core's `checkWithTestResults` of exit status and results
 *   (issue #16); metadata `results_path` names the file.
 *
 * - a failed check gets `failure_class` (`failureClass` of the run; `assertion` when the
 *   exit code was expected but the structured results failed; issue 19).
 *
 * - a command with `cwd` runs in that workspace folder (`resolveCheckCwd`); a `cwd` that is
 *   missing, not a folder or leaves the workspace (through a symlink) is never run: residual
 *   risk `verification command could not run: cwd "…" …` (issue 15 item 2).
 *
 * Metadata: `{exit_code, duration_ms, timeout_ms, output: {total_bytes, captured_bytes,
 * truncated, timed_out}, artifact_uri?, log_sha256?, log_error?}`. Never rejects.
 */
export async function runVerificationCommand(
  command: VerificationCommand,
  options: VerificationRunOptions,
): Promise<VerificationRun> {
  const where = command.cwd !== undefined ? resolveCheckCwd(options.root, command.cwd) : null;
  const shellOptions: Parameters<typeof runShellCommand>[1] = {
    cwd: where !== null && "dir" in where ? where.dir : options.root,
  };
  if (command.timeout_ms !== undefined) shellOptions.timeoutMs = command.timeout_ms;
  if (options.logDir !== undefined) shellOptions.logDir = options.logDir;
  if (options.env !== undefined) shellOptions.env = options.env;
  if (options.signal !== undefined) shellOptions.signal = options.signal;
  if (options.shell !== undefined) shellOptions.shell = options.shell;
  if (options.launch !== undefined) shellOptions.launch = options.launch;
  const prepared = command.results
    ? await prepareTestResults(command, { baseDir: options.resultsDir, env: options.env })
    : undefined;
  if (prepared) shellOptions.env = prepared.env;
  const execution: ShellRunResult =
    where !== null && "error" in where
      ? {
          command: prepared?.command ?? command.command,
          exitCode: null,
          signal: null,
          timedOut: false,
          aborted: false,
          timeoutMs: clampTimeoutMs(command.timeout_ms),
          durationMs: 0,
          output: "",
          totalBytes: 0,
          capturedBytes: 0,
          truncated: false,
          spawnError: where.error,
        }
      : await runShellCommand(prepared?.command ?? command.command, shellOptions);

  const metadata: Record<string, unknown> = {
    exit_code: execution.exitCode,
    duration_ms: execution.durationMs,
    timeout_ms: execution.timeoutMs,
    output: {
      total_bytes: execution.totalBytes,
      captured_bytes: execution.capturedBytes,
      truncated: execution.truncated,
      timed_out: execution.timedOut,
    },
  };
  if (execution.log) {
    metadata.artifact_uri = execution.log.uri;
    metadata.log_sha256 = execution.log.sha256;
  }
  if (execution.logError !== undefined) metadata.log_error = execution.logError;

  let executionError: string | undefined;
  if (execution.spawnError !== undefined) executionError = execution.spawnError;
  else if (execution.timedOut) executionError = `command timed out after ${execution.timeoutMs}ms`;
  else if (execution.aborted) executionError = "command was cancelled";

  let check = checkFromExecution(command, execution.exitCode ?? -1, metadata, executionError);
  let testResults: ParsedTestResults | undefined;
  if (prepared) {
    metadata.results_path = prepared.path;
    const evidence = await readTestResults(prepared, {
      ...(execution.log ? { logPath: execution.log.path } : {}),
      captured: execution.output,
      truncated: execution.truncated,
    });
    testResults = evidence.results;
    check = checkWithTestResults({
      check,
      exitCode: execution.exitCode,
      expectExit: command.expect_exit,
      ...(executionError !== undefined ? { executionError } : {}),
      evidence,
    });
  }
  const masked = check.status === "passed" ? exitStatusMaskedBy(command.command) : null;
  if (masked !== null) {
    const risk =
      masked.operator === "unreadable" ? EXIT_STATUS_UNVERIFIABLE_RISK : EXIT_STATUS_MASKED_RISK;
    check = { ...check, status: "needs_review", residual_risk: risk };
  }
  if (check.status === "failed") {
    // Exit status as expected but failing structured results: the tests ran and failed.
    check = {
      ...check,
      failure_class: failureClass(execution, command.expect_exit) ?? "assertion",
    };
  }
  return testResults ? { check, execution, metadata, testResults } : { check, execution, metadata };
}
