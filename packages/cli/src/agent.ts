import { spawn } from "node:child_process";
import { closeSync } from "node:fs";
import { Server as NetServer } from "node:net";
import { EGRESS_HANDLE_MESSAGE, EGRESS_READY_MESSAGE, type EgressProxy } from "@turngate/node";

/** How the agent command ended. */
export interface AgentExit {
  /** Exit code; 128 + signal number when a signal ended it. */
  exitCode: number;
  /** Name of the signal that ended it, if one did. */
  signal: NodeJS.Signals | null;
  /** Its pid (also its process group and session id when `detached`). */
  pid?: number;
  /** True when it ran in its own session and process group (`setsid`). */
  detached: boolean;
  /**
   * With `startReport`: whether the command wrote `started` to its file descriptor 3 (the
   * confined agent's sandbox was set up and the agent about to start).
   */
  started?: boolean;
}

const FORWARDED: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** How long the native egress bootstrap's socket is waited for, ms. */
const EGRESS_RECEIVE_MS = 30_000;

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // closed already
  }
}
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
  /**
   * Start the agent in its own session and process group (`setsid`), so everything it
   * starts can be found and killed as a group afterwards. Default: true unless stdin is a
   * terminal (`agentDetachedByDefault`).
   */
  detached?: boolean;
  /**
   * Give the command a pipe as file descriptor 3 and report whether it wrote `started` there
   * (`AgentExit.started`): the confined agent's launcher writes it once its sandbox is set
   * up, so a sandbox that could not be built is told apart from an agent that failed.
   */
  startReport?: boolean;
  /**
   * Bytes the command reads from its file descriptor 4 (a pipe, closed after them): the
   * confined agent's seccomp filter, which bubblewrap reads with `--seccomp 4` before the
   * agent starts (docs/design.md §3b). Slot 3 is an ignored descriptor when `startReport`
   * is off.
   */
  seccompFilter?: Buffer;
  /**
   * The confined agent's egress proxy (`ConfinedAgent.egress`): the command gets an IPC
   * channel on fd 5 (slots 3 and 4 as above), and the listening socket the sandbox's
   * bootstrap sends on it with `EGRESS_HANDLE_MESSAGE` is served by this proxy, then
   * answered with `EGRESS_READY_MESSAGE`. Only the first such message is taken; anything
   * else on the channel is ignored.
   */
  egress?: EgressProxy;
  /**
   * With `egress`, the native bootstrap's channel (`ConfinedAgent.egressChannel`): fd 5 is
   * its `sandbox` end instead of an IPC channel (closed here once the command started), and
   * the listening socket is received on `host`.
   */
  egressChannel?: {
    host: number;
    sandbox: number;
    receive(fd: number, timeoutMs: number): Promise<number>;
  };
}

/**
 * Whether `runAgent` detaches the agent by default: not when stdin is a terminal. A new
 * session has no controlling terminal — an interactive agent could not open `/dev/tty`,
 * would get no SIGWINCH and no job control — so on a terminal the agent stays in
 * turngate's process group and session (a terminal's Ctrl-C reaches both; turngate keeps
 * running and judges the turn), and what it leaves running is found by the environment
 * marker and the subreaper instead of the process group.
 */
export function agentDetachedByDefault(): boolean {
  return process.stdin.isTTY !== true;
}

/**
 * Run the agent command `argv` (program and arguments, no shell) in `cwd` with this
 * process's stdin, stdout and stderr (stdout → stderr with `stdoutToStderr`), and wait for
 * it to end.
 *
 * Detached (the default without a terminal, see `agentDetachedByDefault`) it leads its own
 * session and process group. While it runs, SIGINT, SIGTERM and SIGHUP sent to this
 * process are forwarded to the agent's whole process group when detached, to the agent
 * otherwise (and do not end this process, so the turn can still be judged). A terminal's
 * Ctrl-C already reaches an agent that shares the foreground process group, so SIGINT is
 * not forwarded a second time when stdin is a terminal and the agent is not detached.
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
    const detached = options.detached ?? agentDetachedByDefault();
    const sink = options.output;
    const stdio: ("inherit" | "pipe" | "ignore" | "ipc" | number)[] = sink
      ? ["inherit", "pipe", "pipe"]
      : ["inherit", options.stdoutToStderr ? 2 : "inherit", "inherit"];
    if (options.startReport === true) stdio.push("pipe");
    if (options.seccompFilter !== undefined || options.egress !== undefined) {
      if (stdio.length === 3) stdio.push("ignore");
      stdio.push(options.seccompFilter !== undefined ? "pipe" : "ignore");
    }
    if (options.egress !== undefined) {
      stdio.push(options.egressChannel !== undefined ? options.egressChannel.sandbox : "ipc");
    }
    const child = spawn(program, args, {
      cwd,
      stdio,
      env: options.env ?? process.env,
      detached,
    });
    const filterPipe =
      options.seccompFilter !== undefined
        ? (child.stdio[4] as import("node:stream").Duplex | null)
        : null;
    if (filterPipe && options.seccompFilter !== undefined) {
      // bubblewrap reads to the end before it starts the agent; a bubblewrap that failed
      // earlier closes its end (EPIPE), which its own exit reports.
      filterPipe.on("error", () => undefined);
      filterPipe.resume();
      filterPipe.end(options.seccompFilter);
    }
    const egress = options.egress;
    const channel = options.egressChannel;
    if (egress !== undefined && channel !== undefined) {
      // The child has its own copy of the sandbox end now; the socket arrives on the host end.
      // An end closed here is marked -1, so the owner's cleanup never closes a reused number.
      closeQuietly(channel.sandbox);
      channel.sandbox = -1;
      // The receipt owns the host end from here: it is closed only once the receipt settled
      // (the sandbox's end closing wakes it), never while a worker thread may read it.
      const host = channel.host;
      channel.host = -1;
      channel
        .receive(host, EGRESS_RECEIVE_MS)
        .then(
          // A socket that comes after the turn's cleanup is closed by `serve` (it refuses).
          (fd) => egress.serve({ fd }).catch(() => undefined),
          () => undefined, // the launcher exits 125 when its bootstrap failed: said there
        )
        .finally(() => closeQuietly(host));
    } else if (egress !== undefined) {
      let served = false;
      child.on("message", (message, handle) => {
        if (served || message !== EGRESS_HANDLE_MESSAGE || !(handle instanceof NetServer)) return;
        served = true;
        egress.serve(handle).then(
          () => {
            if (child.connected) child.send(EGRESS_READY_MESSAGE, () => undefined);
          },
          () => handle.close(),
        );
      });
    }
    let startText = "";
    const startPipe =
      options.startReport === true ? (child.stdio[3] as import("node:stream").Readable) : undefined;
    if (startPipe) {
      startPipe.setEncoding("utf8");
      startPipe.on("data", (text: string) => {
        startText += text;
      });
      startPipe.on("error", () => undefined);
    }
    if (sink) {
      for (const stream of [child.stdout, child.stderr]) {
        stream?.setEncoding("utf8");
        stream?.on("data", (text: string) => sink.write(text));
      }
    }
    const handlers = new Map<NodeJS.Signals, () => void>();
    for (const signal of FORWARDED) {
      const handler = () => {
        if (detached && child.pid !== undefined) {
          try {
            process.kill(-child.pid, signal);
            return;
          } catch {
            // The group is gone or refuses: fall back to the agent itself.
          }
        }
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
      const code = (error as NodeJS.ErrnoException).code;
      const cause =
        code === "ENOENT"
          ? `${program} not found on PATH; check the command after --`
          : error.message;
      reject(new AgentSpawnError(argv.join(" "), cause));
    });
    // "exit", not "close": a process the agent left running may hold the output pipes open
    // for ever; it is found and killed only after this resolves (what the agent wrote keeps
    // reaching the sink meanwhile).
    child.once("exit", (code, signal) => {
      cleanup();
      filterPipe?.destroy();
      const exit: AgentExit = {
        exitCode: code ?? 128 + (signal ? (SIGNAL_NUMBERS[signal] ?? 0) : 0),
        signal,
        detached,
      };
      if (child.pid !== undefined) exit.pid = child.pid;
      if (startPipe) {
        // The pipe's last bytes may arrive after "exit": wait for its end, or give up soon.
        let settled = false;
        const done = () => {
          if (settled) return;
          settled = true;
          exit.started = startText.startsWith("started");
          resolve(exit);
        };
        if (startText.startsWith("started") || startPipe.readableEnded) done();
        else {
          const timer = setTimeout(done, 500);
          startPipe.once("end", () => {
            clearTimeout(timer);
            done();
          });
        }
        return;
      }
      resolve(exit);
    });
  });
}
