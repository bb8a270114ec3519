import { join } from "node:path";
import { TurngateError, TurngateValidationError } from "@turngate/core";
import { EXIT_OK } from "../context.js";
import { ADAPTERS, HARNESSES, type Harness } from "../hooks/adapters/index.js";
import {
  applyPlan,
  CONFINABLE,
  holdsOurCommand,
  hookFiles,
  type InstallScope,
  lineDiff,
  planInstall,
  planUninstall,
  readText,
} from "../hooks/install.js";
import { userHookConfigPath } from "../hooks/opt-in.js";
import { readAll } from "../hooks/payload.js";
import { runHook } from "../hooks/run-hook.js";
import { requestFreshStart } from "../hooks/session-chain.js";
import { listSessions } from "../hooks/session-state.js";
import { findWorkspace } from "../hooks/workspace.js";
import { cliPackageRoot } from "../package-root.js";
import { ALLOW_FRESH_ENV } from "../turn-chain.js";
import type { CliCommand } from "./types.js";

/**
 * `turngate hook <harness> <event>` (issue 19): the command a harness's hook configuration
 * runs. One subcommand per harness (`claude-code`, `codex`, `cursor`, `goose`) takes the
 * harness's event name; the payload is read from stdin and the answer written in the
 * harness's format (`runHook`). `turngate hook install|uninstall` write the configuration.
 * `turngate hook fresh` (host only: a terminal or `TURNGATE_ALLOW_FRESH=1`) asks the next
 * turn start of the workspace's hook sessions to start over (`requestFreshStart`;
 * docs/hooks.md "A new session continues the last one"); errors `fresh_needs_host`.
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
      const sub = hook.command(verb);
      if (verb === "install") {
        sub.option(
          "--confine",
          `also write the harness's own sandbox settings so the agent's shell and edits cannot write turngate's state folder (nor, with Claude Code, read its signing key); ${CONFINABLE.join(" and ")} only (docs/hooks.md "Confined hooks")`,
        );
      }
      sub
        .summary(
          verb === "install"
            ? "write turngate's hook entries into a harness's hook configuration"
            : "remove turngate's hook entries (only those) from a harness's hook configuration",
        )
        .argument("<harness>", `one of ${HARNESSES.join(", ")}`)
        .option(
          "--user",
          "the user-level file: the hooks run in every project, and gate only those that opted in (a turngate.config.json, or listed in ~/.config/turngate/hooks.json)",
        )
        .option(
          "--project",
          "the project's own file (the default; for Claude Code .claude/settings.local.json, not the team-shared settings.json)",
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
              confine?: boolean;
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
            const scope: InstallScope = flags.user ? "user" : "project";
            const root = findWorkspace(flags.root, ctx.cwd);
            const plan =
              verb === "install"
                ? await planInstall(
                    harness,
                    scope,
                    root,
                    flags.command ?? defaultCommand(),
                    ctx.env,
                    { confine: flags.confine === true, cwd: ctx.cwd },
                  )
                : await planUninstall(harness, scope, root, ctx.env);
            if (scope === "project" && flags.confine === true) {
              ctx.stderr.write(
                `turngate: note: ${plan.files[0]?.path} is inside the workspace; the harness's sandbox written here keeps it read-only to the agent while that sandbox is in force (each stop's trust says whether it was)\n`,
              );
            } else if (scope === "project") {
              ctx.stderr.write(
                `turngate: note: ${plan.files[0]?.path} is inside the workspace: the agent can edit or delete it and so switch turngate off (a user-level install, --user, is out of the project's reach)\n`,
              );
            }
            if (scope === "project") {
              const userFile = hookFiles(harness, "user", root, ctx.env).config;
              if (verb === "install" && holdsOurCommand(await readText(userFile), harness)) {
                ctx.stderr.write(
                  `turngate: warning: ${userFile} already has turngate's user-level hooks: with both, every event of this project runs turngate twice. Keep one: \`turngate hook uninstall ${harness} --user\`, or skip this project-level install\n`,
                );
              }
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
              if (verb === "install") ctx.stdout.write(installNote(harness, scope, ctx.env));
              if (verb === "install" && flags.confine === true)
                ctx.stdout.write(CONFINE_NOTES[harness as "claude-code" | "codex"]);
            }
            state.exitCode = EXIT_OK;
          },
        );
    }
    hook
      .command("fresh")
      .summary(
        "start this workspace's hook chain over: the next turn start takes the workspace as it is (host only)",
      )
      .description(
        `A new hook session continues from the workspace's previous one, so what an earlier session left unverified is still checked. \`turngate hook fresh\` drops that: the next turn start of any hook session of this workspace takes its baseline from the workspace as it is then (with a warning), so changes made before it are not checked. Only the host may ask: it needs an interactive terminal or ${ALLOW_FRESH_ENV}=1 in turngate's environment. An agent that runs unconfined as your user can do both; run it confined to rule that out.`,
      )
      .option("--root <dir>", "the workspace (default: the git top level of the cwd)")
      .action(async (flags: { root?: string }) => {
        const tty = ctx.stdinIsTTY ?? process.stdin.isTTY === true;
        if (!tty && ctx.env[ALLOW_FRESH_ENV] !== "1") {
          throw new TurngateError(
            "fresh_needs_host",
            `turngate hook fresh drops what earlier hook sessions left unverified, so only the host may ask for it: run it from an interactive terminal, or set ${ALLOW_FRESH_ENV}=1 in turngate's environment`,
          );
        }
        const root = findWorkspace(flags.root, ctx.cwd);
        const last = (await listSessions(root, ctx.env)).find(
          (s) => s.session.baseline_id !== null,
        );
        const path = await requestFreshStart(root, ctx.env, tty ? "terminal" : "environment");
        const lastTurn = last?.session.turn?.last;
        const before =
          last === undefined
            ? ""
            : ` (the last session, ${last.session.harness} session ${last.session.session_id}, ${lastTurn ? `ended its last turn ${lastTurn.verdict}${lastTurn.reason ? `, ${lastTurn.reason}` : ""}` : "has a turn no stop judged"})`;
        ctx.stderr.write(
          `turngate: warning: the next turn start of any hook session of ${root} takes its baseline from the workspace as it is then, so changes made before it are not checked${before}\n`,
        );
        ctx.stdout.write(`fresh start requested: ${path}\n`);
        state.exitCode = EXIT_OK;
      });
    for (const harness of HARNESSES) {
      const adapter = ADAPTERS[harness];
      hook
        .command(harness)
        .summary(`answer a ${harness} hook event (see ${adapter.docs[0]})`)
        .argument(
          "<event>",
          `the ${harness} event name: ${adapter.installEntries.map((e) => e.event).join(", ")}`,
        )
        .option(
          "--user",
          "the hook comes from a user-level install: gate only projects that opted in",
        )
        .action(async (event: string, flags: { user?: boolean }) => {
          const stdin = ctx.stdin ? await ctx.stdin() : await readAll(process.stdin);
          const reply = await runHook(harness, event, stdin, ctx, {
            userLevel: flags.user === true,
          });
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

/** What `--confine` gives, per harness, said after the install (docs/hooks.md "Confined hooks"). */
const CONFINE_NOTES: Record<"claude-code" | "codex", string> = {
  "claude-code":
    "Confined: Claude Code's sandbox (bubblewrap and socat on Linux) now keeps the agent's commands and file tools from reading or writing turngate's state folder and signing key; Claude Code refuses to start when the sandbox cannot run. A stop in bypassPermissions mode is recorded unsandboxed.\n",
  codex:
    "Confined writes: Codex runs the agent's commands in its workspace-write sandbox, which cannot write turngate's state folder; it can still read the whole disk, the signing key included, so proofs record trust confined-writes, not confined. Codex reads a project's .codex/config.toml only in a trusted project; a --sandbox flag at launch overrides it, and the stop records what Codex actually applied.\n",
};

/** What to do after an install, per harness; at user scope, which projects it gates. */
function installNote(harness: Harness, scope: InstallScope, env: NodeJS.ProcessEnv): string {
  const notes: Record<Harness, string> = {
    "claude-code": "Claude Code reads the hooks at its next start (or review them with /hooks).\n",
    codex:
      "Codex runs these hooks only once their trust is persisted (a project's .codex/ only in a trusted project): review them with /hooks in Codex (`codex exec --dangerously-bypass-hook-trust` skips that for one run).\n",
    cursor:
      "Cursor reloads its hooks.json by itself (a project's only in a trusted workspace); the stop hook sends at most loop_limit (5) follow-ups.\n",
    goose: "goose discovers the plugin at its next start.\n",
  };
  const reach =
    scope === "user"
      ? `These user-level hooks run in every project you open with ${harness}. They gate only projects that opted in: a turngate.config.json at the project's root, or a folder listed in ${userHookConfigPath(env)} ({"projects": ["/path/to/project"]}); every other project's stop passes with one line saying why.\n`
      : "";
  return `${reach}${notes[harness]}Checks come from turngate.config.json (or the project's preset checks); set max_attempts there (default 3).\n`;
}
