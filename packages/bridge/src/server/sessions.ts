/**
 * Open sessions of one bridge server, addressed by `session_id`. Closing a session aborts
 * its signal (running checks are killed) and calls the session's own `close`; EOF and
 * `shutdown` close them all.
 */
import { BridgeError } from "../errors.js";
import type { HostSession } from "./host-session.js";

/** One open session and the signal that ends its running work. */
export interface SessionEntry {
  readonly id: string;
  readonly session: HostSession;
  readonly abort: AbortController;
}

/** The sessions of one server run. Ids are "session-1", "session-2", … (never reused). */
export class SessionRegistry {
  private readonly entries = new Map<string, SessionEntry>();
  private next = 1;

  /** Registers an open session and returns its id. */
  add(session: HostSession, abort: AbortController): string {
    const id = `session-${this.next++}`;
    this.entries.set(id, { id, session, abort });
    return id;
  }

  /**
   * The open session named `id`.
   * @throws BridgeError `session_not_found` with path "session_id".
   */
  get(id: string): SessionEntry {
    const entry = this.entries.get(id);
    if (!entry)
      throw new BridgeError("session_not_found", `session not found: ${id}`, "session_id");
    return entry;
  }

  /**
   * Closes one session: aborts its signal, then awaits its `close()`.
   * @throws BridgeError `session_not_found` with path "session_id".
   */
  async close(id: string): Promise<void> {
    const entry = this.get(id);
    this.entries.delete(id);
    entry.abort.abort(new BridgeError("session_closed", `session ${id} was closed`));
    await entry.session.close();
  }

  /** Closes every open session (EOF, shutdown); never throws. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.entries.keys()].map((id) => this.close(id)));
  }

  /** Number of open sessions. */
  get size(): number {
    return this.entries.size;
  }
}
