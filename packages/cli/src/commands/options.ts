import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { CompletionWaiver, VerificationCommand } from "@turngate/core";
import { TurngateValidationError } from "@turngate/core";
import type { Command } from "commander";
import { checksFromFlags } from "../config.js";
import type { CliContext } from "../context.js";
import { resolveStatePaths, type StatePaths } from "../state-dir.js";
import { parseWaiverFlags } from "../waivers.js";

/** Options shared by `run` and `verify`, as commander parses them. */
export interface TurnFlags {
  check: string[];
  config?: string;
  waive: string[];
  json?: boolean;
  root?: string;
  stateDir?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Add `--root` and `--state-dir` (run, verify, baseline). */
export function addLocationOptions(command: Command): Command {
  return command
    .option("--root <dir>", "workspace root (default: the current directory)")
    .option(
      "--state-dir <dir>",
      "keep the baseline, check logs and proofs in DIR, outside the workspace (default: <root>/.turngate)",
    );
}

/** Add `--check`, `--config`, `--waive`, `--json`, `--root` and `--state-dir` to a command. */
export function addTurnOptions(command: Command): Command {
  return addLocationOptions(
    command
      .option(
        "--check <cmd>",
        'verification command to run with the checks\' shell (bash -c when bash is on PATH, else sh -c; config "shell") in the workspace root (repeatable); replaces the configured and preset checks',
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
      ),
  );
}

/**
 * The workspace root of `--root DIR` (default: `cwd`), resolved against `cwd`.
 * Errors: `TurngateValidationError` (path `--root`) when it does not exist or is not a
 * directory.
 */
export function resolveWorkspaceRoot(cwd: string, flag: string | undefined): string {
  const root = resolve(cwd, flag ?? ".");
  let problem: string | undefined;
  try {
    if (!statSync(root).isDirectory()) problem = `${root} is not a directory`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problem =
      code === "ENOENT" || code === "ENOTDIR"
        ? `${root} does not exist`
        : `${root} cannot be read (${code ?? (error as Error).message})`;
  }
  if (problem !== undefined) {
    throw new TurngateValidationError("--root value", [{ path: "--root", message: problem }]);
  }
  return root;
}

/**
 * The parsed shared options: absolute root (an existing directory), state paths, config
 * path, checks and waivers. Errors: `TurngateValidationError` naming `--root`,
 * `--state-dir`, `--check[N]` or `--waive[N]`.
 */
export function resolveTurnFlags(
  flags: TurnFlags,
  ctx: CliContext,
): {
  root: string;
  state: StatePaths;
  stateDir?: string;
  configPath?: string;
  checks: VerificationCommand[];
  waivers: CompletionWaiver[];
} {
  const checks = checksFromFlags(flags.check);
  const waivers = parseWaiverFlags(flags.waive);
  const root = resolveWorkspaceRoot(ctx.cwd, flags.root);
  const state = resolveStatePaths(root, flags.stateDir, ctx.cwd);
  const parsed: ReturnType<typeof resolveTurnFlags> = { root, state, checks, waivers };
  if (flags.stateDir !== undefined) parsed.stateDir = state.dir;
  if (flags.config !== undefined) parsed.configPath = resolve(ctx.cwd, flags.config);
  return parsed;
}
