import { ADAPTERS, HARNESSES } from "../hooks/adapters/index.js";
import { readAll } from "../hooks/payload.js";
import { runHook } from "../hooks/run-hook.js";
import type { CliCommand } from "./types.js";

/**
 * `turngate hook <harness> <event>` (issue 19): the command a harness's hook configuration
 * runs. One subcommand per harness (`claude-code`, `codex`, `cursor`, `goose`) takes the
 * harness's event name; the payload is read from stdin and the answer written in the
 * harness's format (`runHook`). `turngate hook install|uninstall` write the configuration.
 */
export const hookCommand: CliCommand = {
  name: "hook",
  register(program, ctx, state) {
    const hook = program
      .command("hook")
      .summary("answer a coding agent's hook events (Claude Code, Codex, Cursor, Goose)")
      .description(
        "Run by an agent harness's hook configuration: `turngate hook <harness> <event>` reads the event payload on stdin. At a turn start it takes a baseline in a state folder outside the workspace; at a tool event it records which tool touched which path; at a stop it runs the gate like `turngate verify` and answers in the harness's own format: allow when verified, waived or narrative, otherwise block with what failed. It fails closed: anything that keeps it from judging a stop blocks it. `turngate hook install <harness>` writes the hook entries.",
      );
    for (const harness of HARNESSES) {
      const adapter = ADAPTERS[harness];
      hook
        .command(harness)
        .summary(`answer a ${harness} hook event (see ${adapter.docs[0]})`)
        .argument(
          "<event>",
          `the ${harness} event name: ${adapter.installEntries.map((e) => e.event).join(", ")}`,
        )
        .action(async (event: string) => {
          const stdin = ctx.stdin ? await ctx.stdin() : await readAll(process.stdin);
          const reply = await runHook(harness, event, stdin, ctx);
          if (reply.stdout !== "") ctx.stdout.write(reply.stdout);
          if (reply.stderr !== "") ctx.stderr.write(reply.stderr);
          state.exitCode = reply.exitCode;
        });
    }
  },
};
