import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { NativeAddon } from "../../native/select.js";
import { yieldToEventLoop } from "../concurrency.js";
import { lstatInto, RAW_STAT_FIELDS } from "./raw-stat.js";

/** CPUs needed before the helper worker is used by default (see the constructor). */
export const PARALLEL_STAT_MIN_CPUS = 4;
/** Below this many paths everything is stat'ed on the calling thread. */
export const PARALLEL_STAT_MIN = 4096;
/** Paths `lstat`ed between two event-loop yields on the calling thread. */
export const STAT_BATCH = 512;

/**
 * Source of the stat worker. It mirrors {@link lstatInto} exactly (a parity test checks
 * both on the same paths): one message `{ id, paths }` with NUL-joined absolute paths in,
 * one `{ id, out }` with a transferred Float64Array of raw stat records back.
 * `process.getBuiltinModule` works whether the host evaluates it as CommonJS or ESM.
 */
export const STAT_WORKER_SOURCE = `
const { parentPort } = process.getBuiltinModule("node:worker_threads");
const { lstatSync } = process.getBuiltinModule("node:fs");
parentPort.on("message", ({ id, paths }) => {
  const list = paths.split("\\0");
  const out = new Float64Array(list.length * ${RAW_STAT_FIELDS});
  for (let i = 0; i < list.length; i++) {
    const at = i * ${RAW_STAT_FIELDS};
    let st;
    try {
      st = lstatSync(list[i], { throwIfNoEntry: false });
    } catch (error) {
      out[at] = error && error.code === "ENOTDIR" ? 0 : 5;
      continue;
    }
    if (st === undefined) { out[at] = 0; continue; }
    out[at] = st.isFile() ? 1 : st.isSymbolicLink() ? 2 : st.isDirectory() ? 3 : 4;
    out[at + 1] = st.size;
    out[at + 2] = st.mtimeMs;
    out[at + 3] = st.ctimeMs;
    out[at + 4] = st.ino;
    out[at + 5] = st.mode;
  }
  parentPort.postMessage({ id, out }, [out.buffer]);
});
`;

interface Pending {
  resolve: (out: Float64Array) => void;
  reject: (error: Error) => void;
}

/**
 * `lstat`s many paths, sharing large batches between the calling thread and one helper
 * worker thread on machines with spare CPUs (git does the same with its preload-index
 * threads). The worker is started
 * on first need, kept for later calls, and does not keep the process alive while idle.
 * If it cannot start or dies, the calling thread does all the work. Never rejects.
 *
 * With `native` (issue 17), batches go to `@turngate/native`'s `statTree` instead (parallel
 * `lstat` off the JS thread, the same numbers; a batch it refuses is stat'ed here).
 */
export class StatService {
  readonly #parallel: boolean;
  readonly #native: NativeAddon | undefined;
  #worker: Worker | undefined;
  #closing = new WeakSet<Worker>();
  #disabled = false;
  #nextId = 0;
  #pending = new Map<number, Pending>();
  #workerPaths = 0;

  /**
   * `parallel`: whether large batches may be shared with the helper worker. Default: only
   * when the machine offers at least {@link PARALLEL_STAT_MIN_CPUS} CPUs — with fewer, the
   * worker competes with git and the calling thread for the same cores and measured slower
   * than one thread (2-CPU machine: 20,000 lstats took as long split in two as in one).
   */
  constructor(options: { parallel?: boolean; native?: NativeAddon | undefined } = {}) {
    this.#parallel = options.parallel ?? availableParallelism() >= PARALLEL_STAT_MIN_CPUS;
    this.#native = options.native;
  }

  /** True when batches go to `@turngate/native`. */
  get native(): boolean {
    return this.#native !== undefined;
  }

  /** How many paths the helper worker has stat'ed so far (for diagnostics and tests). */
  get workerPaths(): number {
    return this.#workerPaths;
  }

  /**
   * Returns raw stat records (see {@link lstatInto}) for `absPaths`, in order.
   * Input: absolute paths without NUL characters. Output: Float64Array of
   * `absPaths.length * RAW_STAT_FIELDS` numbers.
   */
  async statAll(absPaths: readonly string[]): Promise<Float64Array> {
    const n = absPaths.length;
    if (this.#native !== undefined && n > 0 && allAbsolute(absPaths)) {
      try {
        const result = await this.#native.statTree(
          "/",
          absPaths.map((p) => p.slice(1)),
        );
        return result.records;
      } catch {
        // a path the addon refuses: the TypeScript path below gives the same records
      }
    }
    const out = new Float64Array(n * RAW_STAT_FIELDS);
    const split = this.#parallel && n >= PARALLEL_STAT_MIN ? this.#workerShare(n) : 0;
    const remote = split > 0 ? this.#ask(absPaths.slice(0, split)) : undefined;
    for (let from = split; from < n; from += STAT_BATCH) {
      lstatInto(absPaths, from, Math.min(from + STAT_BATCH, n), out, from);
      await yieldToEventLoop();
    }
    if (remote !== undefined) {
      try {
        out.set(await remote, 0);
        this.#workerPaths += split;
      } catch {
        lstatInto(absPaths, 0, split, out, 0);
      }
    }
    return out;
  }

  /** Stops the helper worker, if any. Later calls start a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) {
      this.#closing.add(worker);
      await worker.terminate();
    }
  }

  #workerShare(n: number): number {
    return this.#ensureWorker() === undefined ? 0 : Math.floor(n / 2);
  }

  #ensureWorker(): Worker | undefined {
    if (this.#disabled) return undefined;
    if (this.#worker !== undefined) return this.#worker;
    try {
      const worker = new Worker(STAT_WORKER_SOURCE, { eval: true, execArgv: [] });
      worker.unref();
      worker.on("message", ({ id, out }: { id: number; out: Float64Array }) => {
        const pending = this.#pending.get(id);
        this.#pending.delete(id);
        if (this.#pending.size === 0) worker.unref();
        pending?.resolve(out);
      });
      const fail = (error: Error): void => {
        if (!this.#closing.has(worker)) this.#disabled = true;
        if (this.#worker === worker) this.#worker = undefined;
        for (const pending of this.#pending.values()) pending.reject(error);
        this.#pending.clear();
      };
      worker.on("error", fail);
      worker.on("exit", (code) => fail(new Error(`stat worker exited with code ${code}`)));
      this.#worker = worker;
      return worker;
    } catch {
      this.#disabled = true;
      return undefined;
    }
  }

  #ask(paths: readonly string[]): Promise<Float64Array> {
    const worker = this.#worker;
    if (worker === undefined) return Promise.reject(new Error("no stat worker"));
    const id = this.#nextId++;
    return new Promise<Float64Array>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.ref(); // an awaited answer must keep the process alive
      worker.postMessage({ id, paths: paths.join("\0") });
    });
  }
}

/** True when every path starts with `/` (the addon takes them as paths below `/`). */
export function allAbsolute(paths: readonly string[]): boolean {
  for (const p of paths) if (p.charCodeAt(0) !== 0x2f) return false;
  return true;
}
