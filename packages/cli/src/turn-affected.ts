/**
 * The affected targets of one turn (issue 15 item 5): computed by `runTurn` from the turn's
 * changed source paths with the configuration's adapters (`affected_adapters`, else those
 * detected) and the code-index fallback. Informational: an error is kept as text and never
 * changes the verdict.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type AffectedTargetsFact, normalizeCheckCwd, targetsForCwd } from "@turngate/core";
import {
  affectedTargets,
  detectAdapters,
  openCodeIndex,
  runGit,
  type WorkspaceDelta,
  type WorkspaceSnapshot,
} from "@turngate/node";
import type { TurngateConfig } from "./config.js";
import { displayPath, escapeControls } from "./terminal-text.js";

/** The turn's affected targets, or why they could not be computed. */
export type TurnAffected = { fact: AffectedTargetsFact } | { error: string };

/**
 * {@link turnAffectedTargets}' result: the targets, and the write of the refreshed code index
 * into the state folder, left to the caller: while in-place checks run, a write into
 * `.turngate/` is what the checks' observer refuses (a check must not write turngate's
 * folder), so a turn saves it after its checks. `saveIndex` never throws: it resolves to the
 * message of a failed write (the index is a cache, refreshed again next time), else
 * undefined, and does nothing the second time.
 */
export interface TurnAffectedWork {
  affected: TurnAffected;
  saveIndex(): Promise<string | undefined>;
}

/**
 * Input: workspace root (absolute), the turn's delta (source-scope changes are used; a
 * rename is its old and new path), the configuration captured at the turn's start and the
 * state folder (holds `code-index.json`), and the turn's judged snapshot when there is one (the
 * code index is brought up to date from it, not from another observation of the workspace).
 * Output: `affected`, `{fact}` or `{error}` with the message of whatever failed (never
 * throws), and `saveIndex` (see {@link TurnAffectedWork}). Lockfile contents before the turn
 * are read from git HEAD (absent there and present now: new).
 */
export async function turnAffectedTargets(
  root: string,
  delta: WorkspaceDelta,
  config: TurngateConfig,
  stateDir: string,
  snapshot?: WorkspaceSnapshot,
): Promise<TurnAffectedWork> {
  let save: (() => Promise<void>) | undefined;
  const saveIndex = async (): Promise<string | undefined> => {
    const pending = save;
    save = undefined;
    try {
      await pending?.();
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };
  try {
    const changed = delta.changes.filter((c) => c.scope === "source").map((c) => c.path);
    const observerOptions = {
      ignores: config.ignores,
      ...(config.outputs !== undefined ? { outputs: config.outputs } : {}),
      ...(config.defaultOutputs !== undefined ? { defaultOutputs: config.defaultOutputs } : {}),
    };
    const opened = await openCodeIndex(root, {
      stateDir,
      observer: observerOptions,
      save: false,
      ...(snapshot !== undefined ? { snapshot } : {}),
    });
    const codeIndex = opened.index;
    save = () => codeIndex.save(opened.file);
    const fact = await affectedTargets(changed, config.affectedAdapters ?? detectAdapters(root), {
      root,
      fallback: true,
      codeIndex,
      ...(config.affectedGlobalFiles !== undefined
        ? { global_files: config.affectedGlobalFiles }
        : {}),
      lockfileBefore: async (path) => {
        const shown = await runGit(["show", `HEAD:${path}`], root);
        if (shown.code === 0) return shown.stdout.toString("utf8");
        return existsSync(join(root, path)) ? null : undefined;
      },
    });
    return { affected: { fact }, saveIndex };
  } catch (error) {
    return { affected: { error: (error as Error).message }, saveIndex };
  }
}

/** Targets named in the `affected:` line of the turn summary; the rest are counted. */
export const AFFECTED_TARGETS_SHOWN = 8;

/**
 * The summary line: `affected: 3 targets: pnpm:a (direct), pnpm:b (dependent), … +N more`
 * (`AFFECTED_TARGETS_SHOWN` named), `affected: none`, or
 * `affected: not computed (MESSAGE); the verdict does not depend on it`. Target ids are
 * shown as `displayPath` shows paths (a file name cannot forge a line); the message is escaped.
 */
export function affectedLine(affected: TurnAffected): string {
  if ("error" in affected) {
    return `affected: not computed (${escapeControls(affected.error)}); the verdict does not depend on it`;
  }
  const targets = affected.fact.targets;
  if (targets.length === 0) return "affected: none";
  const shown = targets
    .slice(0, AFFECTED_TARGETS_SHOWN)
    .map((t) => `${displayPath(t.id)} (${t.reason})`);
  const more = targets.length - shown.length;
  return `affected: ${targets.length} target${targets.length === 1 ? "" : "s"}: ${shown.join(", ")}${more > 0 ? `, +${more} more` : ""}`;
}

/** Wire form for `--json` `affected_targets`: the fact, or `{error}`. */
export function affectedJson(affected: TurnAffected | undefined): unknown {
  if (affected === undefined) return null;
  return "error" in affected ? { error: affected.error } : affected.fact;
}

/** A configured check `checks_from_affected` left out of the turn, and why. */
export interface SkippedCheck {
  id: string;
  reason: string;
}

/**
 * `checks_from_affected` (issue 15 item 4): which configured checks run. Input: the checks,
 * check id → its `targets`, and the turn's affected targets. Output: `{run, skipped}`.
 * Every check runs when the affected targets are missing or failed, or `run_all` is set (an
 * `unmapped`, `global_file` or un-narrowed lockfile change); else a check with `targets`
 * runs only when one of them is affected; a check with a `cwd` and no `targets` maps to the
 * targets whose project root is the deepest one holding its `cwd` (`targetsForCwd`) and runs
 * only when one of them is affected; a check with neither, or whose `cwd` lies in no
 * target's root, always runs. The
 * caller leaves the turn without a report when `run` is empty, so the gate keeps it
 * incomplete: skipped checks never make a turn verified.
 */
export function selectChecksByAffected<C extends { id: string; cwd?: string }>(
  checks: C[],
  checkTargets: Record<string, string[]>,
  affected: TurnAffected | undefined,
): { run: C[]; skipped: SkippedCheck[] } {
  if (affected === undefined || "error" in affected || affected.fact.run_all) {
    return { run: checks, skipped: [] };
  }
  const ids = new Set(affected.fact.targets.map((t) => t.id));
  const run: C[] = [];
  const skipped: SkippedCheck[] = [];
  for (const check of checks) {
    const targets = checkTargets[check.id];
    if (targets === undefined && check.cwd !== undefined) {
      const byCwd = targetsForCwd(check.cwd, affected.fact);
      if (byCwd === null || byCwd.ids.some((t) => ids.has(t))) run.push(check);
      else
        skipped.push({
          id: check.id,
          reason: `its cwd ${normalizeCheckCwd(check.cwd) || "."} lies in ${byCwd.ids.join(", ")}, which ${byCwd.ids.length === 1 ? "is" : "are"} not affected`,
        });
    } else if (targets === undefined || targets.some((t) => ids.has(t))) run.push(check);
    else
      skipped.push({
        id: check.id,
        reason: `none of its targets (${targets.join(", ")}) is affected`,
      });
  }
  return { run, skipped };
}

/**
 * The summary line for skipped checks: `checks skipped (checks_from_affected): ID (REASON); …`,
 * plus, when no check ran, that the turn stays incomplete. `[]` when none was skipped.
 */
export function skippedChecksLines(skipped: SkippedCheck[], anyRan: boolean): string[] {
  if (skipped.length === 0) return [];
  const lines = [
    `checks skipped (checks_from_affected): ${skipped.map((s) => `${escapeControls(s.id)} (${escapeControls(s.reason)})`).join("; ")}`,
  ];
  if (!anyRan) {
    lines.push(
      "no check ran: every configured check was skipped as unaffected, so nothing verifies this change and the turn stays incomplete; add a check without targets, or run with checks_from_affected off",
    );
  }
  return lines;
}
