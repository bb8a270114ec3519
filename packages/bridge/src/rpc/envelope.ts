/**
 * JSON-RPC 2.0 framing for one line (docs/design.md §5): parse an incoming line into a request,
 * a notification or an envelope error, and serialise responses and notifications.
 * Pure: no `node:` imports.
 */
import { BridgeError } from "../errors.js";
import { idToken } from "./id-token.js";

/** A request id as accepted on the wire: a string or a number (null only in error replies). */
export type RequestId = string | number;

/**
 * What one incoming line turned out to be. `idJson` is the id's JSON text to echo: for a
 * number the exact token as sent (`12345678901234567890`, `1.0`, `1e3` stay as written),
 * for a string its JSON form (the same string value).
 */
export type Incoming =
  | { kind: "request"; id: RequestId; idJson: string; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "invalid"; id: RequestId | null; idJson: string | null; error: BridgeError };

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
      idJson: null,
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
      idJson: null,
      error: new BridgeError("invalid_request", `invalid request: ${what}`),
    };
  }
  const rawId = value.id;
  const hasId = Object.hasOwn(value, "id");
  // Any JSON number token is an id, 1e400 included: the reply echoes its text, not the
  // double JSON.parse made of it.
  const idOk = typeof rawId === "string" || typeof rawId === "number";
  const replyId = idOk ? (rawId as RequestId) : null;
  // A number's text is taken from the line itself (JSON.parse rounds it to a double).
  const idJson =
    replyId === null
      ? null
      : typeof replyId === "number"
        ? (idToken(line) ?? JSON.stringify(replyId))
        : JSON.stringify(replyId);
  const invalid = (message: string, path?: string): Incoming => ({
    kind: "invalid",
    id: replyId,
    idJson,
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
    return { kind: "invalid", id: replyId, idJson, error };
  }
  if (!hasId) return { kind: "notification", method: value.method, params };
  return {
    kind: "request",
    id: rawId as RequestId,
    idJson: idJson as string,
    method: value.method,
    params,
  };
}

/**
 * Serialises a success response (no trailing newline). `idJson` is the id's JSON text as
 * `parseLine` gave it (default: `JSON.stringify(id)`); it is written verbatim.
 */
export function resultLine(id: RequestId, result: unknown, idJson = JSON.stringify(id)): string {
  return `{"jsonrpc":"2.0","id":${idJson},"result":${JSON.stringify(result) ?? "null"}}`;
}

/** Serialises an error response (no trailing newline); `idJson` as in `resultLine`. */
export function errorLine(
  id: RequestId | null,
  error: BridgeError,
  idJson: string | null = JSON.stringify(id),
): string {
  return `{"jsonrpc":"2.0","id":${idJson ?? "null"},"error":${JSON.stringify(error.toWire())}}`;
}

/**
 * Serialises a server→client notification (no trailing newline). When `requestIdJson` is
 * given and `params` has a `request_id` member, that member is written as this exact JSON
 * text (the id as the client sent it, see `resultLine`).
 */
export function notificationLine(
  method: string,
  params: Record<string, unknown>,
  requestIdJson?: string,
): string {
  const head = `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":`;
  if (requestIdJson === undefined || !Object.hasOwn(params, "request_id")) {
    return `${head}${JSON.stringify(params)}}`;
  }
  const { request_id: _ignored, ...rest } = params;
  const restJson = JSON.stringify(rest);
  const tail = restJson === "{}" ? "}" : `,${restJson.slice(1)}`;
  return `${head}{"request_id":${requestIdJson}${tail}}`;
}
