import { resolve } from "node:path";
import type { CompletionWaiver, VerificationCommand } from "@turngate/core";
import type { Command } from "commander";
import { checksFromFlags } from "../config.js";
import type { CliContext } from "../context.js";
import { parseWaiverFlags } from "../waivers.js";

/** Options shared by `run` and `verify`, as commander parses them. */
export interface TurnFlags {
  check: string[];
  config?: string;
  waive: string[];
  json?: boolean;
  root?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Add `--check`, `--config`, `--waive`, `--json` and `--root` to a command. */
export function addTurnOptions(command: Command): Command {
  return command
    .option(
      "--check <cmd>",
      "verification command to run with sh -c in the workspace root (repeatable); replaces the configured and preset checks",
      collect,
      [],
    )
    .option(
      "--config <file>",
      "configuration file (default: <root>/turngate.config.json if present)",
    )
    .option(
      "--waive <digest:reason>",
      "host waiver of one effect digest (repeatable); a waived turn ends as waived, not verified",
      collect,
      [],
    )
    .option(
      "--json",
      "print only the outcome as JSON on stdout (progress, and the agent's stdout under run, go to stderr)",
    )
    .option("--root <dir>", "workspace root (default: the current directory)");
}

/** The parsed shared options: absolute root and config path, checks and waivers. */
export function resolveTurnFlags(
  flags: TurnFlags,
  ctx: CliContext,
): {
  root: string;
  configPath?: string;
  checks: VerificationCommand[];
  waivers: CompletionWaiver[];
} {
  const root = resolve(ctx.cwd, flags.root ?? ".");
  const parsed: {
    root: string;
    configPath?: string;
    checks: VerificationCommand[];
    waivers: CompletionWaiver[];
  } = { root, checks: checksFromFlags(flags.check), waivers: parseWaiverFlags(flags.waive) };
  if (flags.config !== undefined) parsed.configPath = resolve(ctx.cwd, flags.config);
  return parsed;
}
