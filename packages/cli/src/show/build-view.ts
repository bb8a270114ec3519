/**
 * The view model (`turngate.turn_view.v1`, issue 21) of a turn the CLI ran, or of a proof:
 * the host side of `buildTurnView` — diffs from the git trees (`turnDiffs`), how the checks
 * ran, the observer's change kinds — and the trees kept so `git diff <tree>` works later.
 */
import {
  buildTurnView,
  TURN_VIEW_DIFFS_DEFERRED,
  type TurnProof,
  type TurnView,
  type TurnViewInput,
  type TurnViewRun,
  turnViewDiffsDeferred,
  withTurnViewDiffs,
} from "@turngate/core";
import { keepTrees, turnDiffs } from "@turngate/node";
import { failureClassOf } from "../check-outcome.js";
import { hintOf } from "../render.js";
import { failureDigestOf } from "../render-tests.js";
import { shownPath } from "../terminal-text.js";
import type { TurnResult } from "../turn.js";

/**
 * The view of a turn `run`/`verify` just decided: the turn's facts (its ledger rows,
 * reports, waivers, outcome, trees), every check's run (command, duration, exit code,
 * failure class, output, log path and SHA-256, the failure digest `run` prints under a check
 * that did not pass), the observer's changes with their scope, the clean room's copied
 * outputs,
 * and the diffs between the baseline tree and the end's tree (`turnDiffs`). When diffs were
 * made, both trees are kept under `refs/turngate/trees/` (`keepTrees`).
 *
 * With `deferDiffs` (the view stored at the end of a turn: issue 33, no blob is read for a
 * display) and both trees recorded, the trees are kept and the source files' diffs are left
 * `unavailable` with {@link TURN_VIEW_DIFFS_DEFERRED}: `fillDeferredDiffs` makes them when
 * the view is shown.
 *
 * Input: the turn's result, the environment for git, options. Output: the view. Never throws
 * for git trouble (the view then says why diffs are not available).
 */
export async function viewOfResult(
  result: TurnResult,
  env: NodeJS.ProcessEnv = process.env,
  options: { deferDiffs?: boolean } = {},
): Promise<TurnView> {
  const trees = result.trees;
  const runs: TurnViewRun[] = (result.verification?.runs ?? []).map((run) => ({
    id: run.command.id,
    command: run.command.command,
    duration_ms: run.execution.durationMs,
    exit_code: run.execution.exitCode,
    timed_out: run.execution.timedOut,
    failure_class: failureClassOf(run),
    output: run.execution.output,
    log_path: run.execution.log?.path ?? null,
    log_sha256: run.execution.log?.sha256 ?? null,
    hint: hintOf(run, result.shell),
    ...(run.check.status === "passed"
      ? {}
      : {
          failure_digest: failureDigestOf(
            run,
            run.execution.log ? shownPath(result.root, run.execution.log.path) : null,
          ),
        }),
  }));
  const input: TurnViewInput = {
    source: "result",
    turn: {
      effect_digest: result.effectDigest,
      records: result.records,
      reports: result.reports,
      waivers_used: result.waivers.filter((w) => w.effect_digest === result.effectDigest),
      outcome: result.outcome,
      workspace: {
        root: result.root,
        baseline_tree: trees?.baseline ?? null,
        final_tree: trees?.final ?? null,
        tree_reason: trees ? trees.reason : "git trees were not recorded",
      },
      trust: result.trust,
      started_at: result.startedAt,
      finished_at: result.finishedAt,
    },
    runs,
    changes: result.delta.changes.map((c) => ({ path: c.path, change: c.change, scope: c.scope })),
    ...(result.verification?.outputs ? { outputs: result.verification.outputs } : {}),
  };
  if (result.affected && "fact" in result.affected) {
    input.affected_targets = result.affected.fact.targets.map((t) => ({
      target: t.id,
      reason: t.reason,
      ...(t.via !== undefined ? { via: t.via } : {}),
    }));
  }
  if (result.effectDigest === "") input.diffs = [];
  else if (options.deferDiffs === true && trees?.baseline != null && trees.final != null) {
    input.diffs_unavailable = TURN_VIEW_DIFFS_DEFERRED;
    await keepTrees(result.root, [trees.baseline, trees.final], env);
  } else {
    const made = await turnDiffs(result.root, trees?.baseline ?? null, trees?.final ?? null, env);
    if (made.diffs === null) input.diffs_unavailable = trees?.reason ?? made.reason;
    else {
      input.diffs = made.diffs;
      await keepTrees(result.root, [trees?.baseline ?? null, trees?.final ?? null], env);
    }
  }
  return buildTurnView(input);
}

/**
 * The view of a proof (`turngate show DIGEST | PROOF_FILE`): its facts, and the diffs
 * between its `workspace.baseline_tree` and `final_tree` in the repository at `root`
 * (default: the proof's own root). A proof carries no check output or durations: those
 * fields are null or empty. Never throws for git trouble.
 */
export async function viewOfProof(
  proof: TurnProof,
  root: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TurnView> {
  const input: TurnViewInput = { source: "proof", turn: proof };
  const where = root ?? proof.workspace?.root;
  if (proof.effect_digest === "") input.diffs = [];
  else if (where === undefined) input.diffs_unavailable = "the proof names no workspace";
  else {
    const made = await turnDiffs(
      where,
      proof.workspace?.baseline_tree ?? null,
      proof.workspace?.final_tree ?? null,
      env,
    );
    if (made.diffs === null) {
      input.diffs_unavailable =
        proof.workspace?.baseline_tree == null && proof.workspace?.tree_reason
          ? `${proof.workspace.tree_reason}: diffs are not available`
          : made.reason;
    } else input.diffs = made.diffs;
  }
  return buildTurnView(input);
}

/**
 * A stored view whose diffs were deferred (`viewOfResult` with `deferDiffs`) with them
 * filled in from its kept trees in the repository at `view.root` (`turnDiffs`); any other
 * view as it is. Never throws for git trouble: the view then says why the diffs are not
 * available (a tree pruned, the repository moved).
 */
export async function fillDeferredDiffs(
  view: TurnView,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TurnView> {
  if (!turnViewDiffsDeferred(view)) return view;
  if (view.root === null) return withTurnViewDiffs(view, { reason: "the view names no workspace" });
  const made = await turnDiffs(view.root, view.diffs.baseline_tree, view.diffs.final_tree, env);
  return withTurnViewDiffs(
    view,
    made.diffs === null ? { reason: made.reason } : { diffs: made.diffs },
  );
}
