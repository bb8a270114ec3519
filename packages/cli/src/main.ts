import { Command, CommanderError } from "commander";
import { COMMANDS, commandsFor } from "./commands/registry.js";
import type { ExitState } from "./commands/types.js";
import { CLI_VERSION, type CliContext, EXIT_INTERNAL, EXIT_OK } from "./context.js";
import type { CliErrorReport } from "./errors.js";

/**
 * Build the `turngate` program for `ctx`: the commands of the registry that `args` needs
 * (`commandsFor`; all of them when `args` is omitted), `--help` on each, `--version`. Each
 * command's module is imported here, on demand. Exposed for tests and for embedding.
 */
export async function createProgram(
  ctx: CliContext,
  state: ExitState,
  args?: readonly string[],
): Promise<Command> {
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
  const entries = args === undefined ? COMMANDS : commandsFor(args);
  const commands = await Promise.all(entries.map((entry) => entry.load()));
  for (const command of commands) command.register(program, ctx, state);
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
  let program: Command | undefined;
  try {
    program = await createProgram(ctx, state, args);
    await program.parseAsync([...args], { from: "user" });
    return state.exitCode;
  } catch (error) {
    // Help and version exit 0 (commander throws to leave the parse).
    if (error instanceof CommanderError && error.exitCode === 0) return EXIT_OK;
    // Loaded only on failure: errors.js names the typed errors of core and node, and so
    // imports their packages, which `--version` and `--help` never need.
    const { describeError, jsonRequested, reportError } = await import("./errors.js");
    if (error instanceof CommanderError) {
      // `turngate` or `turngate proof` without a subcommand printed its help to stderr:
      // say what is missing in the usual error format (QA finding P7).
      if (error.code === "commander.help" && program) {
        reportError(missingSubcommand(program, args), ctx, jsonRequested(args));
        return EXIT_INTERNAL;
      }
    }
    const path = program ? commandPath(program, args) : "";
    reportError(describeError(error, path), ctx, jsonRequested(args));
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
