/**
 * A small pool of worker threads for the large request lines of the stdio server (issue
 * #11 §3: "requests are served concurrently" must hold for CPU-heavy pure calls too). A
 * line of at least the threshold in bytes is sent, undecoded, to a worker, so even its
 * `JSON.parse` (≈0.4 s for 30 MiB) happens off the server's thread and a concurrent
 * `initialize` is answered at once. Workers start on first use, are unref'd while idle and
 * are terminated by `close`; a worker that dies fails its task and is replaced.
 */
import { Worker } from "node:worker_threads";
import type { LineOutcome } from "../rpc/stateless-line.js";

interface Task {
  id: number;
  bytes: Uint8Array;
  resolve(outcome: LineOutcome): void;
  reject(error: Error): void;
}

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
      this.queue.push({ id: this.nextTask++, bytes: own, resolve, reject });
      this.pump();
    });
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
      slot.worker.ref();
      try {
        slot.worker.postMessage({ task: task.id, bytes: task.bytes }, [
          task.bytes.buffer as ArrayBuffer,
        ]);
      } catch {
        // Node marks pooled and stream buffers untransferable: send a copy instead.
        const copy = new Uint8Array(task.bytes);
        task.bytes = copy;
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
      worker.unref();
      task.resolve(message.outcome);
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
