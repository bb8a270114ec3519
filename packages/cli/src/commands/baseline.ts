import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { TurngateError } from "@turngate/core";
import { Session } from "@turngate/node";
import { baselineIdOf, recordBaselineHistory, writeBaseline } from "../baseline-store.js";
import { loadConfig } from "../config.js";
import { CLI_VERSION, EXIT_OK } from "../context.js";
import { resolveStatePaths, stateWriteProblem } from "../state-dir.js";
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
          "print {schema, baseline_id, path, root, files, config_path, taken_at, replaced} as JSON instead of text",
        ),
    ).action(
      async (flags: { config?: string; root?: string; stateDir?: string; json?: boolean }) => {
        const root = resolveWorkspaceRoot(ctx.cwd, flags.root, (line) => ctx.stderr.write(line));
        const paths = resolveStatePaths(root, flags.stateDir, ctx.cwd);
        const config = loadConfig(root, flags.config ? resolve(ctx.cwd, flags.config) : undefined);
        const session = await Session.start({
          root,
          ignores: config.ignores,
          ...(config.outputs !== undefined ? { outputs: config.outputs } : {}),
          ...(config.defaultOutputs !== undefined ? { defaultOutputs: config.defaultOutputs } : {}),
          env: ctx.env,
          checkEnvironment: turnCheckEnvironment(root, config, paths.dir, undefined),
        });
        const before = await readFile(paths.baseline).catch(() => undefined);
        let id: string;
        let previous: Awaited<ReturnType<typeof recordBaselineHistory>>;
        const takenAt = new Date().toISOString();
        try {
          id = await writeBaseline(
            paths.baseline,
            session.baseline,
            config,
            CLI_VERSION,
            session.environmentBaseline,
            session.baselineTree,
          );
          previous = await recordBaselineHistory(paths.baselineHistory, { id, taken_at: takenAt });
        } catch (error) {
          // Name the folder and the fix, not a raw EACCES (issue 34 item 6).
          throw new TurngateError("state_unwritable", stateWriteProblem(error, paths.dir));
        }
        const replaced =
          before === undefined
            ? null
            : {
                id: baselineIdOf(before),
                taken_at: previous?.id === baselineIdOf(before) ? previous.taken_at : null,
              };
        const count = session.baseline.entries.size;
        if (flags.json) {
          const out = {
            schema: BASELINE_RESULT_SCHEMA,
            baseline_id: id,
            path: paths.baseline,
            root,
            files: count,
            config_path: config.path ?? null,
            taken_at: takenAt,
            replaced,
          };
          ctx.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        } else {
          const note =
            replaced === null || replaced.id === id
              ? ""
              : `replaced: the previous baseline ${replaced.id}${replaced.taken_at ? ` (taken at ${replaced.taken_at})` : ""}; \`turngate verify --baseline-id\` refuses its id from now on\n`;
          ctx.stdout.write(
            `baseline: ${count} ${count === 1 ? "file" : "files"} recorded in ${shownPath(root, paths.baseline)}\nbaseline id: ${id}\n${note}`,
          );
        }
        state.exitCode = EXIT_OK;
      },
    );
  },
};
