import { spawn } from "node:child_process";

/** How the agent command ended. */
export interface AgentExit {
  /** Exit code; 128 + signal number when a signal ended it. */
  exitCode: number;
  /** Name of the signal that ended it, if one did. */
  signal: NodeJS.Signals | null;
}

const FORWARDED: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

/** The agent command could not be started (e.g. not found). */
export class AgentSpawnError extends Error {
  readonly code = "agent_spawn_failed";
  constructor(command: string, cause: string) {
    super(`agent command could not start: ${command}: ${cause}`);
    this.name = "AgentSpawnError";
  }
}

/** Options of `runAgent`. */
export interface AgentOptions {
  /** Environment of the agent; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * Send the agent's stdout to this process's stderr (fd 2), so this process's stdout
   * carries only its own output (`--json`). Default false: stdout is inherited.
   */
  stdoutToStderr?: boolean;
  /**
   * Collect the agent's stdout and stderr (as UTF-8 text, in arrival order) into this sink
   * instead of inheriting them; wins over `stdoutToStderr`. For in-process runs (tests).
   */
  output?: { write(text: string): unknown };
}

/**
 * Run the agent command `argv` (program and arguments, no shell) in `cwd` with this
 * process's stdin, stdout and stderr (stdout → stderr with `stdoutToStderr`), and wait for
 * it to end.
 *
 * While it runs, SIGINT, SIGTERM and SIGHUP sent to this process are forwarded to it (and
 * do not end this process, so the turn can still be judged). A terminal's Ctrl-C already
 * reaches the agent, which shares the foreground process group, so SIGINT is not forwarded
 * a second time when stdin is a terminal.
 *
 * Errors: rejects with `AgentSpawnError` when the program cannot be started.
 */
export function runAgent(
  argv: readonly string[],
  cwd: string,
  options: AgentOptions = {},
): Promise<AgentExit> {
  const [program, ...args] = argv;
  if (program === undefined) return Promise.reject(new AgentSpawnError("", "no command given"));
  return new Promise((resolve, reject) => {
    const sink = options.output;
    const child = spawn(program, args, {
      cwd,
      stdio: sink
        ? ["inherit", "pipe", "pipe"]
        : ["inherit", options.stdoutToStderr ? 2 : "inherit", "inherit"],
      env: options.env ?? process.env,
    });
    if (sink) {
      for (const stream of [child.stdout, child.stderr]) {
        stream?.setEncoding("utf8");
        stream?.on("data", (text: string) => sink.write(text));
      }
    }
    const handlers = new Map<NodeJS.Signals, () => void>();
    for (const signal of FORWARDED) {
      const handler = () => {
        if (signal === "SIGINT" && process.stdin.isTTY) return;
        child.kill(signal);
      };
      handlers.set(signal, handler);
      process.on(signal, handler);
    }
    const cleanup = () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    };
    child.once("error", (error) => {
      cleanup();
      reject(new AgentSpawnError(argv.join(" "), error.message));
    });
    child.once("close", (code, signal) => {
      cleanup();
      resolve({
        exitCode: code ?? 128 + (signal ? (SIGNAL_NUMBERS[signal] ?? 0) : 0),
        signal,
      });
    });
  });
}
