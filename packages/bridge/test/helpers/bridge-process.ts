/**
 * Test helper: spawns the real stdio server (scripts/stdio-server.ts through tsx, sources
 * resolved with the "@turngate/source" condition) and talks JSON-RPC to it line by line.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..", "..", "..");
const entry = join(here, "..", "..", "scripts", "stdio-server.ts");

/** A JSON-RPC message the server wrote (response or notification). */
export interface Message {
  jsonrpc: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data: { code: string; path?: string; message: string } };
}

/** A running bridge child process. */
export class BridgeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line, raw, in order. */
  readonly lines: string[] = [];
  /** Every message parsed from stdout, in order. */
  readonly messages: Message[] = [];
  /** stdout lines that were not JSON (must stay empty: stdout carries protocol only). */
  readonly nonJson: string[] = [];
  stderr = "";
  private nextId = 1;
  private waiters: Array<{ match: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  private buffer = "";
  readonly exited: Promise<number | null>;

  constructor(env: Record<string, string> = {}) {
    this.child = spawn(
      process.execPath,
      ["--conditions=@turngate/source", "--import", "tsx", entry],
      {
        cwd: repoRoot,
        env: { ...process.env, TURNGATE_BRIDGE_VALIDATE_RESULTS: "1", ...env },
      },
    );
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.onStdout(chunk));
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  private onStdout(chunk: string): void {
    this.buffer += chunk;
    let nl = this.buffer.indexOf("\n");
    while (nl !== -1) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      this.lines.push(line);
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        this.nonJson.push(line);
        nl = this.buffer.indexOf("\n");
        continue;
      }
      this.messages.push(message);
      this.waiters = this.waiters.filter((w) => {
        if (!w.match(message)) return true;
        w.resolve(message);
        return false;
      });
      nl = this.buffer.indexOf("\n");
    }
  }

  /** Resolves with the first message (already received or future) that `match` accepts. */
  waitFor(match: (m: Message) => boolean): Promise<Message> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  /** Writes raw text to the server's stdin. */
  write(text: string | Buffer): void {
    this.child.stdin.write(text);
  }

  /** Sends a request and returns its id (without waiting). */
  send(method: string, params?: unknown): number {
    const id = this.nextId++;
    const body: Record<string, unknown> = { jsonrpc: "2.0", id, method };
    if (params !== undefined) body.params = params;
    this.write(`${JSON.stringify(body)}\n`);
    return id;
  }

  /** Sends a request and resolves with its response. */
  request(method: string, params?: unknown): Promise<Message> {
    const id = this.send(method, params);
    return this.waitFor((m) => m.id === id && m.method === undefined);
  }

  /** Sends a request and resolves with its result; rejects with the wire error otherwise. */
  async call<T = unknown>(method: string, params?: unknown): Promise<T> {
    const response = await this.request(method, params);
    if (response.error) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
    return response.result as T;
  }

  /** Closes stdin (EOF) and resolves with the exit code. */
  async end(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  /** Kills the process if it is still running (test cleanup). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }
}
