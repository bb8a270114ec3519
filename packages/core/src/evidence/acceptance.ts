/**
 * ACCEPTANCE.md machine criteria of a goal loop, A3S §2.14 (pure: the caller reads the
 * files). A loop counts while its STATE.md says `Status: running|retrying|paused`; each
 * `- [ ]` / `* [x]` line whose body starts `kind:command` or `kind:file_exists` becomes a
 * required verification command with id `acceptance:{loop_id}:{line number}`.
 */
import { TurngateValidationError } from "../errors.js";
import type { VerificationCommand } from "../schemas/command.js";

/** Loop statuses whose criteria are active (A3S §3), compared case-insensitively. */
export const ACTIVE_LOOP_STATUSES: readonly string[] = ["running", "retrying", "paused"];

/** Why a criterion line was not turned into a command. */
export type AcceptanceProblemReason =
  | "missing_assert"
  | "unterminated_backtick"
  | "empty_assert"
  | "path_not_allowed";

/** A criterion line that looked machine-checkable but could not be read (A3S skips it silently). */
export interface AcceptanceProblem {
  /** 1-based line number in ACCEPTANCE.md. */
  line: number;
  reason: AcceptanceProblemReason;
  message: string;
}

/** The criteria of one ACCEPTANCE.md: the commands in line order and the lines skipped. */
export interface AcceptanceCriteria {
  loop_id: string;
  commands: VerificationCommand[];
  problems: AcceptanceProblem[];
}

/** Options of `parseAcceptanceCriteria`. */
export interface AcceptanceOptions {
  /**
   * Decides an absolute `kind:file_exists` path (A3S: allowed only when it is an existing
   * regular file whose canonical path is inside the canonical workspace, which needs the
   * file system). Default: absolute paths are not allowed.
   */
  allowAbsolutePath?: (path: string) => boolean;
}

/**
 * The status a loop's STATE.md names (A3S §2.14): the trimmed value after `Status:` on the
 * FIRST line whose trimmed text starts with `Status:` (case-sensitive prefix), `null` when
 * there is none. Throws `TurngateValidationError` (path `state`) for a non-string.
 */
export function loopStatus(state: string): string | null {
  if (typeof state !== "string") {
    throw new TurngateValidationError("loop state", [
      { path: "state", message: "expected a string" },
    ]);
  }
  for (const line of state.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed.startsWith("Status:")) return trimmed.slice("Status:".length).trim();
  }
  return null;
}

/** Whether a STATE.md text makes its loop active (`loopStatus` in `ACTIVE_LOOP_STATUSES`). */
export function loopIsActive(state: string): boolean {
  const status = loopStatus(state);
  return status !== null && ACTIVE_LOOP_STATUSES.includes(status.toLowerCase());
}

/**
 * The machine criteria of one ACCEPTANCE.md, A3S §2.14:
 * - a line counts when, after leading whitespace, it starts with `- [` or `* [`; the body is
 *   the text after the first `]`, trimmed, leading `:` stripped, trimmed again (the mark in
 *   the box is ignored);
 * - body starting (case-insensitively) `kind:command`: `command` = the assert value,
 *   `expect_exit` = the digits (and `-`) after `expect:exit=` (0 when missing or not a
 *   number), kind `acceptance_command`, description `ACCEPTANCE kind:command ({loop_id})`;
 * - body starting `kind:file_exists` or `kind:file-exists`: path = the assert value, allowed
 *   when relative and never above the root (`..` below zero depth fails) or accepted by
 *   `allowAbsolutePath`; command `test -f <quoted path>`, kind `acceptance_file_exists`,
 *   description `ACCEPTANCE kind:file_exists ({loop_id})`;
 * - any other kind (`kind:manual`) is ignored;
 * - assert value: after `assert:` (case-insensitive) and any whitespace, a backtick-quoted
 *   text (trimmed) or else the first whitespace-delimited token, which must not start with
 *   `expect:` (so `assert:cargo test` is just `cargo`, as in A3S).
 * Every command is required; id `acceptance:{loop_id}:{N}` with N the 1-based line number
 * in the whole file. **Change:** a criterion line A3S skips silently is listed in `problems`
 * with its line and reason (`missing_assert`, `unterminated_backtick`, `empty_assert`,
 * `path_not_allowed`). Throws `TurngateValidationError` (path `loop_id` or `text`) for a
 * blank loop id or non-string text.
 */
export function parseAcceptanceCriteria(
  loopId: string,
  text: string,
  options: AcceptanceOptions = {},
): AcceptanceCriteria {
  const allow =
    typeof options === "object" && options !== null ? options.allowAbsolutePath : undefined;
  if (typeof loopId !== "string" || loopId.trim() === "") {
    throw new TurngateValidationError("acceptance criteria", [
      { path: "loop_id", message: "must not be blank" },
    ]);
  }
  if (typeof text !== "string") {
    throw new TurngateValidationError("acceptance criteria", [
      { path: "text", message: "expected a string" },
    ]);
  }
  const commands: VerificationCommand[] = [];
  const problems: AcceptanceProblem[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const start = raw.trimStart();
    if (!start.startsWith("- [") && !start.startsWith("* [")) return;
    const close = start.indexOf("]");
    if (close < 0) return;
    const body = start
      .slice(close + 1)
      .trim()
      .replace(/^:+/, "")
      .trim();
    const lower = body.toLowerCase();
    const kind = lower.startsWith("kind:command")
      ? "command"
      : lower.startsWith("kind:file_exists") || lower.startsWith("kind:file-exists")
        ? "file_exists"
        : null;
    if (kind === null) return;
    const value = assertValue(body);
    if (typeof value !== "string") {
      problems.push({ line, ...value });
      return;
    }
    const id = `acceptance:${loopId}:${line}`;
    if (kind === "command") {
      commands.push({
        id,
        kind: "acceptance_command",
        description: `ACCEPTANCE kind:command (${loopId})`,
        command: value,
        required: true,
        expect_exit: expectExit(body),
      });
      return;
    }
    const absolute = value.startsWith("/");
    const allowed = absolute
      ? typeof allow === "function" && allow(value) === true
      : relativePathAllowed(value);
    if (!allowed) {
      problems.push({
        line,
        reason: "path_not_allowed",
        message: `kind:file_exists path ${JSON.stringify(value)} ${absolute ? "is absolute and not an existing file inside the workspace" : "leaves the workspace"}`,
      });
      return;
    }
    commands.push({
      id,
      kind: "acceptance_file_exists",
      description: `ACCEPTANCE kind:file_exists (${loopId})`,
      command: `test -f ${quoteAcceptancePath(value)}`,
      required: true,
      expect_exit: 0,
    });
  });
  return { loop_id: loopId, commands, problems };
}

/** The assert value of a body, or why there is none. */
function assertValue(body: string): string | Omit<AcceptanceProblem, "line"> {
  const at = body.toLowerCase().indexOf("assert:");
  if (at < 0) return { reason: "missing_assert", message: "the criterion has no assert:" };
  const rest = body.slice(at + "assert:".length).trimStart();
  if (rest.startsWith("`")) {
    const end = rest.indexOf("`", 1);
    if (end < 0) {
      return {
        reason: "unterminated_backtick",
        message: "the assert: value has no closing backtick",
      };
    }
    const value = rest.slice(1, end).trim();
    return value === "" ? { reason: "empty_assert", message: "the assert: value is empty" } : value;
  }
  const token = rest.split(/\s+/)[0] ?? "";
  if (token === "" || token.toLowerCase().startsWith("expect:")) {
    return { reason: "empty_assert", message: "the assert: value is empty" };
  }
  return token;
}

/** `expect:exit=N` (case-insensitive): the leading run of digits and `-` as an i32, else 0. */
function expectExit(body: string): number {
  const at = body.toLowerCase().indexOf("expect:exit=");
  if (at < 0) return 0;
  const run = /^[0-9-]*/.exec(body.slice(at + "expect:exit=".length))?.[0] ?? "";
  if (!/^-?[0-9]+$/.test(run)) return 0;
  const n = Number(run);
  return Number.isSafeInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : 0;
}

/** A relative path that never climbs above its start (`..` below depth 0 fails; `.` ignored). */
function relativePathAllowed(path: string): boolean {
  if (path === "") return false;
  let depth = 0;
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      depth -= 1;
      if (depth < 0) return false;
    } else depth += 1;
  }
  return true;
}

/** A3S's quoting for `test -f`: `''` for empty; bare when only `[A-Za-z0-9/._-]`; else single quotes. */
export function quoteAcceptancePath(value: string): string {
  if (typeof value !== "string") {
    throw new TurngateValidationError("shell quote", [
      { path: "value", message: "expected a string" },
    ]);
  }
  if (value === "") return "''";
  if (/^[A-Za-z0-9/._-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", "'\\''")}'`;
}
