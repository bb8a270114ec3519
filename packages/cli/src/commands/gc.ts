import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { TurngateError } from "@turngate/core";
import { findStaleRooms, releaseTrees, removeRooms } from "@turngate/node";
import { EXIT_OK } from "../context.js";
import { resolveStatePaths } from "../state-dir.js";
import {
  applyGc,
  citedLogs,
  GC_DEFAULT_KEEP_TURNS,
  GC_DEFAULT_MAX_BYTES,
  listStateFiles,
  parseByteSize,
  parseKeepTurns,
  planGc,
  planViewGc,
  type StateFile,
} from "../state-gc.js";
import { shownPath } from "../terminal-text.js";
import { addLocationOptions, resolveWorkspaceRoot } from "./options.js";
import type { CliCommand } from "./types.js";

/** Schema id of `turngate gc --json`. */
export const GC_RESULT_SCHEMA = "turngate.gc_result.v1";

/**
 * `turngate gc [--keep-turns N] [--max-bytes SIZE] [--rooms] [--dry-run] [--json]`: bound the proofs
 * and logs under the state folder (issue #12 item 17; `planGc` says what is kept), and the
 * turn views of `turngate show` (the N newest are kept, and `views/last.json`) with the git
 * refs that kept their trees (`refs/turngate/trees/<id>`) for the views removed (docs/cli.md
 * "turngate gc"). It names the clean rooms of workspaces that no longer exist
 * (`findStaleRooms`), and `--rooms` removes them. The baseline and its history are never
 * removed.
 */
export const gcCommand: CliCommand = {
  name: "gc",
  register(program, ctx, state) {
    addLocationOptions(
      program
        .command("gc")
        .summary("remove old proofs and check logs from the state folder")
        .description(
          `Keep the state folder (.turngate/ or --state-dir) bounded. Kept: the proofs of the last N turns (--keep-turns, default ${GC_DEFAULT_KEEP_TURNS}, newest by modification time), every log those proofs cite, and the ${GC_DEFAULT_KEEP_TURNS} (N) newest other logs; then, while the kept proofs and logs exceed --max-bytes (default 100M), the oldest uncited logs and then the oldest proofs go, never the newest proof. The views of the N newest turns (what turngate show reads) are kept too; the git refs refs/turngate/trees/<id> that kept the trees of the views removed go with them. The baseline (baseline.json) and its history are never removed.`,
        )
        .option(
          "--keep-turns <n>",
          `proofs of this many recent turns to keep (default ${GC_DEFAULT_KEEP_TURNS})`,
        )
        .option(
          "--max-bytes <size>",
          "size limit of the kept proofs and logs: bytes, or with K, M, G (default 100M)",
        )
        .option(
          "--rooms",
          "also remove the clean rooms (in the user's cache folder) of workspaces that no longer exist",
        )
        .option("--dry-run", "only say what would be removed")
        .option(
          "--json",
          "print {schema, state_dir, dry_run, keep_turns, max_bytes, removed, kept, views, tree_refs_removed, stale_rooms} as JSON",
        ),
    ).action(
      async (flags: {
        root?: string;
        stateDir?: string;
        keepTurns?: string;
        maxBytes?: string;
        dryRun?: boolean;
        json?: boolean;
        rooms?: boolean;
      }) => {
        const keepTurns =
          flags.keepTurns === undefined ? GC_DEFAULT_KEEP_TURNS : parseKeepTurns(flags.keepTurns);
        const maxBytes =
          flags.maxBytes === undefined ? GC_DEFAULT_MAX_BYTES : parseByteSize(flags.maxBytes);
        const root = resolveWorkspaceRoot(ctx.cwd, flags.root);
        const paths = resolveStatePaths(root, flags.stateDir, ctx.cwd);
        // A mistyped --state-dir would otherwise report "removed 0 proofs" (QA finding P9).
        if (flags.stateDir !== undefined && !existsSync(paths.dir)) {
          throw new TurngateError(
            "state_dir_missing",
            `--state-dir ${flags.stateDir}: the folder ${paths.dir} does not exist; check the path (the default is .turngate/ in the workspace root)`,
          );
        }
        const files = await listStateFiles(paths);
        const cited = new Map<StateFile, string[]>();
        for (const file of files.filter((f) => f.kind === "proof"))
          cited.set(file, await citedLogs(file));
        const plan = planGc(files, (proof) => cited.get(proof) ?? [], { keepTurns, maxBytes });
        if (!flags.dryRun) await applyGc(plan);
        const { keptViews, removedViews, released } = await planViewGc(paths.dir, keepTurns);
        if (!flags.dryRun) {
          for (const view of removedViews) await rm(view.path, { force: true });
        }
        const refs = await releaseTrees(root, released, {
          dryRun: flags.dryRun === true,
          env: ctx.env,
        });
        // Clean rooms live in the user's cache folder, one per workspace: those of workspaces
        // that are gone are listed every time, and removed with --rooms.
        const staleRooms = findStaleRooms(ctx.env);
        if (flags.rooms === true && !flags.dryRun) removeRooms(staleRooms);
        const n = (list: StateFile[], kind: StateFile["kind"]) => {
          const c = count(list, kind);
          return `${c} ${kind}${c === 1 ? "" : "s"}`;
        };
        const count = (list: StateFile[], kind: StateFile["kind"]) =>
          list.filter((f) => f.kind === kind).length;
        const bytes = (list: StateFile[]) => list.reduce((sum, f) => sum + f.bytes, 0);
        if (flags.json) {
          const out = {
            schema: GC_RESULT_SCHEMA,
            state_dir: paths.dir,
            dry_run: flags.dryRun === true,
            keep_turns: keepTurns,
            max_bytes: maxBytes,
            removed: plan.remove.map((f) => ({ kind: f.kind, path: f.path, bytes: f.bytes })),
            kept: {
              proofs: count(plan.keep, "proof"),
              logs: count(plan.keep, "log"),
              bytes: bytes(plan.keep),
            },
            views: {
              removed: removedViews.map((v) => ({ path: v.path, bytes: v.bytes })),
              kept: keptViews.length,
            },
            tree_refs_removed: refs,
            stale_rooms: {
              removed: flags.rooms === true && flags.dryRun !== true,
              rooms: staleRooms.map((room) => ({
                dir: room.dir,
                workspace: room.workspace,
                bytes: room.bytes,
                why: room.why,
              })),
            },
          };
          ctx.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        } else {
          const verb = flags.dryRun ? "would remove" : "removed";
          ctx.stdout.write(
            `gc: ${verb} ${n(plan.remove, "proof")} and ${n(plan.remove, "log")} (${bytes(plan.remove)} bytes) from ${shownPath(root, paths.dir)}; kept ${n(plan.keep, "proof")} and ${n(plan.keep, "log")} (${bytes(plan.keep)} bytes; limits: ${keepTurns} ${keepTurns === 1 ? "turn" : "turns"}, ${maxBytes} bytes)\n`,
          );
          if (keptViews.length + removedViews.length > 0) {
            const plural = (c: number, word: string) => `${c} ${word}${c === 1 ? "" : "s"}`;
            ctx.stdout.write(
              `gc: ${verb} ${plural(removedViews.length, "turn view")} (${removedViews.reduce((sum, v) => sum + v.bytes, 0)} bytes) and ${plural(refs.length, "kept tree ref")} (refs/turngate/trees/); kept ${plural(keptViews.length, "turn view")}\n`,
            );
          }
          if (staleRooms.length > 0) {
            const size = staleRooms.reduce((sum, room) => sum + room.bytes, 0);
            const rooms = `${staleRooms.length} clean room${staleRooms.length === 1 ? "" : "s"} of workspaces that no longer exist (${size} bytes, in ${shownPath(root, dirname(staleRooms[0]?.dir ?? ""))})`;
            ctx.stdout.write(
              flags.rooms === true
                ? `gc: ${verb} ${rooms}\n`
                : `gc: ${rooms} can go: turngate gc --rooms removes them\n`,
            );
          }
        }
        state.exitCode = EXIT_OK;
      },
    );
  },
};
