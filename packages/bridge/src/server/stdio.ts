/**
 * The bridge's stdio server (docs/design.md §5): JSON-RPC 2.0, one UTF-8 JSON object per line on
 * stdin/stdout, 32 MiB per message, requests served concurrently, logs on stderr only, never
 * exits on bad input. EOF or `shutdown` closes every session (killing running checks),
 * answers what is still in flight, and resolves with exit code 0.
 */
import type { Readable, Writable } from "node:stream";
import { BridgeError } from "../errors.js";
import type { MethodTable } from "../method.js";
import { MAX_MESSAGE_BYTES } from "../protocol.js";
import { invoke, toBridgeError } from "../rpc/dispatch.js";
import {
  errorLine,
  notificationLine,
  parseLine,
  type RequestId,
  resultLine,
} from "../rpc/envelope.js";
import type { LineOutcome } from "../rpc/stateless-line.js";
import { bridgeTable, type ServerContext } from "../table.js";
import { redirectConsoleTo } from "./console.js";
import { LineSplitter } from "./line-splitter.js";
import { nodeSha256Hex } from "./node-sha256.js";
import { SessionRegistry } from "./sessions.js";
import { WorkerPool } from "./worker-pool.js";

/** Default size from which a line is served by a worker: 256 KiB. */
export const WORKER_THRESHOLD_BYTES = 256 * 1024;

/** Streams and switches of one server run. */
export interface StdioServerOptions {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** Method table to serve (default: the full bridge table). */
  table?: MethodTable<ServerContext>;
  /** Check every result against its schema (tests); a mismatch is answered as internal_error. */
  validateResults?: boolean;
  /** Largest line in bytes, either direction (default 32 MiB; tests may lower it). */
  maxMessageBytes?: number;
  /** Registry for the sessions (default: a new one); a host closes it on a signal. */
  sessions?: SessionRegistry;
  /**
   * Lines of at least this many bytes are decoded, parsed and answered by a worker thread
   * (stateless methods; others come back to this thread), so a CPU-heavy call never
   * delays the others (default `WORKER_THRESHOLD_BYTES`, 256 KiB; `Infinity` turns the
   * pool off).
   */
  workerThresholdBytes?: number;
  /** Most worker threads at once (default 2). */
  workers?: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
/** How long EOF/shutdown waits for in-flight requests after closing sessions, in ms. */
const SETTLE_MS = 5000;

/** Waits for `tasks` up to `ms` milliseconds; true if all settled in time. */
async function settleWithin(tasks: Promise<void>[], ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), ms);
  });
  const all = Promise.allSettled(tasks).then(() => true as const);
  const ok = await Promise.race([all, timeout]);
  clearTimeout(timer);
  return ok;
}

/**
 * Serves the bridge protocol until EOF on `stdin` or a `shutdown` request.
 *
 * While it runs, `console.log/info/debug/warn` write to `stderr` when `stdout` is the
 * process's stdout, so stray logs can never corrupt the protocol stream.
 *
 * @returns a promise of the exit code: 0 after a clean EOF or shutdown (sessions closed,
 *   in-flight requests answered, stdout flushed).
 */
export function runStdioServer(options: StdioServerOptions): Promise<number> {
  const { stdin, stdout, stderr } = options;
  const table = options.table ?? bridgeTable;
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const methods = Object.keys(table).sort();
  const sessions = options.sessions ?? new SessionRegistry();
  const inflight = new Set<Promise<void>>();
  const threshold = options.workerThresholdBytes ?? WORKER_THRESHOLD_BYTES;
  let pool: WorkerPool | undefined;
  const restoreConsole = stdout === process.stdout ? redirectConsoleTo(stderr) : () => {};
  let stopping = false;

  const log = (message: string) => {
    stderr.write(`[turngate bridge] ${message}\n`);
  };
  const send = (line: string, id: RequestId | null, idJson: string | null = null) => {
    let out = line;
    // A UTF-16 code unit is at most 3 UTF-8 bytes: count bytes only for a line that may be
    // over the limit.
    if (out.length * 3 > maxBytes && Buffer.byteLength(out) > maxBytes) {
      log(`response to ${String(id)} exceeds ${maxBytes} bytes; sent too_large instead`);
      out = errorLine(
        id,
        new BridgeError("too_large", `response exceeds ${maxBytes} bytes`, undefined, -32603),
        idJson ?? JSON.stringify(id),
      );
    }
    stdout.write(`${out}\n`);
  };

  return new Promise<number>((resolve) => {
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.off("error", onEnd);
      stdin.pause();
      // The server owns its input until it ends; releasing it lets the process exit even
      // when the client keeps its end of the pipe open after `shutdown`.
      stdin.destroy();
      sessions.closeAll();
      const settled = await settleWithin([...inflight], SETTLE_MS);
      if (!settled) log(`${inflight.size} request(s) still running after ${SETTLE_MS} ms; exiting`);
      await pool?.close();
      await new Promise<void>((done) => stdout.write("", () => done()));
      restoreConsole();
      resolve(0);
    };

    // Notifications of one request carry its id as sent (`request_id`).
    const notifierFor = (idJson: string | null) => (name: string, body: Record<string, unknown>) =>
      send(notificationLine(name, body, idJson ?? undefined), null);
    const requestShutdown = () => {
      stopping = true;
    };
    const invokeOptions = { validateResult: options.validateResults === true };
    const refuse = (
      method: string,
      id: RequestId | null,
      idJson: string | null,
      thrown: unknown,
    ) => {
      const error = toBridgeError(thrown);
      if (error.code === "internal_error") log(`${method}: ${error.message}`);
      if (id !== null) send(errorLine(id, error, idJson), id, idJson);
    };
    const answer = (
      method: string,
      id: RequestId | null,
      idJson: string | null,
      result: unknown,
    ) => {
      if (id === null) return;
      let line: string;
      try {
        line = resultLine(id, result, idJson ?? JSON.stringify(id));
      } catch (error) {
        // A result JSON cannot carry (a bridge bug): answer internal_error, keep serving.
        refuse(method, id, idJson, error);
        return;
      }
      send(line, id, idJson);
    };

    // A synchronous handler (every stateless method) is answered at once, in line order;
    // an asynchronous one is tracked in `inflight` while later lines are served.
    const serve = (
      method: string,
      params: unknown,
      id: RequestId | null,
      idJson: string | null,
    ) => {
      const notify = notifierFor(idJson);
      const ctx: ServerContext = {
        requestId: id,
        methods,
        sessions,
        notify,
        requestShutdown,
        sha256Hex: nodeSha256Hex,
      };
      let out: unknown;
      try {
        out = invoke(table, method, params, ctx, invokeOptions);
      } catch (error) {
        refuse(method, id, idJson, error);
        if (stopping) void finish();
        return;
      }
      if (!(out instanceof Promise)) {
        answer(method, id, idJson, out);
        if (stopping) void finish();
        return;
      }
      const task: Promise<void> = out
        .then(
          (result) => answer(method, id, idJson, result),
          (error: unknown) => refuse(method, id, idJson, error),
        )
        .finally(() => {
          inflight.delete(task);
          if (stopping) void finish();
        });
      inflight.add(task);
    };

    /** Decodes, parses and serves one line on this thread. */
    const serveBytes = (bytes: Uint8Array) => {
      let text: string;
      try {
        text = utf8.decode(bytes);
      } catch {
        send(errorLine(null, new BridgeError("parse_error", "parse error: invalid UTF-8")), null);
        return;
      }
      if (text.endsWith("\r")) text = text.slice(0, -1);
      // A request starts with "{"; only other lines may be blank.
      if (text.charCodeAt(0) !== 0x7b && text.trim() === "") return;
      const incoming = parseLine(text);
      if (incoming.kind === "invalid") {
        send(errorLine(incoming.id, incoming.error, incoming.idJson), incoming.id, incoming.idJson);
      } else if (incoming.kind === "request") {
        serve(incoming.method, incoming.params, incoming.id, incoming.idJson);
      } else serve(incoming.method, incoming.params, null, null);
    };

    /**
     * Serves a large line in a worker (issue #11 §3); a line the worker hands back (a
     * session method, initialize, shutdown) is served here. A worker that dies (a bug) is
     * answered internal_error with id null and replaced.
     */
    const offloaded = (outcome: Promise<LineOutcome>) => {
      const task: Promise<void> = outcome
        .then(
          (result) => {
            if (result.kind === "hand_back") {
              // The worker sends the (transferred) bytes back with the hand-back. The line
              // arrived before any EOF or shutdown, so it is answered like one in flight.
              if (result.bytes !== undefined) serveBytes(result.bytes);
              return;
            }
            if (result.log !== undefined) log(result.log);
            if (result.line !== null) send(result.line, result.id, result.idJson);
          },
          (error: unknown) => {
            // A bug: the line's bytes went to the dead worker, so its id is unknown here.
            log(`worker failed: ${String(error)}`);
            send(
              errorLine(null, new BridgeError("internal_error", "internal error: worker failed")),
              null,
            );
          },
        )
        .finally(() => {
          inflight.delete(task);
          if (stopping) void finish();
        });
      inflight.add(task);
    };
    const workerPool = () => {
      pool ??= new WorkerPool(options.workers ?? 2, options.validateResults === true);
      return pool;
    };

    // A line is judged by its raw size, before it is decoded or parsed: one that reaches
    // the threshold while it is still arriving is streamed to a worker piece by piece (this
    // thread never joins it); one that arrived whole in a chunk is sent whole.
    const splitter = new LineSplitter(
      maxBytes,
      {
        onTooLarge: () => {
          send(
            errorLine(null, new BridgeError("too_large", `message exceeds ${maxBytes} bytes`)),
            null,
          );
        },
        onLine: (bytes) => {
          if (stopping) return;
          if (bytes.length >= threshold) offloaded(workerPool().run(bytes));
          else serveBytes(bytes);
        },
        onLongLine: () => {
          if (stopping) return null;
          const stream = workerPool().stream();
          offloaded(stream.outcome);
          // A line that ends after EOF or shutdown is dropped, as one served here would be.
          return {
            push: (piece) => stream.push(piece),
            end: () => (stopping ? stream.abort() : stream.end()),
            abort: () => stream.abort(),
          };
        },
      },
      threshold,
    );

    const onData = (chunk: Buffer | string) => {
      splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    };
    const onEnd = () => {
      splitter.end();
      stopping = true;
      void finish();
    };
    stdin.on("data", onData);
    stdin.on("end", onEnd);
    stdin.on("error", onEnd);
  });
}
