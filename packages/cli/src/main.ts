import { TurngateError } from "@turngate/core";
import { WorkspaceObserverError } from "@turngate/node";
import { Command, CommanderError } from "commander";
import { AgentSpawnError } from "./agent.js";
import { COMMANDS } from "./commands/registry.js";
import type { ExitState } from "./commands/types.js";
import { CLI_VERSION, type CliContext, EXIT_INTERNAL, EXIT_OK } from "./context.js";

/**
 * Build the `turngate` program for `ctx`: every command of the registry, `--help` on each,
 * `--version`. Exposed for tests and for embedding.
 */
export function createProgram(ctx: CliContext, state: ExitState): Command {
  const program = new Command("turngate")
    .description(
      "End a coding agent's turn only when a passing verification report is bound to the bytes it changed (the effect digest), or the host waives that digest.",
    )
    .version(CLI_VERSION)
    .enablePositionalOptions()
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
    })
    .exitOverride();
  for (const command of COMMANDS) command.register(program, ctx, state);
  for (const command of program.commands) {
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
  }
  return program;
}

/**
 * Run the CLI with `args` (the words after the program name) and return the exit code:
 * 0 verified, waived or narrative (and `--help`, `--version`); 2 incomplete; 1 usage or
 * internal error (the message goes to stderr as `turngate: error: …`).
 */
export async function main(args: readonly string[], ctx: CliContext): Promise<number> {
  const state: ExitState = { exitCode: EXIT_OK };
  const program = createProgram(ctx, state);
  try {
    await program.parseAsync([...args], { from: "user" });
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; usage errors were already printed by commander.
      return error.exitCode === 0 ? EXIT_OK : EXIT_INTERNAL;
    }
    ctx.stderr.write(`turngate: error: ${describe(error)}\n`);
    return EXIT_INTERNAL;
  }
}

function describe(error: unknown): string {
  if (error instanceof TurngateError || error instanceof WorkspaceObserverError) {
    return `${error.message} [${error.code}]`;
  }
  if (error instanceof AgentSpawnError) return error.message;
  if (error instanceof SyntaxError) return `invalid JSON: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
