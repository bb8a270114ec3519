/**
 * Wire errors of the bridge (docs/design.md §5): every error response is a JSON-RPC 2.0 error whose
 * `data` is `{code, path?, message}`. `code` is a stable snake_case string (the table
 * below); `path` is the dotted field path of the offending input ("records.0.path"), "" for
 * the params object itself, absent when no field is at fault.
 */

/** One entry of the error-code table: the JSON-RPC numeric code and what it means. */
export interface ErrorCodeInfo {
  rpc_code: number;
  description: string;
}

/**
 * The stable `data.code` values and their JSON-RPC codes. Protocol codes use the standard
 * JSON-RPC numbers; domain codes raised by `@turngate/core`'s typed errors (`TurngateError`,
 * whose `code` passes through) map to -32602 (the input was refused); core's generic
 * `invalid_input` is reported as `invalid_params`; server-side conditions use -32000 and below.
 */
export const ERROR_CODES = {
  parse_error: { rpc_code: -32700, description: "The line is not valid UTF-8 JSON." },
  invalid_request: {
    rpc_code: -32600,
    description: "The JSON is not a JSON-RPC 2.0 request object (batches are not supported).",
  },
  too_large: {
    rpc_code: -32600,
    description: "A request or response line exceeds 32 MiB (33554432 bytes).",
  },
  method_not_found: { rpc_code: -32601, description: "No method of that name is served." },
  invalid_params: {
    rpc_code: -32602,
    description: "The params do not match the method's JSON Schema; `path` names the field.",
  },
  session_not_found: {
    rpc_code: -32602,
    description: "`session_id` names no open session (never created, or already closed).",
  },
  report_status_mismatch: {
    rpc_code: -32602,
    description:
      "A verification report records a status its checks do not derive; it is refused, never trusted (`path` names its `status`).",
  },
  report_author_rejected: {
    rpc_code: -32602,
    description: "A verification report's author may not record it (only host and verifier).",
  },
  invalid_regex: {
    rpc_code: -32602,
    description:
      "A normalization pattern is not a valid Rust `regex` pattern (look-around and backreferences included); `path` names it, e.g. options.replacements.0.pattern.",
  },
  diagnostic_parse_error: {
    rpc_code: -32602,
    description:
      "facts.parse_diagnostics: a JSON-document format's text is not JSON or not the expected shape at its root (`path` is text; the message names the JSON pointer).",
  },
  test_results_parse_error: {
    rpc_code: -32602,
    description:
      "facts.parse_test_results: the text is empty, or an XML/JSON document that is malformed, truncated, nested too deep or not the expected shape at its root (`path` is text; the message names the line or JSON pointer).",
  },
  background_not_supported: {
    rpc_code: -32602,
    description:
      "facts.run_check: options.command_options.background is true; a check run in the foreground cannot be a background one.",
  },
  row_id_required: {
    rpc_code: -32602,
    description: "facts.finish_check: neither the receipt nor options carry a non-blank row_id.",
  },
  unknown_handle: {
    rpc_code: -32602,
    description:
      "facts.finish_check: the receipt's background handle was not started by this bridge process (handles do not survive a bridge restart).",
  },
  profile_store_invalid: {
    rpc_code: -32602,
    description:
      "The profile store file (<store_dir>/verification-profiles.json) is not JSON or not a profile record set; it is left unchanged (the message names the file and the field).",
  },
  invalid_root: {
    rpc_code: -32602,
    description:
      "session.create: `root` is not an existing directory (`path` is root). Pass an existing workspace directory.",
  },
  invalid_option: {
    rpc_code: -32602,
    description:
      "session.create: an option the workspace observer refuses (`path` names it under options).",
  },
  invalid_snapshot: {
    rpc_code: -32602,
    description:
      "session.create: options.continue_from is not a baseline session.baseline returned (malformed, or of another root); `path` names the field under options.continue_from.",
  },
  git_failed: {
    rpc_code: -32602,
    description:
      "session.create or an observation: git could not be run or answered unexpectedly; with options.use_git true, the root is not inside a git work tree (`path` options.use_git).",
  },
  not_decided: {
    rpc_code: -32602,
    description:
      "session.proof before session.decide, or after a change since the last decision: call session.decide first.",
  },
  turn_not_allowed: {
    rpc_code: -32602,
    description:
      "session.proof when the last decision was not allow (incomplete): only a verified, waived or narrative turn has a proof.",
  },
  session_closed: {
    rpc_code: -32001,
    description: "The session was closed (session.close, shutdown or EOF) while the call ran.",
  },
  internal_error: { rpc_code: -32603, description: "A bug or an unexpected failure; see stderr." },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A stable error code known to the protocol table. */
export type KnownErrorCode = keyof typeof ERROR_CODES;

/** The JSON-RPC `error` member as it travels on the wire. */
export interface WireError {
  code: number;
  message: string;
  data: { code: string; path?: string; message: string };
}

/**
 * An error that crosses the wire unchanged. Thrown by handlers and by the dispatcher.
 * `code` is the stable snake_case code, `rpcCode` the JSON-RPC number, `path` the field path.
 */
export class BridgeError extends Error {
  override readonly name = "BridgeError";
  readonly code: string;
  readonly rpcCode: number;
  readonly path: string | undefined;

  /**
   * @param code stable snake_case code; a known code takes its JSON-RPC number from
   *   `ERROR_CODES`, an unknown (domain) code maps to -32602 unless `rpcCode` is given.
   * @param message human-readable text (also used as the JSON-RPC `message`).
   * @param path dotted field path of the offending input, if any.
   */
  constructor(code: string, message: string, path?: string, rpcCode?: number) {
    super(message);
    this.code = code;
    this.path = path;
    this.rpcCode =
      rpcCode ?? (ERROR_CODES as Record<string, ErrorCodeInfo>)[code]?.rpc_code ?? -32602;
  }

  /** The JSON-RPC `error` member for this error. */
  toWire(): WireError {
    const data: WireError["data"] = { code: this.code, message: this.message };
    if (this.path !== undefined) data.path = this.path;
    return { code: this.rpcCode, message: this.message, data };
  }
}

/** True for a `BridgeError`, also one from another copy of this package (checks name/code). */
export function isBridgeError(value: unknown): value is BridgeError {
  return (
    value instanceof Error &&
    value.name === "BridgeError" &&
    typeof (value as { code?: unknown }).code === "string"
  );
}

/** Joins a field path (as zod reports it) into the wire form "records.0.path". */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((part) => String(part)).join(".");
}
