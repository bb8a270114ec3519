/** Moving a typed core error's field path under the bridge param it came from. */
import { BridgeError } from "../errors.js";
import { toBridgeError } from "../rpc/dispatch.js";

/**
 * Runs `fn`, re-raising a typed core error with its field path moved under `field` (core
 * names fields relative to the options object: "replacements.0.pattern" becomes
 * "options.replacements.0.pattern"). Codes pass through (`invalid_input` → `invalid_params`,
 * `invalid_regex`); anything untyped stays `internal_error`.
 * @throws BridgeError always, when `fn` throws.
 */
export function withFieldPath<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    const wire = toBridgeError(error);
    if (wire.code === "internal_error") throw wire;
    const path = [field, wire.path ?? ""].filter((part) => part !== "").join(".");
    throw new BridgeError(wire.code, wire.message, path);
  }
}
