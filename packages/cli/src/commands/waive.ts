import { TurngateError, TurngateValidationError } from "@turngate/core";
import { EXIT_OK } from "../context.js";
import type { Harness } from "../hooks/adapters/index.js";
import { hookSessionPaths, listSessions, withSession } from "../hooks/session-state.js";
import { findWorkspace } from "../hooks/workspace.js";
import type { CliCommand } from "./types.js";

/**
 * `turngate waive DIGEST --reason TEXT` (issue 19 item 5): a person records a host waiver of
 * an effect digest for the running hook session of this workspace (the newest, or
 * `--session ID`); the next stop whose changes have exactly that digest ends `waived`.
 * It refuses when standard input is not a terminal, with no flag to bypass it: an agent's
 * shell has no terminal, a person does. Automation passes waivers the way hosts do
 * (`turngate run|verify --waive`, session options).
 * Errors: `invalid_input` for a digest that is not 64 hex characters or a blank reason;
 * `not_a_terminal`; `no_session` when the workspace has no hook session (or none with that id).
 */
export const waiveCommand: CliCommand = {
  name: "waive",
  register(program, ctx, state) {
    program
      .command("waive")
      .summary(
        "waive an effect digest for this workspace's running agent hook session (from a terminal)",
      )
      .argument(
        "<digest>",
        "the effect digest the blocked or escalated stop named (64 hex characters)",
      )
      .requiredOption("--reason <text>", "why these changes are accepted without a passing check")
      .option(
        "--session <id>",
        "the harness session id (default: the most recently active session)",
      )
      .option("--root <dir>", "the workspace (default: the git top level of the cwd)")
      .action(
        async (digest: string, flags: { reason: string; session?: string; root?: string }) => {
          if (!/^[0-9a-fA-F]{64}$/.test(digest)) {
            throw new TurngateValidationError("digest", [
              { path: "<digest>", message: "must be the 64 hex characters of an effect digest" },
            ]);
          }
          if (flags.reason.trim() === "") {
            throw new TurngateValidationError("reason", [
              { path: "--reason", message: "must not be blank" },
            ]);
          }
          const tty = ctx.stdinIsTTY ?? process.stdin.isTTY === true;
          if (!tty) {
            throw new TurngateError(
              "not_a_terminal",
              "turngate waive is for a person at a terminal, and standard input is not one: an agent could run this command too. Hosts pass waivers with `turngate run|verify --waive DIGEST:REASON` or the session's options",
            );
          }
          const root = findWorkspace(flags.root, ctx.cwd);
          const sessions = await listSessions(root, ctx.env);
          const target =
            flags.session === undefined
              ? sessions[0]
              : sessions.find((s) => s.session.session_id === flags.session);
          if (!target) {
            throw new TurngateError(
              "no_session",
              flags.session === undefined
                ? `no agent hook session for ${root}: waivers are recorded for a running session (see \`turngate status\`)`
                : `no agent hook session ${JSON.stringify(flags.session)} for ${root} (see \`turngate status\`)`,
            );
          }
          const { session } = target;
          const { hookSessionPaths } = await import("../hooks/session-state.js");
          const paths = hookSessionPaths(
            root,
            session.harness as never,
            session.session_id,
            ctx.env,
          );
          await withSession(
            paths,
            () => session,
            (s) => {
              s.waivers.push({
                effect_digest: digest.toLowerCase(),
                reason: flags.reason.trim(),
                by: "terminal",
                at: new Date().toISOString(),
                baseline_id: s.baseline_id,
              });
            },
          );
          ctx.stdout.write(
            `waiver recorded for ${session.harness} session ${session.session_id}: effect digest ${digest.toLowerCase()} (${flags.reason.trim()}); the next stop whose changes have exactly this digest ends as waived\n`,
          );
          state.exitCode = EXIT_OK;
        },
      );
  },
};
