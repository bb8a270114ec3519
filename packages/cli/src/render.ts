import { EXIT_STATUS_MASKED_RISK } from "@turngate/core";
import { maskedExitExplanation } from "./masked-exit.js";
import { failingTestLines } from "./render-tests.js";
import { displayPath, escapeControls, shownPath, terminalSafeTailLine } from "./terminal-text.js";
import type { TurnResult } from "./turn.js";
import { bindingJson } from "./turn.js";
import { unmatchedWaiverDigests } from "./waivers.js";

/** Lines of a failing check's output shown under the verdict. */
export const FAILING_TAIL_LINES = 20;

/** Schema id of the `--json` output of `run`, `verify` and each demo turn. */
export const TURN_RESULT_SCHEMA = "turngate.turn_result.v1";

/**
 * The verdict word of a turn: the terminal kind when the gate allowed it (`verified`,
 * `waived`, `narrative`, `distinct`), else the outcome kind (`incomplete`, `continue`).
 */
export function verdictOf(result: TurnResult): string {
  return result.outcome.kind === "allow" ? result.outcome.terminal.kind : result.outcome.kind;
}

/**
 * The human report of a turn (stdout): what changed, the summary text (A3S §2.19), the
 * verdict with the effect digest or the gate message and its reason, why the checks'
 * report is unbound when it is, what masks a check's exit status (and how to fix it), which `--waive` digests did not match an incomplete turn's
 * effect digest, the failing tests of each check whose structured results name them
 * (`failingTestLines`), else the last 20 lines of each failing check with its log, and
 * where the proof was written. Paths are relative to the workspace root (absolute outside it,
 * e.g. under `--state-dir`).
 *
 * Outside text cannot forge or hide lines: a path holding a control, DEL, C1 or bidi
 * character is printed JSON-quoted (`displayPath`); check ids, commands and gate messages
 * have such characters escaped (`escapeControls`); each tail line has terminal escape
 * sequences stripped, controls escaped and is capped at 400 characters
 * (`terminalSafeTailLine`).
 */
export function renderTurnText(result: TurnResult): string {
  const lines: string[] = [];
  const rel = (path: string) => shownPath(result.root, path);
  const changes = result.delta.changes;
  if (changes.length === 0 && result.delta.complete) {
    lines.push("changed: nothing");
  } else {
    lines.push(`changed: ${changes.length} ${changes.length === 1 ? "path" : "paths"}`);
    for (const change of changes) {
      lines.push(`  ${change.change.padEnd(8)} ${displayPath(change.path)}`);
    }
    for (const path of result.delta.unreadable) lines.push(`  unreadable ${displayPath(path)}`);
  }
  if (result.checksSource === "none") {
    lines.push(
      "checks: none configured (pass --check CMD, add checks to turngate.config.json, or use a project with a preset)",
    );
  }
  if (result.reports.length > 0) lines.push(escapeControls(result.summaryText));

  const outcome = result.outcome;
  if (outcome.kind === "allow") {
    const terminal = outcome.terminal;
    if (terminal.kind === "narrative") {
      lines.push("narrative: the turn changed no files; nothing to verify");
    } else if (terminal.kind === "verified") {
      lines.push(`verified: effect digest ${terminal.effect_digest}`);
    } else if (terminal.kind === "waived") {
      lines.push(
        `waived: effect digest ${terminal.effect_digest} (host waiver, not a verification pass)`,
      );
    } else {
      lines.push(terminal.kind);
    }
  } else {
    lines.push(`${outcome.kind} (${outcome.reason}): ${escapeControls(outcome.message)}`);
    const unmatched = unmatchedWaivers(result);
    if (unmatched.length > 0) {
      lines.push(
        `waivers not applied: ${unmatched.join(", ")} ${unmatched.length === 1 ? "does" : "do"} not match the effect digest ${result.effectDigest || '""'}`,
      );
    }
  }

  const binding = result.verification?.binding;
  if (binding && !binding.bound && binding.reason === "workspace_changed_during_check") {
    const what = [
      ...binding.changedPaths.map(displayPath),
      ...binding.unreadable.map((p) => `${displayPath(p)} (unreadable)`),
    ];
    lines.push(
      `not bound (workspace_changed_during_check): the checks changed the workspace while they ran: ${what.join(", ")}`,
    );
  }

  for (const run of result.verification?.runs ?? []) {
    if (run.check.status === "passed") continue;
    const risk = hintOf(run) ?? run.check.residual_risk ?? run.command.command;
    const head = `${run.check.status}: ${escapeControls(run.command.id)}: ${escapeControls(risk)}`;
    lines.push(head);
    const named = failingTestLines(
      run.testResults,
      run.execution.log ? rel(run.execution.log.path) : null,
    );
    if (named) {
      lines.push(...named);
      continue;
    }
    const tail = lastLines(run.execution.output, FAILING_TAIL_LINES);
    if (tail.length > 0) {
      const log = run.execution.log ? ` (full log: ${rel(run.execution.log.path)})` : "";
      lines.push(`  last ${tail.length} ${tail.length === 1 ? "line" : "lines"}${log}:`);
      for (const line of tail) lines.push(`  | ${terminalSafeTailLine(line)}`);
    }
  }
  if (result.proofPath) lines.push(`proof: ${rel(result.proofPath)}`);
  return `${lines.join("\n")}\n`;
}

/**
 * The wire form (snake_case) of a turn, printed by `--json`:
 * `{schema, verdict, exit_code, root, effect_digest, agent, changes, observation_complete,
 * unreadable, checks_source, checks, binding, reports, summary, summary_text, outcome,
 * proof_path, config_path, unmatched_waivers}`; absent parts are null;
 * each check's `hint` explains an `exit status masked` risk (else null); a check with
 * structured test results also has `tests` (counts) and `failing_tests` (ids);
 * `unmatched_waivers` lists the `--waive` digests that are not the effect digest of a turn
 * the gate did not allow (else `[]`).
 */
export function turnJson(result: TurnResult): Record<string, unknown> {
  return {
    schema: TURN_RESULT_SCHEMA,
    verdict: verdictOf(result),
    exit_code: result.exitCode,
    root: result.root,
    effect_digest: result.effectDigest,
    agent: result.agent
      ? {
          command: result.agent.command,
          exit_code: result.agent.exit.exitCode,
          signal: result.agent.exit.signal,
        }
      : null,
    changes: result.delta.changes,
    observation_complete: result.delta.complete,
    unreadable: result.delta.unreadable,
    checks_source: result.checksSource ?? null,
    checks: (result.verification?.runs ?? []).map((run) => ({
      id: run.command.id,
      command: run.command.command,
      status: run.check.status,
      exit_code: run.execution.exitCode,
      timed_out: run.execution.timedOut,
      duration_ms: run.execution.durationMs,
      log_path: run.execution.log?.path ?? null,
      residual_risk: run.check.residual_risk ?? null,
      hint: hintOf(run),
      ...(run.check.tests
        ? { tests: run.check.tests, failing_tests: run.check.failing_tests ?? [] }
        : {}),
    })),
    binding: bindingJson(result.verification?.binding),
    reports: result.reports,
    summary: result.summary,
    summary_text: result.summaryText,
    outcome: result.outcome,
    proof_path: result.proofPath ?? null,
    config_path: result.configPath ?? null,
    unmatched_waivers: unmatchedWaivers(result),
  };
}

/** What masks a check's exit status and how to fix it, when its risk is `exit status masked`. */
function hintOf(run: { check: { residual_risk?: string }; command: { command: string } }) {
  if (run.check.residual_risk !== EXIT_STATUS_MASKED_RISK) return null;
  return maskedExitExplanation(run.command.command);
}

/** Waiver digests that did not match the effect digest of a turn that was not allowed. */
function unmatchedWaivers(result: TurnResult): string[] {
  if (result.outcome.kind === "allow") return [];
  return unmatchedWaiverDigests(result.waivers, result.effectDigest);
}

function lastLines(text: string, count: number): string[] {
  const lines = text.replace(/\n+$/, "").split("\n");
  if (lines.length === 1 && lines[0] === "") return [];
  return lines.slice(-count);
}
