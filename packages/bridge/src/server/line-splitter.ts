/**
 * Splits a byte stream into `\n`-terminated lines with a per-line cap (DESIGN §5: 32 MiB per
 * message). A line longer than the cap is reported once through `onTooLarge` as soon as the
 * cap is crossed, and its remaining bytes are dropped up to the next newline, so the stream
 * stays in sync and memory stays bounded by the cap.
 */

/** Callbacks of a `LineSplitter`. */
export interface LineSplitterSink {
  /** A complete line, without its `\n` (a trailing `\r` is kept; the caller decides). */
  onLine(line: Buffer): void;
  /** A line exceeded `maxBytes`; called once per oversized line. */
  onTooLarge(): void;
}

/** Incremental line splitter: `push` chunks as they arrive, `end` at EOF. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;

  /** @param maxBytes largest line accepted, in bytes, excluding the newline. */
  constructor(
    private readonly maxBytes: number,
    private readonly sink: LineSplitterSink,
  ) {}

  /** Feeds one chunk; emits every line it completes, in order. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(10, start);
      if (nl !== -1 && this.size === 0 && !this.discarding && nl - start <= this.maxBytes) {
        // A whole line inside this chunk (the usual case): hand it over as a view.
        this.sink.onLine(chunk.subarray(start, nl));
        start = nl + 1;
        continue;
      }
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (!this.discarding) {
        if (this.size + piece.length > this.maxBytes) {
          this.parts = [];
          this.size = 0;
          this.discarding = true;
          this.sink.onTooLarge();
        } else if (piece.length > 0) {
          this.parts.push(piece);
          this.size += piece.length;
        }
      }
      if (nl === -1) return;
      if (!this.discarding) this.sink.onLine(this.take());
      this.discarding = false;
      start = nl + 1;
    }
  }

  /** EOF: a final line without a newline is still emitted. */
  end(): void {
    if (!this.discarding && this.size > 0) this.sink.onLine(this.take());
    this.parts = [];
    this.size = 0;
    this.discarding = false;
  }

  private take(): Buffer {
    const line = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    return line;
  }
}
