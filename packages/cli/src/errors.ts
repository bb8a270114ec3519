import { TurngateError } from "@turngate/core";
import { WorkspaceObserverError } from "@turngate/node";
import { CommanderError } from "commander";
import { AgentSpawnError } from "./agent.js";
import type { CliContext } from "./context.js";

/** Schema id of the JSON error object `--json` prints on stdout when a command fails. */
export const ERROR_RESULT_SCHEMA = "turngate.error.v1";

/** An error as the CLI reports it: stable code, message, and the field at fault if known. */
export interface CliErrorReport {
  /** Stable snake_case code: a `TurngateError` code, `usage`, `io_error`, `invalid_json` or `internal`. */
  code: string;
  message: string;
  /** The field, flag or argument at fault (`--root`, `checks.0.command`), when known. */
  path?: string;
}

/**
 * How the CLI names an error (issue #12 item 7: one format for every error):
 * - `TurngateError`, `WorkspaceObserverError`, `AgentSpawnError`: their own `code` (and
 *   `path` when they carry one);
 * - commander's usage errors: `usage`, the message without commander's `error: ` prefix and
 *   with where to read the usage (`see turngate run --help`);
 * - a file-system error (`ENOENT`, `EACCES`, …): `io_error`, its message;
 * - a `SyntaxError` (bad JSON): `invalid_json`; anything else: `internal`.
 * `commandPath` names the command for the usage hint (`run`, `proof verify`).
 */
export function describeError(error: unknown, commandPath = ""): CliErrorReport {
  if (error instanceof CommanderError) {
    const message = error.message.replace(/^error: /, "");
    const help = commandPath === "" ? "turngate --help" : `turngate ${commandPath} --help`;
    return { code: "usage", message: `${message} (see ${help})` };
  }
  if (
    error instanceof TurngateError ||
    error instanceof WorkspaceObserverError ||
    error instanceof AgentSpawnError
  ) {
    const report: CliErrorReport = { code: error.code, message: error.message };
    const path = (error as { path?: unknown }).path;
    if (typeof path === "string" && path !== "") report.path = path;
    return report;
  }
  if (error instanceof SyntaxError)
    return { code: "invalid_json", message: `invalid JSON: ${error.message}` };
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string") {
    return { code: "io_error", message: error.message };
  }
  return { code: "internal", message: error instanceof Error ? error.message : String(error) };
}

/**
 * Report a failed command: always `turngate: error: <message> [<code>]` on stderr; with
 * `json`, also `{schema: "turngate.error.v1", error: {code, message, path}}` on stdout, so a
 * host reading `--json` output always gets a JSON value (issue #12 item 9). `path` is null
 * when unknown.
 */
export function reportError(report: CliErrorReport, ctx: CliContext, json: boolean): void {
  ctx.stderr.write(`turngate: error: ${report.message} [${report.code}]\n`);
  if (json) {
    const out = {
      schema: ERROR_RESULT_SCHEMA,
      error: { code: report.code, message: report.message, path: report.path ?? null },
    };
    ctx.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  }
}

/** Whether `--json` is among `args` before a `--` (words after it belong to the agent). */
export function jsonRequested(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).includes("--json");
}
