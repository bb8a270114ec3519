/**
 * `@turngate/bridge/pure`: the stateless bridge methods, callable in-process without a
 * subprocess — for the Pyodide transport of the Python binding and for the test-matrix's
 * TypeScript runner. Pure: imports nothing from `node:` or `@turngate/node`.
 *
 * Two entry points with the same semantics as the stdio server:
 * - `dispatchStateless(method, params)` → result, or throws `BridgeError`;
 * - `handleStatelessLine(line)` → the JSON-RPC response line the server would write
 *   (string in, string out: the simplest thing to pass across a language FFI).
 */
import { BridgeError } from "./errors.js";
import type { MethodContext } from "./method.js";
import { MAX_MESSAGE_BYTES } from "./protocol.js";
import { type InvokeOptions, invoke } from "./rpc/dispatch.js";
import { errorLine, parseLine, resultLine } from "./rpc/envelope.js";
import { statelessTable } from "./stateless.js";

export type { WireError } from "./errors.js";
export { BridgeError, ERROR_CODES, isBridgeError } from "./errors.js";
export { BRIDGE_VERSION, MAX_MESSAGE_BYTES, PROTOCOL_ID } from "./protocol.js";
export type { InvokeOptions } from "./rpc/dispatch.js";
export { statelessTable } from "./stateless.js";

/** UTF-8 length in bytes of `text` (lone surrogates count 3, as TextEncoder writes U+FFFD). */
function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

const statelessNames = Object.keys(statelessTable).sort();

function inProcessContext(): MethodContext {
  return { requestId: null, notify: () => {}, methods: statelessNames, requestShutdown: () => {} };
}

/** Names of the methods served in-process (sorted): `initialize`, `shutdown`, stateless ones. */
export function statelessMethodNames(): string[] {
  return [...statelessNames];
}

/**
 * Calls a stateless method in-process.
 * @param method wire name, e.g. "ledger.digest".
 * @param params the params object (validated here exactly as the server does).
 * @param options `validateResult: true` also checks the result against its schema.
 * @returns the method's result (plain JSON-compatible data).
 * @throws BridgeError `method_not_found` (session methods included — they need the stdio
 *   server), `invalid_params` with the field path, a domain code, or `internal_error`.
 */
export function dispatchStateless(
  method: string,
  params: unknown,
  options: InvokeOptions = {},
): unknown {
  const out = invoke(statelessTable, method, params, inProcessContext(), options);
  if (out instanceof Promise) {
    throw new BridgeError("internal_error", `internal error: ${method} is not synchronous`);
  }
  return out;
}

/**
 * Serves one JSON-RPC request line in-process and returns the response line the stdio
 * server would write (no trailing newline), or null for a notification (no reply).
 * Never throws.
 */
export function handleStatelessLine(line: string): string | null {
  if (line.length > MAX_MESSAGE_BYTES / 3 && utf8Length(line) > MAX_MESSAGE_BYTES) {
    return errorLine(
      null,
      new BridgeError("too_large", `message exceeds ${MAX_MESSAGE_BYTES} bytes`),
    );
  }
  const incoming = parseLine(line);
  if (incoming.kind === "invalid") return errorLine(incoming.id, incoming.error, incoming.idJson);
  try {
    const result = dispatchStateless(incoming.method, incoming.params);
    return incoming.kind === "request" ? resultLine(incoming.id, result, incoming.idJson) : null;
  } catch (error) {
    if (incoming.kind !== "request") return null;
    const wire =
      error instanceof BridgeError ? error : new BridgeError("internal_error", String(error));
    return errorLine(incoming.id, wire, incoming.idJson);
  }
}
