import { TurngateValidationError } from "@turngate/core";
import { EXIT_INCOMPLETE, EXIT_OK } from "../context.js";
import { outputLocationsHelp } from "../outputs-help.js";
import { renderTurnText, turnJson } from "../render.js";
import { runTurn } from "../turn.js";
import { addTurnOptions, resolveTurnFlags, type TurnFlags } from "./options.js";
import type { CliCommand } from "./types.js";

/** `turngate run [options] -- AGENT CMD…`: wrap one agent command as one turn. */
export const runCommand: CliCommand = {
  name: "run",
  register(program, ctx, state) {
    addTurnOptions(
      program
        .command("run")
        .summary("run an agent command as one turn and gate it")
        .description(
          "Take a baseline of the workspace, run the agent command (stdio inherited; with --json its stdout goes to stderr), observe what it changed, run the checks, bind their report to the effect digest and decide whether the turn may end. Writes .turngate/proofs/<digest>.json (or <state-dir>/proofs/) when it may.",
        )
        .argument("<agent...>", "the agent command and its arguments (put them after --)")
        .passThroughOptions(),
    )
      .addHelpText(
        "after",
        '\nExit codes: 0 verified, waived or narrative; 2 incomplete; 1 usage or internal error.\n\nExample:\n  turngate run --check "npm test" -- node my-agent.js --task fix-bug\n',
      )
      .addHelpText("after", outputLocationsHelp())
      .action(async (agent: string[], flags: TurnFlags) => {
        if (!/\S/.test(agent[0] ?? "")) {
          throw new TurngateValidationError("agent command", [
            { path: "agent[0]", message: "the program to run must not be blank" },
          ]);
        }
        const {
          root,
          launchDir,
          state: paths,
          configPath,
          checks,
          waivers,
        } = resolveTurnFlags(flags, ctx);
        const result = await runTurn(
          {
            root,
            ...(launchDir !== undefined ? { agentCwd: launchDir } : {}),
            agent,
            agentStdoutToStderr: flags.json === true,
            checks,
            waivers,
            state: paths,
            ...(configPath ? { configPath } : {}),
          },
          ctx,
        );
        if (flags.json) ctx.stdout.write(`${JSON.stringify(turnJson(result), null, 2)}\n`);
        else ctx.stdout.write(renderTurnText(result));
        state.exitCode = result.exitCode === 0 ? EXIT_OK : EXIT_INCOMPLETE;
      });
  },
};
