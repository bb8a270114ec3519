/**
 * A small pool of worker threads for the large request lines of the stdio server (issue
 * #11 §3: "requests are served concurrently" must hold for CPU-heavy pure calls too). A
 * line of at least the threshold in bytes is sent, undecoded, to a worker, so even its
 * `JSON.parse` (≈0.4 s for 30 MiB) happens off the server's thread and a concurrent
 * `initialize` is answered at once. A line still arriving can be streamed to a worker piece
 * by piece (`stream`), so this thread never joins or holds the whole of it. Workers start
 * on first use, are unref'd while idle and are terminated by `close`; a worker that dies
 * fails its task and is replaced.
 */
import { Worker } from "node:worker_threads";
import type { LineOutcome } from "../rpc/stateless-line.js";

interface Task {
  id: number;
  /** A whole line (`run`), or a streamed line's pieces not yet posted to its worker. */
  pieces: Uint8Array[];
  /** Posted as pieces (`stream`) rather than as one line. */
  streamed: boolean;
  /** No more pieces will come: a whole line, or a stream's `end` (or `abort`). */
  ended: boolean;
  aborted: boolean;
  slot: Slot | null;
  resolve(outcome: LineOutcome): void;
  reject(error: Error): void;
}

/** One line being streamed to a worker (`WorkerPool.stream`). */
export interface PooledLineStream {
  /** The next bytes of the line (copied now: the caller may reuse its buffer). */
  push(piece: Uint8Array): void;
  /** The line is complete: the worker joins the pieces and answers it. */
  end(): void;
  /** Drops the line (it crossed the size cap): the outcome is an empty reply. */
  abort(): void;
  /** The outcome once the line has ended; rejects when the worker died or the pool closed. */
  outcome: Promise<LineOutcome>;
}

/** The outcome of an aborted stream: nothing to send. */
const NOTHING: LineOutcome = { kind: "reply", line: null, id: null, idJson: null };

interface Slot {
  worker: Worker;
  task: Task | null;
}

/**
 * How to start a worker: the built `line-worker.js` next to this module; when running from
 * source (tests, through tsx), a bootstrap that registers tsx in the worker first (a
 * worker does not run the parent's `--import tsx`) and then imports `line-worker.ts`.
 */
function workerEntry(): { entry: URL | string; eval: boolean } {
  if (!import.meta.url.endsWith(".ts")) {
    return { entry: new URL("./line-worker.js", import.meta.url), eval: false };
  }
  const tsx = import.meta.resolve("tsx/esm/api");
  const worker = new URL("./line-worker.ts", import.meta.url).href;
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); })`;
  return { entry: code, eval: true };
}

/** Pool of `size` workers answering raw lines with the stateless table. */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextTask = 1;
  private closed = false;

  /**
   * @param size most workers running at once (≥ 1).
   * @param validateResult passed to every worker (check results against their schemas).
   */
  constructor(
    private readonly size: number,
    private readonly validateResult: boolean,
  ) {}

  /**
   * Answers one line (bytes without the newline) in a worker. Bytes that fill their own
   * ArrayBuffer are transferred (the caller must not use them afterwards), others copied.
   * @returns the outcome, or a rejection when the worker died or the pool is closed.
   */
  run(bytes: Uint8Array): Promise<LineOutcome> {
    if (this.closed) return Promise.reject(new Error("worker pool closed"));
    // A line assembled from several chunks owns its whole ArrayBuffer: transfer it as is
    // (a 30 MiB copy on this thread is what the pool is here to avoid); else copy it.
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    // (`new Uint8Array(view)` copies; Buffer's `slice` would not.)
    const own = whole ? bytes : new Uint8Array(bytes);
    return new Promise<LineOutcome>((resolve, reject) => {
      this.queue.push(this.task([own], false, true, resolve, reject));
      this.pump();
    });
  }

  /**
   * Starts streaming one line to a worker: each `push`ed piece is copied and posted at
   * once when a worker is free (else kept until one is), `end` asks for the answer. The
   * worker joins the pieces, so no thread but the worker ever holds the whole line.
   */
  stream(): PooledLineStream {
    let task: Task | undefined;
    const outcome = this.closed
      ? Promise.reject(new Error("worker pool closed"))
      : new Promise<LineOutcome>((resolve, reject) => {
          task = this.task([], true, false, resolve, reject);
          this.queue.push(task);
          this.pump();
        });
    const post = (message: object, transfer: ArrayBuffer[] = []) =>
      task?.slot?.worker.postMessage({ task: task.id, ...message }, transfer);
    return {
      outcome,
      push: (piece) => {
        if (!task || task.ended) return;
        const copy = new Uint8Array(piece);
        if (task.slot) post({ piece: copy }, [copy.buffer]);
        else task.pieces.push(copy);
      },
      end: () => {
        if (!task || task.ended) return;
        task.ended = true;
        if (task.slot) post({ end: true });
      },
      abort: () => {
        if (!task || task.ended) return;
        task.ended = true;
        task.aborted = true;
        task.pieces = [];
        if (task.slot) post({ abort: true });
        else {
          this.queue.splice(this.queue.indexOf(task), 1);
          task.resolve(NOTHING);
        }
      },
    };
  }

  private task(
    pieces: Uint8Array[],
    streamed: boolean,
    ended: boolean,
    resolve: (outcome: LineOutcome) => void,
    reject: (error: Error) => void,
  ): Task {
    return {
      id: this.nextTask++,
      pieces,
      streamed,
      ended,
      aborted: false,
      slot: null,
      resolve,
      reject,
    };
  }

  /** Terminates every worker; queued and running tasks reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error("worker pool closed"));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        slot.task?.reject(new Error("worker pool closed"));
        return slot.worker.terminate();
      }),
    );
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.task === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const task = this.queue.shift() as Task;
      slot.task = task;
      task.slot = slot;
      slot.worker.ref();
      if (task.streamed) {
        for (const piece of task.pieces.splice(0)) {
          slot.worker.postMessage({ task: task.id, piece }, [piece.buffer as ArrayBuffer]);
        }
        if (task.ended) slot.worker.postMessage({ task: task.id, end: true });
        continue;
      }
      const bytes = task.pieces[0] as Uint8Array;
      task.pieces = [];
      try {
        slot.worker.postMessage({ task: task.id, bytes }, [bytes.buffer as ArrayBuffer]);
      } catch {
        // Node marks pooled and stream buffers untransferable: send a copy instead.
        const copy = new Uint8Array(bytes);
        slot.worker.postMessage({ task: task.id, bytes: copy }, [copy.buffer]);
      }
    }
  }

  private spawn(): Slot {
    const { entry, eval: isEval } = workerEntry();
    const worker = new Worker(entry, {
      eval: isEval,
      workerData: { validateResult: this.validateResult },
    });
    const slot: Slot = { worker, task: null };
    worker.unref();
    worker.on("message", (message: { task: number; outcome: LineOutcome }) => {
      const task = slot.task;
      if (!task || task.id !== message.task) return;
      slot.task = null;
      task.slot = null;
      worker.unref();
      task.resolve(task.aborted ? NOTHING : message.outcome);
      this.pump();
    });
    const fail = (error: Error) => {
      const i = this.slots.indexOf(slot);
      if (i !== -1) this.slots.splice(i, 1);
      slot.task?.reject(error);
      slot.task = null;
      if (!this.closed) this.pump();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`worker exited with code ${code}`)));
    this.slots.push(slot);
    return slot;
  }
}
