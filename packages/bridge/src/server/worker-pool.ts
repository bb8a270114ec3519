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

/** The worker entry next to this module: `.ts` when running from source (tsx), else `.js`. */
function workerUrl(): URL {
  const ext = import.meta.url.endsWith(".ts") ? "ts" : "js";
  return new URL(`./line-worker.${ext}`, import.meta.url);
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
   * Answers one line (bytes without the newline) in a worker. The bytes are copied into a
   * buffer of their own and transferred.
   * @returns the outcome, or a rejection when the worker died or the pool is closed.
   */
  run(bytes: Uint8Array): Promise<LineOutcome> {
    if (this.closed) return Promise.reject(new Error("worker pool closed"));
    const own = new Uint8Array(bytes.byteLength);
    own.set(bytes);
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
      slot.worker.postMessage({ task: task.id, bytes: task.bytes }, [
        task.bytes.buffer as ArrayBuffer,
      ]);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(workerUrl(), { workerData: { validateResult: this.validateResult } });
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
