import { hudText } from "@turngate/core";
import { workspaceHud, workspaceProfileStore } from "../check-profiles.js";
import { EXIT_OK } from "../context.js";
import { resolveStatePaths } from "../state-dir.js";
import { addLocationOptions, resolveWorkspaceRoot } from "./options.js";
import type { CliCommand } from "./types.js";

/**
 * `turngate hud [--json]`: where verification stands in this workspace (issue #14 item 6):
 * the last turn's checks (verdict, age, whether the bytes they verified are still the
 * current ones), the next ladder check and the full verify with their p95, from the
 * profile store. `--json` prints the `harn.verification.hud_model.v1` model.
 */
export const hudCommand: CliCommand = {
  name: "hud",
  register(program, ctx, state) {
    addLocationOptions(
      program
        .command("hud")
        .summary("show where verification stands: last check, next check, full verify")
        .description(
          "Print the verification HUD of this workspace from <state folder>/verification-profiles.json: the last turn's checks (verdict, age, and STALE when a file they verified changed since), the next check and the full verify with their p95 duration. Nothing recorded yet prints a hint. --json prints the harn.verification.hud_model.v1 model.",
        )
        .option("--json", "print the HUD model as JSON"),
    ).action(async (flags: { root?: string; stateDir?: string; json?: boolean }) => {
      const root = resolveWorkspaceRoot(ctx.cwd, flags.root);
      const paths = resolveStatePaths(root, flags.stateDir, ctx.cwd);
      const model = await workspaceHud(
        root,
        workspaceProfileStore(paths.dir),
        ctx.now?.() ?? Date.now(),
      );
      if (flags.json) ctx.stdout.write(`${JSON.stringify(model, null, 2)}\n`);
      else {
        const text = hudText(model);
        ctx.stdout.write(
          text === ""
            ? "[verification]\nnothing recorded yet — run a turn with checks (turngate run --check CMD -- AGENT)\n"
            : `${text}\n`,
        );
      }
      state.exitCode = EXIT_OK;
    });
  },
};
