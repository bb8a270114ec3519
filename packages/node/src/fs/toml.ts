import { parse } from "smol-toml";

/**
 * A TOML document (TOML 1.0) as plain values: tables as objects, arrays, strings, numbers,
 * booleans; dates as `Date`-like objects. Used to read harness configuration such as Codex's
 * `config.toml` (docs/hooks.md "Confined hooks").
 * Errors: `Error` with the parser's message (line and column) when `text` is not TOML.
 */
export function parseToml(text: string): Record<string, unknown> {
  return parse(text) as Record<string, unknown>;
}
