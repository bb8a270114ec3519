/**
 * Method dispatch shared by the stdio server and the in-process (Pyodide) entry point:
 * look the method up, validate params against its zod schema, call the handler, and turn
 * every failure into a `BridgeError` with a stable code and field path (docs/design.md §5).
 * Pure: no `node:` imports.
 */
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "@turngate/core";
import type * as z from "zod";
import { BridgeError, formatPath, isBridgeError } from "../errors.js";
import type { MethodContext, MethodTable } from "../method.js";

/**
 * Converts zod issues into one `invalid_params` error naming the first offending field
 * (`path` as formatted by `formatPath`, "" for the params object itself).
 * An unknown key is reported at its own path ("records.0.extra"), not at its parent's.
 */
function paramsError(issues: readonly z.core.$ZodIssue[]): BridgeError {
  const issue = issues[0];
  if (!issue) return new BridgeError("invalid_params", "invalid params", "");
  const parts: PropertyKey[] = [...issue.path];
  if (issue.code === "unrecognized_keys" && issue.keys.length > 0) parts.push(issue.keys[0] ?? "");
  const path = formatPath(parts);
  const where = path === "" ? "params" : path;
  return new BridgeError("invalid_params", `${where}: ${issue.message}`, path);
}

/**
 * Maps anything a handler threw to a `BridgeError`:
 * - a `BridgeError` passes through;
 * - a typed error of `@turngate/core`/`@turngate/node` (an Error with a snake_case string
 *   `code`, optional string `path`) keeps its code and path (domain codes → -32602;
 *   core's generic `invalid_input` becomes `invalid_params`);
 * - anything else becomes `internal_error` with the original message.
 */
export function toBridgeError(error: unknown): BridgeError {
  if (isBridgeError(error)) return error;
  if (error instanceof Error) {
    const { code, path } = error as { code?: unknown; path?: unknown };
    if (typeof code === "string" && /^[a-z][a-z0-9_]*$/.test(code)) {
      const wirePath = Array.isArray(path)
        ? formatPath(path)
        : typeof path === "string"
          ? path
          : undefined;
      // Core's generic validation failure means the same as ours: the input was malformed.
      const wireCode = code === "invalid_input" ? "invalid_params" : code;
      return new BridgeError(wireCode, error.message, wirePath);
    }
    return new BridgeError("internal_error", `internal error: ${error.message}`);
  }
  return new BridgeError("internal_error", `internal error: ${String(error)}`);
}

/**
 * The one depth limit where params enter (issue #11 §2): each member of the params object
 * may nest at most `MAX_JSON_DEPTH` (512) levels (the member's own container is level 1, as
 * `ledger.content_digest` counts its metadata). Checked iteratively before any schema or
 * handler sees the value, so no recursive code downstream can exhaust the call stack.
 * @throws BridgeError `invalid_params`, path = the member's wire name.
 */
export function checkParamsDepth(params: unknown): void {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return;
  for (const [key, value] of Object.entries(params)) {
    if (exceedsJsonDepth(value)) {
      throw new BridgeError(
        "invalid_params",
        `${key}: nests deeper than ${MAX_JSON_DEPTH} levels`,
        key,
      );
    }
  }
}

/** Options of `invoke`. */
export interface InvokeOptions {
  /**
   * Also check the handler's result against the method's result schema; a mismatch becomes
   * `internal_error` naming the field (a bridge bug). On in tests and the matrix runner.
   */
  validateResult?: boolean;
}

function checkResult(method: string, schema: z.ZodType, result: unknown): unknown {
  const parsed = schema.safeParse(result);
  if (parsed.success) return result;
  const inner = paramsError(parsed.error.issues);
  throw new BridgeError(
    "internal_error",
    `internal error: result of ${method} at ${inner.message}`,
  );
}

/**
 * Calls `method` from `table` with raw (unvalidated) `params`.
 *
 * @param params the JSON-RPC `params` member; `undefined` is treated as `{}`.
 * @returns the handler's result, synchronously when the handler is synchronous (all
 *   stateless methods are), else a promise.
 * @throws BridgeError `method_not_found`, `invalid_params` (with `path`; a member nested
 *   deeper than 512 levels included), a domain code, or `internal_error`; a returned promise
 *   rejects with the same.
 */
export function invoke<C extends MethodContext>(
  table: MethodTable<C>,
  method: string,
  params: unknown,
  ctx: C,
  options: InvokeOptions = {},
): unknown {
  const spec = Object.hasOwn(table, method) ? table[method] : undefined;
  if (!spec) throw new BridgeError("method_not_found", `method not found: ${method}`);
  checkParamsDepth(params);
  const parsed = spec.params.safeParse(params === undefined ? {} : params);
  if (!parsed.success) throw paramsError(parsed.error.issues);
  let out: unknown;
  try {
    out = spec.handler(parsed.data, ctx);
  } catch (error) {
    throw toBridgeError(error);
  }
  if (out instanceof Promise) {
    return out.then(
      (result: unknown) =>
        options.validateResult ? checkResult(method, spec.result, result) : result,
      (error: unknown) => {
        throw toBridgeError(error);
      },
    );
  }
  return options.validateResult ? checkResult(method, spec.result, out) : out;
}
