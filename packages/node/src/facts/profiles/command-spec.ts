/**
 * Harn command specs (harn-verification.md §2.5) as shell text for our runner: an argv
 * list, `{mode: "argv", argv}` (mode defaults to argv) or `{mode: "shell", command}`.
 */
import { shellQuote, TurngateValidationError } from "@turngate/core";

/** Harn's `shell_quote` (§2.12), from core: always single-quoted, `'` as `'"'"'`. */
export { shellQuote };

/** A spec resolved for `runShellCommand`: the shell text, and `cwd` / `timeout_ms` if given. */
export interface ResolvedSpec {
  command: string;
  cwd?: string;
  timeoutMs?: number;
}

function invalid(path: string, message: string): never {
  throw new TurngateValidationError("command spec", [{ path, message }]);
}

function argvText(argv: unknown, path: string): string {
  if (!Array.isArray(argv) || argv.length === 0) invalid(path, "argv must be a non-empty list");
  return argv
    .map((a, i) => {
      if (typeof a !== "string" && typeof a !== "number")
        invalid(`${path}.${i}`, "expected a string");
      return shellQuote(a);
    })
    .join(" ");
}

/**
 * Resolves `spec` (path `path` in errors). Throws `TurngateValidationError`:
 * a bare string (`command_run: spec must be an argv list or command spec dict`), a dict
 * with `command` but no `mode: "shell"` (`command_run: shell mode requires mode: "shell"`),
 * an empty argv, a blank shell command, a non-integer `timeout_ms`.
 */
export function resolveSpec(spec: unknown, path = "spec"): ResolvedSpec {
  if (Array.isArray(spec)) return { command: argvText(spec, path) };
  if (typeof spec !== "object" || spec === null) {
    invalid(path, "command_run: spec must be an argv list or command spec dict");
  }
  const s = spec as Record<string, unknown>;
  const mode = s.mode ?? "argv";
  let command: string;
  if (mode === "shell") {
    if (typeof s.command !== "string" || s.command.trim() === "") {
      invalid(`${path}.command`, "shell mode needs a non-blank command");
    }
    command = s.command;
  } else if (mode === "argv") {
    if (s.argv === undefined && s.command !== undefined) {
      invalid(`${path}.mode`, 'command_run: shell mode requires mode: "shell"');
    }
    command = argvText(s.argv, `${path}.argv`);
  } else invalid(`${path}.mode`, 'mode must be "argv" or "shell"');
  const out: ResolvedSpec = { command };
  if (s.cwd !== undefined) {
    if (typeof s.cwd !== "string") invalid(`${path}.cwd`, "expected a string");
    out.cwd = s.cwd;
  }
  if (s.timeout_ms !== undefined) {
    if (!Number.isInteger(s.timeout_ms) || (s.timeout_ms as number) <= 0) {
      invalid(`${path}.timeout_ms`, "expected a positive integer (ms)");
    }
    out.timeoutMs = s.timeout_ms as number;
  }
  return out;
}
