import { readFile } from "node:fs/promises";
import { deserializeSnapshot, turngatePaths } from "@turngate/node";
import { EXIT_INCOMPLETE, EXIT_INTERNAL, EXIT_OK } from "../context.js";
import { renderTurnText, turnJson } from "../render.js";
import { runTurn } from "../turn.js";
import { addTurnOptions, resolveTurnFlags, type TurnFlags } from "./options.js";
import type { CliCommand } from "./types.js";

/** `turngate verify`: the second half of `run`, against the stored baseline. */
export const verifyCommand: CliCommand = {
  name: "verify",
  register(program, ctx, state) {
    addTurnOptions(
      program
        .command("verify")
        .summary("gate the changes made since `turngate baseline`")
        .description(
          "Observe what changed since the baseline stored by `turngate baseline`, run the checks, bind their report to the effect digest and decide whether the turn may end. Writes .turngate/proofs/<digest>.json when it may. The baseline is kept, so verify can run again after more changes.",
        ),
    )
      .addHelpText(
        "after",
        "\nExit codes: 0 verified, waived or narrative; 2 incomplete; 1 usage or internal error (e.g. no baseline).\n",
      )
      .action(async (flags: TurnFlags) => {
        const { root, configPath, checks, waivers } = resolveTurnFlags(flags, ctx);
        const baselinePath = turngatePaths(root).baseline;
        let text: string;
        try {
          text = await readFile(baselinePath, "utf8");
        } catch {
          ctx.stderr.write(
            "turngate: no baseline at .turngate/baseline.json: run `turngate baseline` when the turn starts\n",
          );
          state.exitCode = EXIT_INTERNAL;
          return;
        }
        const baseline = deserializeSnapshot(JSON.parse(text));
        const result = await runTurn(
          { root, baseline, checks, waivers, ...(configPath ? { configPath } : {}) },
          ctx,
        );
        if (flags.json) ctx.stdout.write(`${JSON.stringify(turnJson(result), null, 2)}\n`);
        else ctx.stdout.write(renderTurnText(result));
        state.exitCode = result.exitCode === 0 ? EXIT_OK : EXIT_INCOMPLETE;
      });
  },
};
