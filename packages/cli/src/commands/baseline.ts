import { resolve } from "node:path";
import { Session, serializeSnapshot, turngatePaths, writeJsonAtomic } from "@turngate/node";
import { loadConfig } from "../config.js";
import { EXIT_OK } from "../context.js";
import type { CliCommand } from "./types.js";

/** `turngate baseline`: store the workspace baseline for a later `turngate verify`. */
export const baselineCommand: CliCommand = {
  name: "baseline",
  register(program, ctx, state) {
    program
      .command("baseline")
      .summary("store the workspace baseline a later `turngate verify` compares against")
      .description(
        "For hosts and hooks that cannot wrap the agent: take a snapshot of the workspace (file hashes, stat cache) and store it atomically in .turngate/baseline.json. Run it when a turn starts; run `turngate verify` when it ends.",
      )
      .option(
        "--config <file>",
        "configuration file whose ignores apply (default: <root>/turngate.config.json if present)",
      )
      .option("--root <dir>", "workspace root (default: the current directory)")
      .action(async (flags: { config?: string; root?: string }) => {
        const root = resolve(ctx.cwd, flags.root ?? ".");
        const config = loadConfig(root, flags.config ? resolve(ctx.cwd, flags.config) : undefined);
        const session = await Session.start({ root, ignores: config.ignores, env: ctx.env });
        const path = turngatePaths(root).baseline;
        await writeJsonAtomic(path, serializeSnapshot(session.baseline));
        const count = session.baseline.entries.size;
        ctx.stdout.write(
          `baseline: ${count} ${count === 1 ? "file" : "files"} recorded in .turngate/baseline.json\n`,
        );
        state.exitCode = EXIT_OK;
      });
  },
};
