import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { ContentAddressedLog } from "../fs/content-log.js";
import { OutputCapture } from "./capture.js";
import { waitForGroupExit } from "./group-exit.js";
import { PROCESS_GROUP_SETTLE_MS, stopProcessGroup, trackProcessGroup } from "./process-group.js";
import { releaseSupervisor, supervisedSpawn } from "./supervisor.js";
import { clampTimeoutMs } from "./timeout.js";

/** The shell that runs check commands. */
const CHECK_SHELL = "sh";

/** After the shell exits, how long to wait for the released supervisor to leave the group, ms. */
const SUPERVISOR_EXIT_MS = 100;

/** Options of `runShellCommand`. */
export interface ShellRunOptions {
  /** Working directory: the workspace root. */
  cwd: string;
  /** Timeout in ms; default 120,000, values below 1,000 are raised to 1,000 (A3S §2.13). */
  timeoutMs?: number;
  /** Folder for the full output log (`<sha256>.log`); no log is written when absent. */
  logDir?: string;
  /** Environment of the command; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Aborting stops the command's process group like a timeout does. */
  signal?: AbortSignal;
  /**
   * The shell program run as `<shell> -c command`: an absolute path (issue 10: resolved at
   * baseline time, `planCheckEnvironment`) or a name looked up on `env.PATH`; default `sh`.
   */
  shell?: string;
  /**
   * Wraps the supervised program before it is spawned (the clean room's check sandbox,
   * `isolation/sandbox.ts`): input the `{file, args}` that would run, output what runs
   * instead (e.g. `bwrap … -- file args`). Default: run as is.
   */
  launch?: (program: { file: string; args: string[] }) => { file: string; args: string[] };
}

/** What happened when a shell command ran. Times in ms, sizes in bytes. */
export interface ShellRunResult {
  command: string;
  /** Exit code; 128 + signal number when the shell was killed by a signal; null if it never ran. */
  exitCode: number | null;
  /** Name of the signal that ended the shell, if one did. */
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** The timeout that applied, after clamping. */
  timeoutMs: number;
  durationMs: number;
  /** Combined stdout+stderr: first 64 KiB, the A3S truncation notice, last 36 KiB. */
  output: string;
  totalBytes: number;
  capturedBytes: number;
  truncated: boolean;
  /** The full log, when `logDir` was given and the log could be written. */
  log?: { path: string; uri: string; sha256: string };
  /** Why the log could not be written, when it could not. */
  logError?: string;
  /** Set when the command could not be started (e.g. `ENOENT` for the cwd). */
  spawnError?: string;
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/**
 * Run `command` with `sh -c` (or `options.shell -c`) in `options.cwd` as the leader of a
 * new process group.
 *
 * - On timeout (or abort) the whole group gets SIGTERM, then SIGKILL after 500 ms, so
 *   grandchildren (`sleep 100 &`, a test runner's workers) never outlive the check. The
 *   same happens to processes of the group still alive after the shell exits.
 * - stdout and stderr are captured together, bounded to 100 KiB (`OutputCapture`); the
 *   full bytes are streamed to `<logDir>/<sha256>.log` (content-addressed, atomic rename).
 * - If this Node process exits first, the group is SIGKILLed (`trackProcessGroup`).
 *
 * A spawn failure is returned as `spawnError` with `exitCode: null`, not thrown. Errors:
 * rejects only with `TurngateValidationError` (path `timeout_ms`) for an invalid timeout.
 * Implements A3S §2.13 (timeouts) and §2.16 (capture); the group kill is our addition.
 */
export async function runShellCommand(
  command: string,
  options: ShellRunOptions,
): Promise<ShellRunResult> {
  const timeoutMs = clampTimeoutMs(options.timeoutMs);
  const started = performance.now();
  const capture = new OutputCapture();
  let log: ContentAddressedLog | undefined;
  let logError: string | undefined;
  if (options.logDir !== undefined) {
    try {
      log = await ContentAddressedLog.open(options.logDir);
    } catch (error) {
      logError = describeError(error);
    }
  }

  // Under the supervisor (supervisor.ts): if this process dies, even by SIGKILL, the
  // check's whole process group is SIGKILLed.
  const plain = supervisedSpawn(options.shell ?? CHECK_SHELL, command);
  const supervised = options.launch ? options.launch(plain) : plain;
  const child = spawn(supervised.file, supervised.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const supervisorPipe = child.stdio[3] as Writable | null;
  supervisorPipe?.on("error", () => {});
  const stdout = child.stdout as Readable;
  const stderr = child.stderr as Readable;

  const outcome = await new Promise<{
    exitCode: number | null;
    signal: NodeJS.Signals | null;
    timedOut: boolean;
    aborted: boolean;
    spawnError?: string;
  }>((resolve) => {
    let timedOut = false;
    let aborted = false;
    let untrack: (() => void) | undefined;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let streamsOpen = 2;
    let settleTimer: NodeJS.Timeout | undefined;

    const onData = (chunk: Buffer, stream: NodeJS.ReadableStream) => {
      capture.push(chunk);
      if (log && !log.write(chunk)) {
        stream.pause();
        void log.drain().then(() => stream.resume());
      }
    };
    stdout.on("data", (chunk: Buffer) => onData(chunk, stdout));
    stderr.on("data", (chunk: Buffer) => onData(chunk, stderr));

    const finish = () => {
      if (exited === undefined || streamsOpen > 0 || !groupSettled) return;
      clearTimeout(timer);
      clearTimeout(settleTimer);
      options.signal?.removeEventListener("abort", onAbort);
      untrack?.();
      resolve({ exitCode: exited.code, signal: exited.signal, timedOut, aborted });
    };
    const onStreamClosed = () => {
      streamsOpen -= 1;
      finish();
    };
    stdout.on("close", onStreamClosed);
    stderr.on("close", onStreamClosed);

    let stopping: Promise<void> | undefined;
    /** Set once the group is gone, or was stopped, after the shell exited. */
    let groupSettled = false;
    const stopGroup = () => {
      if (child.pid === undefined || stopping) return;
      stopping = stopProcessGroup(child.pid).then(() => {
        // Whatever still holds the pipes after SIGKILL cannot write any more: stop waiting.
        settleTimer = setTimeout(() => {
          stdout.destroy();
          stderr.destroy();
        }, PROCESS_GROUP_SETTLE_MS);
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      stopGroup();
    };
    if (options.signal?.aborted) queueMicrotask(onAbort);
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    // Tracked at once (not on "spawn"), so a signal handled before that event still finds
    // the group: spawn() returns after the child has called setsid and exec'd.
    if (child.pid !== undefined) untrack = trackProcessGroup(child.pid);
    child.once("error", (error) => {
      if (exited !== undefined) return;
      releaseSupervisor(supervisorPipe);
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      untrack?.();
      resolve({
        exitCode: null,
        signal: null,
        timedOut: false,
        aborted: false,
        spawnError: describeSpawnError(error, options.cwd),
      });
    });
    child.once("exit", (code, signal) => {
      exited = { code, signal };
      // The command has ended: its timeout and abort no longer apply while the group settles.
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      releaseSupervisor(supervisorPipe);
      // The shell is gone; once the released supervisor has left, stop anything it left
      // behind in its group (background jobs).
      void (async () => {
        if (await waitForGroupExit(child.pid, SUPERVISOR_EXIT_MS)) stopGroup();
        if (stopping) {
          // SIGKILL is delivered asynchronously: wait (bounded) until the group is gone.
          await stopping;
          await waitForGroupExit(child.pid, PROCESS_GROUP_SETTLE_MS);
        }
        groupSettled = true;
        finish();
      })();
    });
  });

  let logInfo: ShellRunResult["log"];
  if (log) {
    if (outcome.spawnError !== undefined) {
      await log.discard();
    } else {
      try {
        const committed = await log.commit();
        logInfo = {
          path: committed.path,
          uri: pathToFileURL(committed.path).href,
          sha256: committed.sha256,
        };
      } catch (error) {
        logError = describeError(error);
      }
    }
  }

  const summary = capture.summary();
  const exitCode =
    outcome.exitCode ??
    (outcome.signal !== null ? 128 + (SIGNAL_NUMBERS[outcome.signal] ?? 0) : null);
  const result: ShellRunResult = {
    command,
    exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    aborted: outcome.aborted,
    timeoutMs,
    durationMs: Math.round(performance.now() - started),
    output: capture.render(),
    totalBytes: summary.totalBytes,
    capturedBytes: summary.capturedBytes,
    truncated: summary.truncated,
  };
  if (logInfo) result.log = logInfo;
  if (logError !== undefined) result.logError = logError;
  if (outcome.spawnError !== undefined) result.spawnError = outcome.spawnError;
  return result;
}

function describeSpawnError(error: Error, cwd: string): string {
  // Node reports a missing cwd as "spawn sh ENOENT"; say which one is missing.
  if ((error as NodeJS.ErrnoException).code === "ENOENT" && !existsSync(cwd)) {
    return `working directory does not exist: ${cwd}`;
  }
  return error.message;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
