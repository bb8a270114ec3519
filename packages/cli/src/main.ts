import { Command, CommanderError } from "commander";
import { COMMANDS } from "./commands/registry.js";
import type { ExitState } from "./commands/types.js";
import { CLI_VERSION, type CliContext, EXIT_INTERNAL, EXIT_OK } from "./context.js";
import { type CliErrorReport, describeError, jsonRequested, reportError } from "./errors.js";

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
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
      // Usage errors are printed by `main` in turngate's own error format.
      outputError: () => {},
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
 * internal error. Every error, commander's usage errors included, goes to stderr as
 * `turngate: error: <message> [<code>]`; with `--json` a `turngate.error.v1` object also
 * goes to stdout (`reportError`).
 */
export async function main(args: readonly string[], ctx: CliContext): Promise<number> {
  const state: ExitState = { exitCode: EXIT_OK };
  const program = createProgram(ctx, state);
  try {
    await program.parseAsync([...args], { from: "user" });
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; `turngate` or `turngate proof` without a subcommand printed
      // its help to stderr: say what is missing in the usual error format (QA finding P7).
      if (error.exitCode === 0) return EXIT_OK;
      if (error.code === "commander.help") {
        reportError(missingSubcommand(program, args), ctx, jsonRequested(args));
        return EXIT_INTERNAL;
      }
    }
    reportError(describeError(error, commandPath(program, args)), ctx, jsonRequested(args));
    return EXIT_INTERNAL;
  }
}

/**
 * The usage error for a command named without one of its subcommands: `missing command:
 * one of verify, public-key (see turngate proof --help)`.
 */
function missingSubcommand(program: Command, args: readonly string[]): CliErrorReport {
  const path = commandPath(program, args);
  let command: Command = program;
  for (const word of path === "" ? [] : path.split(" ")) {
    command = command.commands.find((c) => c.name() === word) ?? command;
  }
  const names = command.commands.map((c) => c.name()).filter((name) => name !== "help");
  const help = path === "" ? "turngate --help" : `turngate ${path} --help`;
  return { code: "usage", message: `missing command: one of ${names.join(", ")} (see ${help})` };
}

/** The command words of `args` (`run`, `proof verify`), for the usage hint of an error. */
function commandPath(program: Command, args: readonly string[]): string {
  const words: string[] = [];
  let command: Command | undefined = program;
  for (const arg of args) {
    const sub: Command | undefined = command?.commands.find((c) => c.name() === arg);
    if (!sub) break;
    words.push(arg);
    command = sub;
  }
  return words.join(" ");
}
