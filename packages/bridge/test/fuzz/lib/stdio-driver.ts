/**
 * The fuzz suite's stdio driver (issue #11 §1): one real bridge process (the test helper's
 * `BridgeProcess`, i.e. scripts/stdio-server.ts through tsx), fed raw lines, with every
 * stdout line kept raw so ids can be compared as the exact tokens sent.
 */
import { BridgeProcess } from "../../helpers/bridge-process.js";

/** A response line as received, with its id token taken from the fixed envelope prefix. */
export interface RawReply {
  line: string;
  idText: string;
  message: {
    id?: unknown;
    result?: unknown;
    error?: {
      code: number;
      message: string;
      data: { code: string; path?: string; message: string };
    };
  };
}

const PREFIX = '{"jsonrpc":"2.0","id":';

/**
 * The id token of a response line: the bridge writes `{"jsonrpc":"2.0","id":<token>,` first.
 * A string id is read by JSON (it may hold commas); a number or null up to the comma.
 */
export function replyIdText(line: string): string | null {
  if (!line.startsWith(PREFIX)) return null;
  const rest = line.slice(PREFIX.length);
  if (rest.startsWith('"')) {
    let j = 1;
    while (j < rest.length && rest[j] !== '"') j += rest[j] === "\\" ? 2 : 1;
    return rest.slice(0, j + 1);
  }
  const comma = rest.indexOf(",");
  return comma === -1 ? null : rest.slice(0, comma);
}

/**
 * One bridge under fuzz. Writes respect the pipe's backpressure (issue 36): 144,000 lines
 * written in one synchronous loop piled up in the driver's stream buffer, whose single
 * `writev` of all of it failed with `ENOBUFS`; the failed stream was destroyed, so the
 * bridge saw EOF after 11 replies and exited 0, as it must on EOF.
 */
export class StdioDriver {
  readonly bridge = new BridgeProcess();
  /** The error of the bridge's stdin, if a write failed (the test reports it). */
  stdinError: Error | null = null;
  /** Largest number of bytes the driver ever held unsent. */
  maxBuffered = 0;

  constructor() {
    this.bridge.child.stdin.on("error", (error) => {
      this.stdinError ??= error;
    });
  }

  /**
   * Writes one raw line (a newline is appended); resolves once the stream can take more
   * (at once, or on `drain`), so no more than about one line is ever buffered here.
   * Rejects with the stream's error if the write fails.
   */
  async line(text: string | Buffer): Promise<void> {
    const stdin = this.bridge.child.stdin;
    if (this.stdinError !== null) throw this.stdinError;
    const ok = stdin.write(
      typeof text === "string" ? `${text}\n` : Buffer.concat([text, Buffer.from("\n")]),
    );
    this.maxBuffered = Math.max(this.maxBuffered, stdin.writableLength);
    if (ok) return;
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        stdin.off("drain", done);
        stdin.off("error", done);
        stdin.off("close", done);
        if (error) reject(error);
        else if (this.stdinError !== null) reject(this.stdinError);
        else resolve();
      };
      stdin.on("drain", done);
      stdin.on("error", done);
      stdin.on("close", done);
    });
  }

  /** Every reply (lines with `result` or `error`), notifications left out. */
  replies(): RawReply[] {
    const out: RawReply[] = [];
    for (const line of this.bridge.lines) {
      const idText = replyIdText(line);
      if (idText === null) continue;
      out.push({ line, idText, message: JSON.parse(line) });
    }
    return out;
  }

  /** Waits until a reply with exactly this id token arrives (or `ms` pass: false). */
  async waitForId(idText: string, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      this.index();
      if (this.seen.has(idText)) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }

  private readonly seen = new Set<string>();
  private indexed = 0;

  /** Adds the id tokens of the lines received since the last call to `seen`. */
  private index(): void {
    const lines = this.bridge.lines;
    for (; this.indexed < lines.length; this.indexed++) {
      const token = replyIdText(lines[this.indexed] as string);
      if (token !== null) this.seen.add(token);
    }
  }

  /** EOF; resolves with the exit code. */
  end(): Promise<number | null> {
    return this.bridge.end();
  }

  kill(): void {
    this.bridge.kill();
  }
}
