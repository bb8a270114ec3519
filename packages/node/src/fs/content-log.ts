import { createHash, type Hash, randomBytes } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { ensureDirectory } from "./ensure-dir.js";

/** A finished log: where it is, the lowercase hex SHA-256 of its bytes and its size in bytes. */
export interface CommittedLog {
  path: string;
  sha256: string;
  bytes: number;
}

/**
 * A log file that is named by the SHA-256 of its content. Bytes are streamed to a
 * temporary file in `dir` while they are hashed; `commit()` closes it (fsync) and renames
 * it to `<dir>/<sha256>.log`, so the named file appears whole or not at all, and identical
 * logs share one file.
 */
export class ContentAddressedLog {
  readonly #dir: string;
  readonly #tmpPath: string;
  readonly #stream: WriteStream;
  readonly #hash: Hash = createHash("sha256");
  #bytes = 0;
  #error: Error | undefined;

  private constructor(dir: string, tmpPath: string, stream: WriteStream) {
    this.#dir = dir;
    this.#tmpPath = tmpPath;
    this.#stream = stream;
    stream.on("error", (error) => {
      this.#error ??= error;
    });
  }

  /**
   * Create `dir` if needed (`ensureDirectory`: a new `.turngate/` gets its `.gitignore`)
   * and open a temporary log file in it.
   * Errors: rejects with the `fs` error when the folder or file cannot be created.
   */
  static async open(dir: string): Promise<ContentAddressedLog> {
    await ensureDirectory(dir);
    const tmpPath = join(dir, `.tmp-${process.pid}-${randomBytes(6).toString("hex")}.log`);
    const stream = createWriteStream(tmpPath, { flags: "wx", flush: true });
    await new Promise<void>((resolve, reject) => {
      stream.once("open", () => resolve());
      stream.once("error", reject);
    });
    return new ContentAddressedLog(dir, tmpPath, stream);
  }

  /**
   * Append bytes. Returns false when the file's write buffer is full: the caller should
   * wait for `drain()` before writing more (back-pressure), as with a Node stream.
   */
  write(chunk: Buffer): boolean {
    this.#hash.update(chunk);
    this.#bytes += chunk.length;
    return this.#stream.write(chunk);
  }

  /** Resolves when the write buffer has drained (immediately if it is not full). */
  drain(): Promise<void> {
    if (!this.#stream.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => this.#stream.once("drain", () => resolve()));
  }

  /**
   * Flush, fsync and close the file, then rename it to `<dir>/<sha256>.log`.
   * Output: `{path, sha256, bytes}`.
   * Errors: rejects with the first write, fsync or rename error; the temporary file is
   * removed in that case.
   */
  async commit(): Promise<CommittedLog> {
    await this.#close();
    if (this.#error) {
      await rm(this.#tmpPath, { force: true });
      throw this.#error;
    }
    const sha256 = this.#hash.digest("hex");
    const path = join(this.#dir, `${sha256}.log`);
    try {
      await rename(this.#tmpPath, path);
    } catch (error) {
      await rm(this.#tmpPath, { force: true });
      throw error;
    }
    return { path, sha256, bytes: this.#bytes };
  }

  /** Close and delete the temporary file without publishing it. Never rejects. */
  async discard(): Promise<void> {
    await this.#close().catch(() => undefined);
    await rm(this.#tmpPath, { force: true }).catch(() => undefined);
  }

  #close(): Promise<void> {
    if (this.#stream.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.#stream.once("close", () => resolve());
      this.#stream.end();
    });
  }
}
