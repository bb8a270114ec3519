import { TurngateValidationError } from "@turngate/core";
import { outputLocationsHelp } from "../outputs-help.js";
import { renderTurnText, turnJson } from "../render.js";
import { recordTurnView } from "../show/record-view.js";
import { runTurn } from "../turn.js";
import { ALLOW_FRESH_ENV, startFresh, turnChainPath } from "../turn-chain.js";
import {
  addTurnOptions,
  isolationRequest,
  JSON_HELP,
  resolveProofFlags,
  resolveTurnFlags,
  type TurnFlags,
} from "./options.js";
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
          "Take a baseline of the workspace, run the agent command (stdio inherited; with --json its stdout goes to stderr), observe what it changed, run the checks, bind their report to the effect digest and decide whether the turn may end. Writes .turngate/proofs/<digest>.json (or <state-dir>/proofs/) when it may: a DSSE envelope signed with Ed25519 (--key, TURNGATE_SIGNING_KEY or the user's key), checked by `turngate proof verify`. Prints `trust: confined` when the agent ran in turngate's sandbox (--confine), `trust: sandboxed` when the host claims one (--sandboxed), else `trust: unsandboxed`.",
        )
        .argument("<agent...>", "the agent command and its arguments (put them after --)")
        .option(
          "--html <file>",
          "also write the turn's view as one self-contained HTML page to FILE (see turngate show)",
        )
        .option(
          "--fresh",
          `start a new turn chain: the baseline is the workspace as it is now, not the state the previous turn was judged on, so what earlier turns left unverified is no longer checked (prints a warning). Only the host may ask: it needs an interactive terminal or ${ALLOW_FRESH_ENV}=1 in turngate's environment (removed from the agent's)`,
        )
        .option(
          "--confine",
          'run the agent in a bubblewrap sandbox (docs/guarantees.md "Confined agents"; also "confine_agent": true in the config): it writes only the workspace and a private TMPDIR, .git/, .turngate/ and the gate\'s configuration stay read-only ("agent_writable": [".git"] lets it commit), turngate\'s state, keys and cache configuration are invisible, TURNGATE_* variables are removed, it cannot open unix sockets (no tmux, D-Bus or docker server of yours acts for it), its network is its own, through turngate\'s proxy, which refuses this machine\'s addresses ("agent_network" in the config: allow a host:port, or "host") and its processes die with it; the proof records trust: confined. Fails when the sandbox cannot start. Without it, the agent runs as your user and can forge a waiver or a prompt event',
        )
        .option(
          "--fail-on-agent-error",
          "exit 1 when the agent exits with a code other than 0, even if the turn is verified, waived or narrative (the verdict is unchanged)",
        )
        .passThroughOptions(),
      JSON_HELP.run,
    )
      .addHelpText(
        "after",
        '\nGapless turns: each run starts from the state the previous run was judged on (<state-dir>/turn-chain.json), so changes made between runs are checked, and a run that changes nothing after an unverified one is incomplete (unverified_carry_over). --fresh starts over (host only).\n\nExit codes: 0 verified, waived or narrative; 2 incomplete; 1 usage or internal error, or (with --fail-on-agent-error) an agent that exited with a code other than 0.\n\nExample:\n  turngate run --check "npm test" -- node my-agent.js --task fix-bug\n',
      )
      .addHelpText("after", outputLocationsHelp())
      .action(
        async (
          agent: string[],
          flags: TurnFlags & {
            failOnAgentError?: boolean;
            html?: string;
            fresh?: boolean;
            confine?: boolean;
          },
        ) => {
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
          const { trust, ...signing } = resolveProofFlags(flags, ctx);
          const chainPath = turnChainPath(paths.dir);
          if (flags.fresh === true) await startFresh(chainPath, root, ctx);
          const result = await runTurn(
            {
              root,
              ...(launchDir !== undefined ? { agentCwd: launchDir } : {}),
              agent,
              signing,
              trust,
              ...isolationRequest(flags),
              ...(flags.verifier !== undefined ? { verifier: flags.verifier } : {}),
              agentStdoutToStderr: flags.json === true,
              checks,
              waivers,
              state: paths,
              failOnAgentError: flags.failOnAgentError === true,
              ...(flags.confine === true ? { confine: true } : {}),
              chain: { path: chainPath, fresh: flags.fresh === true },
              ...(configPath ? { configPath } : {}),
            },
            ctx,
          );
          if (flags.json) ctx.stdout.write(`${JSON.stringify(turnJson(result), null, 2)}\n`);
          else ctx.stdout.write(renderTurnText(result));
          await recordTurnView(result, paths, flags.html, ctx);
          state.exitCode = result.exitCode;
        },
      );
  },
};
