/**
 * The typed error for a normalization pattern that cannot be used (harn-verification.md
 * §2.14, §3.7): one Rust's `regex` rejects, one over this implementation's size limits, or
 * one using a construct the linear-time translation cannot express.
 */
import { TurngateError } from "../errors.js";

/**
 * A pattern Rust's `regex` would reject, or one this translation cannot express. `code` is
 * `"invalid_regex"`; `path` names the option field the pattern came from (`""` when the
 * caller gave none); the message starts `Invalid regex:` (or `Invalid regex at <path>:`)
 * as Harn's does.
 */
export class InvalidRegexError extends TurngateError {
  readonly path: string;
  readonly pattern: string;
  readonly detail: string;
  constructor(pattern: string, detail: string, path = "") {
    const where = path === "" ? "" : ` at ${path}`;
    const shown = pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern;
    super("invalid_regex", `Invalid regex${where}: ${detail} (pattern ${JSON.stringify(shown)})`);
    this.name = "InvalidRegexError";
    this.path = path;
    this.pattern = pattern;
    this.detail = detail;
  }
}
