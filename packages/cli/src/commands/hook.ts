import { join } from "node:path";
import { TurngateValidationError } from "@turngate/core";
import { EXIT_OK } from "../context.js";
import { ADAPTERS, HARNESSES, type Harness } from "../hooks/adapters/index.js";
import {
  applyPlan,
  type InstallScope,
  lineDiff,
  planInstall,
  planUninstall,
} from "../hooks/install.js";
import { readAll } from "../hooks/payload.js";
import { runHook } from "../hooks/run-hook.js";
import { findWorkspace } from "../hooks/workspace.js";
import { cliPackageRoot } from "../package-root.js";
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
    for (const verb of ["install", "uninstall"] as const) {
      hook
        .command(verb)
        .summary(
          verb === "install"
            ? "write turngate's hook entries into a harness's hook configuration"
            : "remove turngate's hook entries (only those) from a harness's hook configuration",
        )
        .argument("<harness>", `one of ${HARNESSES.join(", ")}`)
        .option(
          "--user",
          "the user-level file (the default): the agent cannot edit it through the project",
        )
        .option(
          "--project",
          "the project's file, inside the workspace (the agent can edit it: a warning says so)",
        )
        .option("--dry-run", "print the diff of each file and write nothing")
        .option(
          "--command <cmd>",
          "how the hook runs turngate (default: this node and this CLI's bin.js, as absolute paths)",
        )
        .option(
          "--root <dir>",
          "the workspace for --project (default: the git top level of the cwd)",
        )
        .action(
          async (
            name: string,
            flags: {
              user?: boolean;
              project?: boolean;
              dryRun?: boolean;
              command?: string;
              root?: string;
            },
          ) => {
            if (!(HARNESSES as readonly string[]).includes(name)) {
              throw new TurngateValidationError("harness", [
                {
                  path: "<harness>",
                  message: `must be one of ${HARNESSES.join(", ")} (got ${JSON.stringify(name)})`,
                },
              ]);
            }
            if (flags.user && flags.project) {
              throw new TurngateValidationError("scope", [
                { path: "--project", message: "give --user or --project, not both" },
              ]);
            }
            const harness = name as Harness;
            const scope: InstallScope = flags.project ? "project" : "user";
            const root = findWorkspace(flags.root, ctx.cwd);
            const plan =
              verb === "install"
                ? await planInstall(
                    harness,
                    scope,
                    root,
                    flags.command ?? defaultCommand(),
                    ctx.env,
                  )
                : await planUninstall(harness, scope, root, ctx.env);
            if (scope === "project") {
              ctx.stderr.write(
                `turngate: warning: ${plan.files[0]?.path} is inside the workspace: the agent can edit or delete it and so switch turngate off; the user-level file (the default, --user) is out of the project's reach\n`,
              );
            }
            const changed = plan.files.filter((f) => f.before !== f.after);
            if (flags.dryRun) {
              for (const file of changed)
                ctx.stdout.write(lineDiff(file.path, file.before, file.after));
              if (changed.length === 0)
                ctx.stdout.write(`${verb}: nothing to change for ${harness} (${scope} level)\n`);
              state.exitCode = EXIT_OK;
              return;
            }
            const written = await applyPlan(plan);
            if (written.length === 0) {
              ctx.stdout.write(
                `${verb}: ${harness} (${scope} level) already ${verb === "install" ? "has turngate's hooks" : "has no turngate hooks"}: nothing changed\n`,
              );
            } else {
              for (const path of written)
                ctx.stdout.write(`${verb === "install" ? "wrote" : "updated"} ${path}\n`);
              if (verb === "install") ctx.stdout.write(installNote(harness));
            }
            state.exitCode = EXIT_OK;
          },
        );
    }
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

/** The default hook command: this node and this CLI's bin.js, shell-quoted absolute paths. */
function defaultCommand(): string {
  const quote = (s: string) =>
    /^[A-Za-z0-9_./@:+-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
  return `${quote(process.execPath)} ${quote(join(cliPackageRoot(), "dist", "bin.js"))}`;
}

/** What to do after an install, per harness. */
function installNote(harness: Harness): string {
  const notes: Record<Harness, string> = {
    "claude-code": "Claude Code reads the hooks at its next start (or review them with /hooks).\n",
    codex:
      "Codex runs hooks from ~/.codex/hooks.json only once their trust is persisted: review them with /hooks in Codex (`codex exec --dangerously-bypass-hook-trust` skips that for one run).\n",
    cursor:
      "Cursor reloads ~/.cursor/hooks.json by itself; the stop hook sends at most loop_limit (5) follow-ups.\n",
    goose: "goose discovers the plugin at its next start.\n",
  };
  return `${notes[harness]}Checks come from turngate.config.json (or the project's preset checks); set max_attempts there (default 3).\n`;
}
