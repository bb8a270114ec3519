import { FAILURE_DIGEST_MAX_CHARS } from "@turngate/core";
import type { FailureClass } from "@turngate/node";
import { failureClassOf, failureDetail } from "../check-outcome.js";
import { failureDigestLines } from "../render-tests.js";
import { displayPath, escapeControls, shownPath } from "../terminal-text.js";
import type { TurnResult } from "../turn.js";

/**
 * Characters of a block reason kept for turngate's own lines around the failure digests
 * (the attempt line, what to do, the changed paths): the digests share the rest of the
 * harness's bound.
 */
export const REASON_FRAME_CHARS = 2_000;

/** One check that did not pass, as the answers name it. */
export interface FailedCheck {
  id: string;
  failureClass: FailureClass | "needs_review";
  detail: string;
  /** The failure digest (`failureDigestLines`): failing tests with their failures, then the last lines. */
  digest: string[];
  logPath: string | null;
}

/** What the stop answer says about a turn the gate did not allow. */
export interface FailureSummary {
  /** `assertion` (a check failed), `could_not_run` (a check could not run), `gate` (anything else). */
  kind: "assertion" | "could_not_run" | "gate";
  /** The lines the model reads, before the attempt line and what to do. */
  lines: string[];
  failed: FailedCheck[];
}

/** Failure classes for which "the check could not run" (issue 19 item 4). */
const COULD_NOT_RUN: readonly string[] = ["infrastructure", "timeout", "cancelled", "signal"];

/**
 * Why a turn the gate did not allow was refused, in lines a model can act on: each check that
 * did not pass with its failure class and what went wrong, then its failure digest — the
 * failing tests, each with the first lines of its failure, then the output's last lines
 * (`failureDigestLines`, the same lines `run` prints; issue 34); an unbound report with the
 * paths another process changed while the checks ran; turngate's own review checks that are
 * not satisfied (`turngate:config`, `turngate:hook-settings`, … with their residual risk);
 * the user-level files the checks may read that changed during the turn (environment rows);
 * or the gate's own message.
 * `maxChars` bounds the whole text the harness shows (default `FAILURE_DIGEST_MAX_CHARS`):
 * after `REASON_FRAME_CHARS` for turngate's own lines, the failing checks share the rest
 * equally. Input: the turn, the tool that last touched each path, the bound. Output: the
 * summary (kind, lines, failed checks). Pure.
 */
export function summarizeFailure(
  result: TurnResult,
  tools: ReadonlyMap<string, string>,
  maxChars: number = FAILURE_DIGEST_MAX_CHARS,
): FailureSummary {
  const failing = (result.verification?.runs ?? []).filter((run) => {
    const cls = failureClassOf(run);
    return !(cls === null && run.check.status !== "needs_review");
  });
  const share = Math.floor(
    Math.max(0, maxChars - REASON_FRAME_CHARS) / Math.max(1, failing.length),
  );
  const failed: FailedCheck[] = [];
  for (const run of failing) {
    const cls = failureClassOf(run);
    const log = run.execution.log?.path ?? null;
    failed.push({
      id: run.command.id ?? run.command.command,
      failureClass: cls ?? "needs_review",
      detail:
        failureDetail(run) ??
        `needs review: ${run.check.residual_risk ?? "the result cannot be trusted"}`,
      digest: failureDigestLines(run, log === null ? null : shownPath(result.root, log), share),
      logPath: log,
    });
  }
  const lines: string[] = [];
  const couldNotRun = failed.filter((f) => COULD_NOT_RUN.includes(f.failureClass));
  for (const check of failed) {
    const id = escapeControls(check.id);
    if (COULD_NOT_RUN.includes(check.failureClass)) {
      lines.push(
        `the check \`${id}\` could not run (${check.failureClass}): ${check.detail}. This is not a failure of your code: the check itself did not run to the end here.`,
      );
    } else if (check.failureClass === "needs_review") {
      lines.push(`the check \`${id}\` ran but its result is not trusted: ${check.detail}.`);
    } else {
      lines.push(`the check \`${id}\` failed (${check.failureClass}): ${check.detail}.`);
    }
    lines.push(...check.digest);
  }
  // Checks turngate added to the report itself (the configuration or a harness's hook
  // settings changed during the turn, a program on the checks' PATH, …): the model must read
  // why, not only the gate's generic message.
  const ran = new Set((result.verification?.runs ?? []).map((run) => run.command.id));
  const reviews = (result.verification?.report.checks ?? []).filter(
    (check) => check.status !== "passed" && !ran.has(check.id) && check.id.startsWith("turngate:"),
  );
  for (const check of reviews) {
    lines.push(
      `turngate's own check \`${escapeControls(check.id)}\` is not satisfied (${check.status}): ${escapeControls(check.residual_risk ?? check.description)}.`,
    );
  }
  const binding = result.verification?.binding;
  if (binding && !binding.bound && binding.reason === "workspace_changed_during_check") {
    const shown = binding.changedPaths.slice(0, 10).map((path) => {
      const tool = tools.get(path);
      return tool ? `${displayPath(path)} (last touched by ${tool})` : displayPath(path);
    });
    lines.push(
      `the checks' report does not bind: ${shown.join(", ")} changed while the checks ran. Another process changed it — a background process still running in the workspace, or a hook of another tool running at the same time (Codex runs matching hooks concurrently). Stop that process, then stop again.`,
    );
  }
  const environment = result.environmentChanges ?? [];
  if (environment.length > 0) {
    const shown = environment.slice(0, 10).map((change) => {
      const kind = change.contentDigest === "deleted" ? "deleted" : "changed";
      return `${displayPath(change.path)} (${kind})`;
    });
    const more = environment.length > 10 ? `, and ${environment.length - 10} more` : "";
    lines.push(
      `user-level files the checks may read changed during this turn: ${shown.join(", ")}${more}. turngate cannot tell whether the checks passed because of them, so these changes are not verified: undo them, or, if the person made them, ask the person to waive the digest.`,
    );
  }
  if (failed.length === 0 && lines.length === 0) {
    if (result.checksSource === "none" || result.verification === undefined) {
      lines.push(
        result.verification === undefined && result.checksSource !== "none"
          ? "the checks did not run."
          : "turngate has no checks to run for this workspace (no `checks` in turngate.config.json and no preset matched), so nothing can verify these changes: ask the person to configure checks or to waive the digest.",
      );
    } else if (result.outcome.kind !== "allow") {
      lines.push(escapeControls(result.outcome.message));
    }
  } else if (result.outcome.kind !== "allow" && result.outcome.reason !== "unverified_mutation") {
    lines.push(escapeControls(result.outcome.message));
  }
  const kind =
    couldNotRun.length > 0
      ? "could_not_run"
      : failed.length > 0 && failed.every((f) => f.failureClass === "assertion") && binding?.bound
        ? "assertion"
        : "gate";
  return { kind, lines, failed };
}

/** The changed paths of a turn with the tool that last touched each, for the answer. */
export function changedLines(result: TurnResult, tools: ReadonlyMap<string, string>): string[] {
  const changes = result.delta.changes;
  if (changes.length === 0) return [];
  const shown = changes.slice(0, 10).map((change) => {
    const tool = tools.get(change.path);
    return `${displayPath(change.path)} (${change.change}${tool ? `, ${tool}` : ""})`;
  });
  const more = changes.length > 10 ? `, and ${changes.length - 10} more` : "";
  return [`changed since the turn started: ${shown.join(", ")}${more}`];
}

/**
 * docs/cli.md "Gapless turns": the paths that changed between the last judged stop and this
 * turn's start — by the person, another process, or the agent outside a turn — that are
 * still among this turn's changes, in one line (none: `[]`). Pure.
 */
export function betweenTurnsLines(result: TurnResult): string[] {
  const changed = new Set(result.delta.changes.map((change) => change.path));
  const between = (result.chain?.betweenTurns ?? []).filter((path) => changed.has(path));
  if (between.length === 0) return [];
  const shown = between.slice(0, 10).map(displayPath).join(", ");
  const more = between.length > 10 ? `, and ${between.length - 10} more` : "";
  return [
    `changed between turns, by you or another process: ${shown}${more} (after the last stop was judged and before this turn started; checked as this turn's changes)`,
  ];
}
