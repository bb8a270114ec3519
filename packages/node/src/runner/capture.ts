/** Most bytes of command output kept in memory: 100 KiB (A3S MAX_OUTPUT_SIZE, §2.16). */
export const MAX_CAPTURED_OUTPUT_BYTES = 102_400;
/** Bytes kept from the start of the output when it is longer: 64 KiB. */
export const CAPTURED_HEAD_BYTES = 65_536;
/** Bytes kept from the end of the output when it is longer: 36 KiB. */
export const CAPTURED_TAIL_BYTES = MAX_CAPTURED_OUTPUT_BYTES - CAPTURED_HEAD_BYTES;

/** Accounting of one capture, as A3S reports it (§2.13 `output` metadata). */
export interface CaptureSummary {
  /** Every byte the command wrote to stdout and stderr. */
  totalBytes: number;
  /** Bytes kept (head + tail), at most 102,400. */
  capturedBytes: number;
  /** True when `totalBytes` exceeds 102,400. */
  truncated: boolean;
}

/**
 * The A3S truncation notice, blank lines included (§2.16):
 * `\n\n[command output truncated: retained the first {head} and last {tail} of {total} bytes]\n\n`
 * with all three numbers in bytes.
 */
export function truncationNotice(headBytes: number, tailBytes: number, totalBytes: number): string {
  return `\n\n[command output truncated: retained the first ${headBytes} and last ${tailBytes} of ${totalBytes} bytes]\n\n`;
}

/**
 * Bounded capture of a command's combined stdout and stderr, in arrival order: the first
 * 64 KiB and the last 36 KiB are kept, the middle is counted and dropped (A3S §2.16).
 * Memory stays under 100 KiB plus one chunk whatever the output size.
 */
export class OutputCapture {
  #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #totalBytes = 0;

  /** Add a chunk of output bytes. */
  push(chunk: Buffer): void {
    this.#totalBytes += chunk.length;
    let rest = chunk;
    if (this.#headBytes < CAPTURED_HEAD_BYTES) {
      const take = Math.min(CAPTURED_HEAD_BYTES - this.#headBytes, rest.length);
      this.#head.push(rest.subarray(0, take));
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    if (rest.length >= CAPTURED_TAIL_BYTES) {
      this.#tail = [Buffer.from(rest.subarray(rest.length - CAPTURED_TAIL_BYTES))];
      this.#tailBytes = CAPTURED_TAIL_BYTES;
      return;
    }
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    while (this.#tailBytes > CAPTURED_TAIL_BYTES) {
      const first = this.#tail[0] as Buffer;
      const excess = this.#tailBytes - CAPTURED_TAIL_BYTES;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailBytes -= first.length;
      } else {
        this.#tail[0] = first.subarray(excess);
        this.#tailBytes -= excess;
      }
    }
  }

  /** Byte accounting so far. */
  summary(): CaptureSummary {
    return {
      totalBytes: this.#totalBytes,
      capturedBytes: this.#headBytes + this.#tailBytes,
      truncated: this.#totalBytes > MAX_CAPTURED_OUTPUT_BYTES,
    };
  }

  /**
   * The kept output as text: head, then the truncation notice when more than 100 KiB
   * arrived, then tail. Head and tail are decoded as UTF-8 separately (invalid sequences,
   * e.g. a character cut at the boundary, become U+FFFD).
   */
  render(): string {
    const head = Buffer.concat(this.#head).toString("utf8");
    const tail = Buffer.concat(this.#tail).toString("utf8");
    if (this.#totalBytes <= MAX_CAPTURED_OUTPUT_BYTES) return head + tail;
    return head + truncationNotice(this.#headBytes, this.#tailBytes, this.#totalBytes) + tail;
  }
}
