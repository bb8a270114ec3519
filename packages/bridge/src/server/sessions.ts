/**
 * Open sessions of one bridge server, addressed by `session_id`. Closing a session aborts
 * its signal, which stops the process group of a running check (and keeps later checks from
 * starting); EOF and `shutdown` close them all.
 */
import type { Session } from "@turngate/node";
import { BridgeError } from "../errors.js";

/** One open session and the signal that ends its running work. */
export interface SessionEntry {
  readonly id: string;
  readonly session: Session;
  readonly abort: AbortController;
}

/** The sessions of one server run. Ids are "session-1", "session-2", … (never reused). */
export class SessionRegistry {
  private readonly entries = new Map<string, SessionEntry>();
  private next = 1;

  /** Registers an open session and returns its id. */
  add(session: Session): string {
    const id = `session-${this.next++}`;
    this.entries.set(id, { id, session, abort: new AbortController() });
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
   * Closes one session: forgets it and aborts its signal (running checks are killed).
   * @throws BridgeError `session_not_found` with path "session_id".
   */
  close(id: string): void {
    const entry = this.get(id);
    this.entries.delete(id);
    entry.abort.abort(new BridgeError("session_closed", `session ${id} was closed`));
  }

  /** Closes every open session (EOF, shutdown); never throws. */
  closeAll(): void {
    for (const id of [...this.entries.keys()]) this.close(id);
  }

  /** Number of open sessions. */
  get size(): number {
    return this.entries.size;
  }
}
