/**
 * Splits a byte stream into `\n`-terminated lines with a per-line cap (docs/design.md §5: 32 MiB per
 * message). A line longer than the cap is reported once through `onTooLarge` as soon as the
 * cap is crossed, and its remaining bytes are dropped up to the next newline, so the stream
 * stays in sync and memory stays bounded by the cap.
 *
 * Long lines can be streamed (issue #11 §3): once a line still being received reaches
 * `streamFromBytes`, the sink may take it over (`onLongLine`); its bytes so far and every
 * later piece go to that stream as they arrive, and the splitter never joins them.
 */

/** Where the bytes of one long line go once it is streamed (`LineSplitterSink.onLongLine`). */
export interface LineStream {
  /** The next bytes of the line, in order. A view into a received chunk: copy or send it now. */
  push(piece: Uint8Array): void;
  /** The line is complete (its newline, or EOF, arrived). */
  end(): void;
  /** The line crossed the size cap: its bytes are dropped (`onTooLarge` follows). */
  abort(): void;
}

/** Callbacks of a `LineSplitter`. */
export interface LineSplitterSink {
  /** A complete line, without its `\n` (a trailing `\r` is kept; the caller decides). */
  onLine(line: Buffer): void;
  /** A line exceeded `maxBytes`; called once per oversized line. */
  onTooLarge(): void;
  /**
   * A line reached `streamFromBytes` before its end: return the stream its bytes go to
   * from now on (the splitter pushes the bytes received so far at once), or `null` to keep
   * collecting it for `onLine`.
   */
  onLongLine?(): LineStream | null;
}

/** Incremental line splitter: `push` chunks as they arrive, `end` at EOF. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding = false;
  /** The stream the current line goes to, once it is streamed. */
  private stream: LineStream | null = null;

  /**
   * @param maxBytes largest line accepted, in bytes, excluding the newline.
   * @param streamFromBytes size in bytes from which a line split over several chunks is
   *   offered to `sink.onLongLine` (default: never). A line that arrives whole in one chunk
   *   is always given to `onLine`, as a view.
   */
  constructor(
    private readonly maxBytes: number,
    private readonly sink: LineSplitterSink,
    private readonly streamFromBytes = Number.POSITIVE_INFINITY,
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
          this.stream?.abort();
          this.stream = null;
          this.parts = [];
          this.size = 0;
          this.discarding = true;
          this.sink.onTooLarge();
        } else if (piece.length > 0) this.add(piece);
      }
      if (nl === -1) return;
      if (!this.discarding) this.finishLine();
      this.discarding = false;
      start = nl + 1;
    }
  }

  /** EOF: a final line without a newline is still emitted. */
  end(): void {
    if (!this.discarding && (this.size > 0 || this.stream !== null)) this.finishLine();
    this.parts = [];
    this.size = 0;
    this.discarding = false;
  }

  /** Adds one piece of the current line: to its stream, or to the parts (maybe starting one). */
  private add(piece: Buffer): void {
    this.size += piece.length;
    if (this.stream !== null) {
      this.stream.push(piece);
      return;
    }
    this.parts.push(piece);
    if (this.size < this.streamFromBytes || this.sink.onLongLine === undefined) return;
    const stream = this.sink.onLongLine();
    if (stream === null) return;
    this.stream = stream;
    for (const part of this.parts) stream.push(part);
    this.parts = [];
  }

  /** The current line is complete: ends its stream, or emits it. */
  private finishLine(): void {
    if (this.stream === null) {
      this.sink.onLine(this.take());
      return;
    }
    const stream = this.stream;
    this.stream = null;
    this.size = 0;
    stream.end();
  }

  private take(): Buffer {
    const line = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    return line;
  }
}
