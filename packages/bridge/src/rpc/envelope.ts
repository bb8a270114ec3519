/**
 * JSON-RPC 2.0 framing for one line (DESIGN §5): parse an incoming line into a request,
 * a notification or an envelope error, and serialise responses and notifications.
 * Pure: no `node:` imports.
 */
import { BridgeError } from "../errors.js";

/** A request id as accepted on the wire: a string or a number (null only in error replies). */
export type RequestId = string | number;

/** What one incoming line turned out to be. */
export type Incoming =
  | { kind: "request"; id: RequestId; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "invalid"; id: RequestId | null; error: BridgeError };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Parses one line (without its newline) into an `Incoming`.
 * Never throws: a non-JSON line gives `parse_error`, a JSON value that is not a JSON-RPC 2.0
 * request object gives `invalid_request` (a batch array included), positional (array)
 * params give `invalid_params` with path "" — this protocol passes params by name only.
 */
export function parseLine(line: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return {
      kind: "invalid",
      id: null,
      error: new BridgeError("parse_error", `parse error: ${why}`),
    };
  }
  if (!isPlainObject(value)) {
    const what = Array.isArray(value)
      ? "a batch (array); send one object per line"
      : "not an object";
    return {
      kind: "invalid",
      id: null,
      error: new BridgeError("invalid_request", `invalid request: ${what}`),
    };
  }
  const rawId = value.id;
  const hasId = Object.hasOwn(value, "id");
  const idOk = typeof rawId === "string" || (typeof rawId === "number" && Number.isFinite(rawId));
  const replyId = idOk ? (rawId as RequestId) : null;
  const invalid = (message: string, path?: string): Incoming => ({
    kind: "invalid",
    id: replyId,
    error: new BridgeError("invalid_request", `invalid request: ${message}`, path),
  });
  if (value.jsonrpc !== "2.0") return invalid('"jsonrpc" must be "2.0"', "jsonrpc");
  if (hasId && !idOk) return invalid('"id" must be a string or a number', "id");
  if (typeof value.method !== "string") return invalid('"method" must be a string', "method");
  const params = value.params;
  if (params !== undefined && typeof params !== "object") {
    return invalid('"params" must be an object', "params");
  }
  if (params === null || Array.isArray(params)) {
    const error = new BridgeError(
      "invalid_params",
      "params: must be an object (by-name params)",
      "",
    );
    return { kind: "invalid", id: replyId, error };
  }
  if (!hasId) return { kind: "notification", method: value.method, params };
  return { kind: "request", id: rawId as RequestId, method: value.method, params };
}

/** Serialises a success response (no trailing newline). */
export function resultLine(id: RequestId, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

/** Serialises an error response (no trailing newline). */
export function errorLine(id: RequestId | null, error: BridgeError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: error.toWire() });
}

/** Serialises a server→client notification (no trailing newline). */
export function notificationLine(method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: "2.0", method, params });
}
