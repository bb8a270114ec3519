/**
 * The TypeScript runtime of the matrix: `@turngate/core` in-process through the bridge's
 * pure dispatch (`@turngate/bridge/pure`), with every result also checked against its
 * method's result schema.
 */
import { dispatchStateless, isBridgeError } from "../../packages/bridge/src/pure.js";
import type { CallOutcome } from "../lib/run-cases.js";

/** Calls one stateless method in-process; a `BridgeError` becomes its code and path. */
export function callTypeScript(method: string, params: unknown): CallOutcome {
  try {
    // JSON round trip: the answer is what a wire client would receive.
    const result = dispatchStateless(method, params, { validateResult: true });
    return { actual: JSON.parse(JSON.stringify(result)) };
  } catch (error) {
    if (isBridgeError(error)) return { error_code: error.code, error_path: error.path ?? null };
    throw error;
  }
}
