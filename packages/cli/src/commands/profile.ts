import { durationLabel } from "@turngate/core";
import { workspaceProfileStore } from "../check-profiles.js";
import { EXIT_OK } from "../context.js";
import { resolveStatePaths } from "../state-dir.js";
import { shownPath } from "../terminal-text.js";
import { addLocationOptions, resolveWorkspaceRoot } from "./options.js";
import type { CliCommand } from "./types.js";

/** Schema id of `turngate profile show --json`. */
export const PROFILE_SHOW_SCHEMA = "turngate.profile_show.v1";

type Stats = { p50?: number; p95?: number; p99?: number } | undefined;
const stat = (label: string, s: Stats) =>
  s?.p95 === undefined ? "" : ` ${label} p50 ${durationLabel(s.p50)} p95 ${durationLabel(s.p95)}`;

/**
 * `turngate profile show [--json]`: the rows of the workspace's verification profile store
 * (`<state folder>/verification-profiles.json`) with their timings (issue #14 item 7).
 */
export const profileCommand: CliCommand = {
  name: "profile",
  register(program, ctx, state) {
    const profile = program
      .command("profile")
      .summary("show the check timing profiles turngate has recorded");
    addLocationOptions(
      profile
        .command("show")
        .summary("list the profile rows and their timings")
        .description(
          "List the rows of <state folder>/verification-profiles.json: one per check id that turngate run / verify ran, with its rung, command, warm/cold p50 and p95 (nearest rank over the last 64 runs), sample count and last exit. --json prints {schema, file, profiles} with the record set as stored (Harn's field names).",
        )
        .option("--json", "print {schema, file, profiles} as JSON"),
    ).action(async (flags: { root?: string; stateDir?: string; json?: boolean }) => {
      const root = resolveWorkspaceRoot(ctx.cwd, flags.root);
      const paths = resolveStatePaths(root, flags.stateDir, ctx.cwd);
      const store = workspaceProfileStore(paths.dir);
      const profiles = await store.read();
      if (flags.json) {
        ctx.stdout.write(
          `${JSON.stringify({ schema: PROFILE_SHOW_SCHEMA, file: store.file, profiles }, null, 2)}\n`,
        );
      } else if (profiles === null || (profiles.rows ?? []).length === 0) {
        ctx.stdout.write(
          `profiles: none recorded yet in ${shownPath(root, store.file)} — run a turn with checks (turngate run --check CMD -- AGENT) to record their timings\n`,
        );
      } else {
        const rows = profiles.rows ?? [];
        const lines = [
          `profiles: ${rows.length} row${rows.length === 1 ? "" : "s"} in ${shownPath(root, store.file)}`,
        ];
        for (const row of rows) {
          const check = (row.check ?? {}) as Record<string, unknown>;
          const command = (check.command as { command?: string } | undefined)?.command ?? "";
          const t = (row.timings ?? {}) as { warmMs?: Stats; coldMs?: Stats; samples?: number };
          const last = row.lastRun as { exit?: number; at?: string } | undefined;
          lines.push(
            `  ${row.id} ${String(check.rung ?? row.rung ?? "R?")} ${JSON.stringify(command)}:${stat("warm", t.warmMs)}${stat("cold", t.coldMs)} (${t.samples ?? 0} sample${t.samples === 1 ? "" : "s"})${last?.exit === undefined ? "" : `, last exit ${last.exit} at ${last.at}`}`,
          );
        }
        ctx.stdout.write(`${lines.join("\n")}\n`);
      }
      state.exitCode = EXIT_OK;
    });
  },
};
