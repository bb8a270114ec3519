import { resolve } from "node:path";
import { Session } from "@turngate/node";
import { writeBaseline } from "../baseline-store.js";
import { loadConfig } from "../config.js";
import { CLI_VERSION, EXIT_OK } from "../context.js";
import { resolveStatePaths } from "../state-dir.js";
import { shownPath } from "../terminal-text.js";
import { turnCheckEnvironment } from "../turn.js";
import { addLocationOptions, resolveWorkspaceRoot } from "./options.js";
import type { CliCommand } from "./types.js";

/** Schema id of `turngate baseline --json`. */
export const BASELINE_RESULT_SCHEMA = "turngate.baseline_result.v1";

/**
 * `turngate baseline`: store the workspace baseline and the effective configuration for a
 * later `turngate verify`, and print the baseline id (SHA-256 of the stored file) that
 * `verify --baseline-id` checks.
 */
export const baselineCommand: CliCommand = {
  name: "baseline",
  register(program, ctx, state) {
    addLocationOptions(
      program
        .command("baseline")
        .summary("store the workspace baseline a later `turngate verify` compares against")
        .description(
          "For hosts and hooks that cannot wrap the agent: take a snapshot of the workspace (file hashes, stat cache) and store it atomically, with the effective configuration (checks, timeouts, ignores), in .turngate/baseline.json (or <state-dir>/baseline.json). Prints the baseline id (SHA-256 of the stored file): pass it to `turngate verify --baseline-id` so a baseline changed in between is refused. Run it when a turn starts; run `turngate verify` when it ends.",
        )
        .option(
          "--config <file>",
          "configuration file captured with the baseline (default: <root>/turngate.config.json if present)",
        )
        .option(
          "--json",
          "print {schema, baseline_id, path, root, files, config_path} as JSON instead of text",
        ),
    ).action(
      async (flags: { config?: string; root?: string; stateDir?: string; json?: boolean }) => {
        const root = resolveWorkspaceRoot(ctx.cwd, flags.root);
        const paths = resolveStatePaths(root, flags.stateDir, ctx.cwd);
        const config = loadConfig(root, flags.config ? resolve(ctx.cwd, flags.config) : undefined);
        const session = await Session.start({
          root,
          ignores: config.ignores,
          env: ctx.env,
          checkEnvironment: turnCheckEnvironment(root, config, paths.dir, undefined),
        });
        const id = await writeBaseline(
          paths.baseline,
          session.baseline,
          config,
          CLI_VERSION,
          session.environmentBaseline,
        );
        const count = session.baseline.entries.size;
        if (flags.json) {
          const out = {
            schema: BASELINE_RESULT_SCHEMA,
            baseline_id: id,
            path: paths.baseline,
            root,
            files: count,
            config_path: config.path ?? null,
          };
          ctx.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        } else {
          ctx.stdout.write(
            `baseline: ${count} ${count === 1 ? "file" : "files"} recorded in ${shownPath(root, paths.baseline)}\nbaseline id: ${id}\n`,
          );
        }
        state.exitCode = EXIT_OK;
      },
    );
  },
};
