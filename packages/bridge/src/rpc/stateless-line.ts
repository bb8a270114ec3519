/**
 * Serving one raw request line with the stateless table, away from the server's thread
 * (issue #11 §3): a worker decodes, parses and answers a large line, or hands it back when
 * it names a method the main thread must serve (session.*, facts.file_hash_snapshot,
 * initialize, shutdown). Pure: no `node:` imports.
 */
import { BridgeError } from "../errors.js";
import { STORE_READING_METHODS } from "../methods/facts-profiles.js";
import { statelessTable } from "../stateless.js";
import { invoke, toBridgeError } from "./dispatch.js";
import { errorLine, parseLine, type RequestId, resultLine } from "./envelope.js";

/** Methods of the stateless table a worker still hands back (they act on the server). */
const MAIN_THREAD_ONLY = new Set(["initialize", "shutdown"]);

/** What serving one line produced. */
export type LineOutcome =
  | {
      kind: "reply";
      /** The response line (no newline), or null for a notification. */
      line: string | null;
      id: RequestId | null;
      idJson: string | null;
      /** An internal error to log on stderr (the reply already says internal_error). */
      log?: string;
    }
  | {
      kind: "hand_back";
      /** The line's bytes, returned by a worker that received them by transfer. */
      bytes?: Uint8Array;
    };

/** A profile, ladder or HUD call naming `store_dir`: the server's table reads the store. */
function readsStore(method: string, params: unknown): boolean {
  return (
    STORE_READING_METHODS.has(method) &&
    typeof params === "object" &&
    params !== null &&
    Object.hasOwn(params, "store_dir")
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes and answers one line (bytes without the newline) exactly as the stdio server
 * would, for methods of the stateless table; a line naming any other method is handed back.
 * @param options `validateResult` checks results against their schemas (tests);
 *   `sha256Hex` is the endpoint's SHA-256 (`MethodContext.sha256Hex`).
 * Never throws.
 */
export function serveStatelessLine(
  bytes: Uint8Array,
  options: { validateResult?: boolean; sha256Hex?: (text: string) => string } = {},
): LineOutcome {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    const error = new BridgeError("parse_error", "parse error: invalid UTF-8");
    return { kind: "reply", line: errorLine(null, error), id: null, idJson: null };
  }
  if (text.endsWith("\r")) text = text.slice(0, -1);
  // A request starts with "{"; only other lines may be blank (no reply, as on the main thread).
  if (text.charCodeAt(0) !== 0x7b && text.trim() === "") {
    return { kind: "reply", line: null, id: null, idJson: null };
  }
  const incoming = parseLine(text);
  if (incoming.kind === "invalid") {
    const line = errorLine(incoming.id, incoming.error, incoming.idJson);
    return { kind: "reply", line, id: incoming.id, idJson: incoming.idJson };
  }
  if (
    !Object.hasOwn(statelessTable, incoming.method) ||
    MAIN_THREAD_ONLY.has(incoming.method) ||
    readsStore(incoming.method, incoming.params)
  ) {
    return { kind: "hand_back" };
  }
  const id = incoming.kind === "request" ? incoming.id : null;
  const idJson = incoming.kind === "request" ? incoming.idJson : null;
  const ctx = {
    requestId: id,
    notify: () => {},
    methods: [],
    requestShutdown: () => {},
    ...(options.sha256Hex ? { sha256Hex: options.sha256Hex } : {}),
  };
  try {
    const result = invoke(statelessTable, incoming.method, incoming.params, ctx, options);
    if (result instanceof Promise) return { kind: "hand_back" };
    if (id === null) return { kind: "reply", line: null, id, idJson };
    return { kind: "reply", line: resultLine(id, result, idJson ?? undefined), id, idJson };
  } catch (thrown) {
    const error = toBridgeError(thrown);
    const log =
      error.code === "internal_error" ? `${incoming.method}: ${error.message}` : undefined;
    const line = id === null ? null : errorLine(id, error, idJson);
    return { kind: "reply", line, id, idJson, ...(log ? { log } : {}) };
  }
}
