import { cacheStats } from "@turngate/node";
import { EXIT_OK } from "../context.js";
import { resolveStatePaths } from "../state-dir.js";
import { shownPath } from "../terminal-text.js";
import { addLocationOptions, resolveWorkspaceRoot } from "./options.js";
import type { CliCommand } from "./types.js";

/** Schema id of `turngate cache stats --json`. */
export const CACHE_STATS_SCHEMA = "turngate.cache_stats.v1";

/**
 * `turngate cache stats [--json]` (issue 20 item 3): the result cache's totals from
 * `<state>/cache/events.jsonl` — hits (local, remote), misses, rejected artifacts (by
 * reason), remote errors, uploads and bytes. Text: one line per total; `--json`:
 * `{schema, state_dir, ...CacheStats}`.
 */
export const cacheCommand: CliCommand = {
  name: "cache",
  register(program, ctx, state) {
    const cache = program
      .command("cache")
      .summary("the result cache shared across machines (stats)")
      .description(
        'The result cache (docs/scale-out.md "Many machines"): checks whose key (source tree, lockfiles, command, toolchain, os/arch) matches a signed result from a trusted key are not run again.',
      );
    addLocationOptions(
      cache
        .command("stats")
        .summary("hits, misses, bytes and rejected artifacts")
        .option(
          "--json",
          "print {schema, state_dir, hits, misses, rejected, remote_errors, uploads, upload_failures, bytes, unreadable_lines} as JSON",
        ),
    ).action(async (flags: { root?: string; stateDir?: string; json?: boolean }) => {
      const root = resolveWorkspaceRoot(ctx.cwd, flags.root);
      const paths = resolveStatePaths(root, flags.stateDir, ctx.cwd);
      const stats = await cacheStats(paths.dir);
      if (flags.json) {
        ctx.stdout.write(
          `${JSON.stringify({ schema: CACHE_STATS_SCHEMA, state_dir: paths.dir, ...stats }, null, 2)}\n`,
        );
      } else {
        const reasons = Object.entries(stats.rejected.by_reason)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([reason, n]) => `${reason} ${n}`)
          .join(", ");
        const rejected = stats.rejected.local + stats.rejected.remote;
        ctx.stdout.write(
          [
            `cache stats (${shownPath(root, paths.dir)}):`,
            `  hits:     ${stats.hits.local + stats.hits.remote} (remote ${stats.hits.remote}, local ${stats.hits.local}; ${stats.bytes.hits} bytes)`,
            `  misses:   ${stats.misses}`,
            `  rejected: ${rejected}${reasons ? ` (${reasons})` : ""}`,
            `  remote errors: ${stats.remote_errors}`,
            `  uploads:  ${stats.uploads} (${stats.bytes.uploaded} bytes; ${stats.upload_failures} failed)`,
            "",
          ].join("\n"),
        );
      }
      state.exitCode = EXIT_OK;
    });
  },
};
