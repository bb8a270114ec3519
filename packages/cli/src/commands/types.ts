import type { Command } from "commander";
import type { CliContext } from "../context.js";

/** Where an action leaves its exit code (commander actions return nothing useful). */
export interface ExitState {
  exitCode: number;
}

/**
 * One CLI command. `register` adds it (name, arguments, options, help, action) to the
 * root program; the action writes through `ctx` and sets `state.exitCode`.
 */
export interface CliCommand {
  name: string;
  register(program: Command, ctx: CliContext, state: ExitState): void;
}
