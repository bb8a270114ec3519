import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { TurngateError } from "@turngate/core";
import { baselineIdOf, recordBaselineHistory, writeBaseline } from "../baseline-store.js";
import { startChainedBaseline } from "../chained-baseline.js";
import { chooseTurnConfig } from "../config-source.js";
import { removeConfineLeftovers } from "../confine-agent.js";
import { CLI_VERSION, EXIT_OK } from "../context.js";
import { resolveStatePaths, stateWriteProblem } from "../state-dir.js";
import { displayPath, shownPath } from "../terminal-text.js";
import { ALLOW_FRESH_ENV, readTurnChain, startFresh, turnChainPath } from "../turn-chain.js";
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
          'For hosts and hooks that cannot wrap the agent: take a snapshot of the workspace (file hashes, stat cache) and store it atomically, with the effective configuration (checks, timeouts, ignores), in .turngate/baseline.json (or <state-dir>/baseline.json). Prints the baseline id (SHA-256 of the stored file): pass it to `turngate verify --baseline-id` so a baseline changed in between is refused. Run it when a turn starts; run `turngate verify` when it ends. Gapless turns: after a `turngate verify` (or `turngate run`) with the same state folder, the baseline is the state that turn was judged on, not the workspace now, so changes made in between join the next turn\'s ledger (named "changed between turns, by you or another process"), and a turn that changes nothing after an unverified one is incomplete (unverified_carry_over).',
        )
        .option(
          "--fresh",
          `start a new turn chain: the baseline is the workspace as it is now, so what earlier turns left unverified is no longer checked (prints a warning). Only the host may ask: it needs an interactive terminal or ${ALLOW_FRESH_ENV}=1 in turngate's environment`,
        )
        .option(
          "--config <file>",
          "configuration file captured with the baseline (default: <root>/turngate.config.json if present)",
        )
        .option(
          "--json",
          "print {schema, baseline_id, path, root, files, config_path, taken_at, replaced, chain} as JSON instead of text (chain: null for a first or --fresh baseline, else {previous: {verdict, reason, ended_at}, unverified_paths, changed_between_turns})",
        ),
    ).action(
      async (flags: {
        config?: string;
        root?: string;
        stateDir?: string;
        json?: boolean;
        fresh?: boolean;
      }) => {
        const root = resolveWorkspaceRoot(ctx.cwd, flags.root, (line) => ctx.stderr.write(line));
        const paths = resolveStatePaths(root, flags.stateDir, ctx.cwd);
        removeConfineLeftovers(paths.dir, ctx.stderr);
        const chainPath = turnChainPath(paths.dir);
        if (flags.fresh === true) await startFresh(chainPath, root, ctx);
        const chain = flags.fresh === true ? undefined : await readTurnChain(chainPath, root);
        // A configuration the agent wrote in a turn the host did not accept is not adopted
        // (docs/cli.md "Configuration the agent wrote").
        const chosen = chooseTurnConfig(
          root,
          flags.config ? resolve(ctx.cwd, flags.config) : undefined,
          chain?.config,
          [],
          (since) =>
            `\`turngate baseline --fresh\`${since !== "" ? ` or \`turngate verify --waive ${since}:REASON\`` : ""}`,
        );
        if (chosen.kept !== undefined) ctx.stderr.write(`turngate: ${chosen.kept}\n`);
        const config = chosen.config;
        const { session, carry } = await startChainedBaseline({
          root,
          config,
          stateDir: paths.dir,
          env: ctx.env,
          chain,
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
            carry,
            chosen.source,
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
            chain:
              carry === undefined
                ? null
                : {
                    previous: carry.previous
                      ? {
                          verdict: carry.previous.verdict,
                          reason: carry.previous.reason,
                          ended_at: carry.previous.endedAt,
                        }
                      : null,
                    unverified_paths: carry.unverifiedPaths,
                    changed_between_turns: carry.betweenTurns,
                  },
          };
          ctx.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        } else {
          const note =
            replaced === null || replaced.id === id
              ? ""
              : `replaced: the previous baseline ${replaced.id}${replaced.taken_at ? ` (taken at ${replaced.taken_at})` : ""}; \`turngate verify --baseline-id\` refuses its id from now on\n`;
          ctx.stdout.write(
            `baseline: ${count} ${count === 1 ? "file" : "files"} recorded in ${shownPath(root, paths.baseline)}\nbaseline id: ${id}\n${note}${carry ? chainNote(carry) : ""}`,
          );
        }
        state.exitCode = EXIT_OK;
      },
    );
  },
};

/**
 * The lines `turngate baseline` prints for a chained baseline (docs/cli.md "Gapless turns"): it
 * continues from the state the previous turn was judged on, the paths changed since, and
 * what is still unverified.
 */
function chainNote(
  carry: NonNullable<Awaited<ReturnType<typeof startChainedBaseline>>["carry"]>,
): string {
  const previous = carry.previous;
  const lines = [
    `continues from the state the previous turn was judged on${previous ? ` (${previous.verdict}${previous.reason ? `, ${previous.reason}` : ""}, at ${previous.endedAt})` : ""}; \`turngate baseline --fresh\` (host only) starts over`,
  ];
  if (carry.betweenTurns.length > 0) {
    lines.push(
      `changed between turns, by you or another process: ${carry.betweenTurns.map(displayPath).join(", ")} (rows of the next turn, checked with it)`,
    );
  }
  if (carry.unverifiedPaths.length > 0) {
    lines.push(
      `still unverified from earlier turns: ${carry.unverifiedPaths.map(displayPath).join(", ")} (a turn that changes nothing ends incomplete, unverified_carry_over)`,
    );
  }
  return `${lines.join("\n")}\n`;
}
