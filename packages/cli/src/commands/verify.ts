import { configDifferences, readBaseline } from "../baseline-store.js";
import { loadConfig, type TurngateConfig } from "../config.js";
import type { CliContext } from "../context.js";
import { EXIT_INCOMPLETE, EXIT_OK } from "../context.js";
import { renderTurnText, turnJson } from "../render.js";
import { recordTurnView } from "../show/record-view.js";
import { displayPath, shownPath } from "../terminal-text.js";
import { runTurn } from "../turn.js";
import { turnChainPath } from "../turn-chain.js";
import {
  addTurnOptions,
  isolationRequest,
  JSON_HELP,
  resolveProofFlags,
  resolveTurnFlags,
  type TurnFlags,
} from "./options.js";
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
          "Observe what changed since the baseline stored by `turngate baseline`, run the checks, bind their report to the effect digest and decide whether the turn may end. The configuration (checks, timeouts, ignores) is the one captured in the baseline; a configuration file changed since is reported on stderr and not used. With --baseline-id, a baseline whose id differs (it was changed or replaced) is refused. Writes .turngate/proofs/<digest>.json (or <state-dir>/proofs/) when the turn may end, signed as under `turngate run`. The baseline is kept, so verify can run again after more changes. Gapless turns: verify records the state it judged (<state-dir>/turn-chain.json), and the next `turngate baseline` continues from it; after an unverified turn, a verify that finds no change is incomplete (unverified_carry_over), naming the paths.",
        )
        .option(
          "--html <file>",
          "also write the turn's view as one self-contained HTML page to FILE (see turngate show)",
        )
        .option(
          "--baseline-id <id>",
          "the id `turngate baseline` printed: refuse (exit 1) a stored baseline with another id",
        ),
      JSON_HELP.verify,
    )
      .addHelpText(
        "after",
        "\nExit codes: 0 verified, waived or narrative; 2 incomplete; 1 usage or internal error (e.g. no baseline, or a baseline that does not match --baseline-id).\n",
      )
      .action(async (flags: TurnFlags & { baselineId?: string; html?: string }) => {
        const { root, state: paths, configPath, checks, waivers } = resolveTurnFlags(flags, ctx);
        const { trust, ...signing } = resolveProofFlags(flags, ctx);
        const label = shownPath(root, paths.baseline);
        const baseline = await readBaseline(paths.baseline, {
          label,
          historyPath: paths.baselineHistory,
          ...(flags.baselineId !== undefined ? { expectedId: flags.baselineId } : {}),
        });
        if (flags.baselineId === undefined) {
          ctx.stderr.write(
            `turngate: warning: the baseline ${label} is not authenticated: anything that could write it since \`turngate baseline\` decides what this turn is compared against; pass --baseline-id with the id \`turngate baseline\` printed (id of this file: ${baseline.id}), or keep it outside the workspace with --state-dir\n`,
          );
        }
        warnIfConfigChanged(baseline.config, configPath, root, ctx);
        const result = await runTurn(
          {
            root,
            baseline: baseline.snapshot,
            ...(baseline.gitTree ? { baselineTree: baseline.gitTree } : {}),
            config: baseline.config,
            ...(baseline.configSource ? { configSource: baseline.configSource } : {}),
            signing,
            trust,
            ...isolationRequest(flags),
            ...(flags.verifier !== undefined ? { verifier: flags.verifier } : {}),
            environment: baseline.environment,
            checks,
            waivers,
            state: paths,
            // Gapless turns: what the baseline's turn inherits, and the judged state for the
            // next `turngate baseline` (docs/cli.md "Gapless turns").
            chain: {
              path: turnChainPath(paths.dir),
              carried: baseline.carry ?? {
                previous: null,
                unverifiedPaths: [],
                unverifiedDigests: [],
                betweenTurns: [],
              },
            },
          },
          ctx,
        );
        if (flags.json) ctx.stdout.write(`${JSON.stringify(turnJson(result), null, 2)}\n`);
        else ctx.stdout.write(renderTurnText(result));
        await recordTurnView(result, paths, flags.html, ctx);
        state.exitCode = result.exitCode === 0 ? EXIT_OK : EXIT_INCOMPLETE;
      });
  },
};

/**
 * Compare the configuration captured in the baseline with the one on disk now (`--config`,
 * else the file the baseline read, else `<root>/turngate.config.json`) and say on stderr
 * when it differs or cannot be read: verify keeps the captured one, so an agent cannot
 * change the checks, timeouts or ignores of its own turn.
 */
function warnIfConfigChanged(
  captured: TurngateConfig,
  configPath: string | undefined,
  root: string,
  ctx: CliContext,
): void {
  const path = configPath ?? captured.path;
  let current: TurngateConfig;
  try {
    current = loadConfig(root, path);
  } catch (error) {
    ctx.stderr.write(
      `turngate: warning: the configuration ${displayPath(path ?? "turngate.config.json")} cannot be read now (${(error as Error).message}); verify uses the configuration captured in the baseline\n`,
    );
    return;
  }
  const differences = configDifferences(captured, current);
  if (differences.length === 0) return;
  const where = current.path ?? captured.path ?? "turngate.config.json";
  ctx.stderr.write(
    `turngate: warning: the configuration ${displayPath(where)} differs from the one captured by \`turngate baseline\` (${differences.join(", ")}); verify uses the captured configuration\n`,
  );
}
