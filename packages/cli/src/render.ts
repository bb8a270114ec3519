import {
  EXIT_STATUS_MASKED_RISK,
  EXIT_STATUS_UNVERIFIABLE_RISK,
  type GateOutcome,
} from "@turngate/core";
import { type CheckRunLike, failureClassOf, failureDetail } from "./check-outcome.js";
import { type HintShell, maskedExitExplanation } from "./masked-exit.js";
import { outsideScopeJson, outsideScopeLines } from "./render-outside.js";
import { failureDigestLines, failureDigestOf } from "./render-tests.js";
import { displayPath, escapeControls, shownPath } from "./terminal-text.js";
import type { TurnAgent, TurnResult } from "./turn.js";
import { bindingJson } from "./turn.js";
import { affectedJson, affectedLine, skippedChecksLines } from "./turn-affected.js";
import { unmatchedWaiverDigests } from "./waivers.js";

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
 * The human report of a turn (stdout): what changed in the source scope (one line per
 * path) and outside it (`ignored: N paths` grouped by top folder, see `outsideScopeLines`),
 * the checks by status (`checksLine`), the verdict with the effect digest or the gate's
 * refusal in the user's terms and its reason (`gateText`), a check that did not pass with
 * its failure class and why (`failed (timeout): check:1: timed out after 1000 ms: sleep 5`),
 * an agent that exited ≠ 0, why the checks' report is unbound when it is and what to do
 * (`what to do: …`, issue 10), the lockfiles a `"rewrite_paths"` re-run adopted, one
 * `check outputs:` line ({@link checkOutputsLine}), what masks a check's exit status (and
 * how to fix it), which `--waive` digests did not match an incomplete turn's
 * effect digest, the user-level files (tool `environment` rows) that changed, each
 * failing check's failure digest (`failureDigestLines`: its failing tests with the first
 * lines of each failure, then its last lines and the log; issue 34), and
 * where the proof was written, and the trust line (`trustLine`). Paths are relative to the workspace root (absolute outside it,
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
  if (result.agent) lines.push(...survivorLines(result.agent));
  const changes = result.delta.changes.filter((change) => change.scope === "source");
  const outside = outsideScopeLines(result.delta.changes);
  if (changes.length === 0 && outside.length === 0 && result.delta.complete) {
    lines.push("changed: nothing");
  } else {
    const outsideCount = result.delta.changes.length - changes.length;
    lines.push(
      changes.length === 0 && outsideCount > 0
        ? `changed: 0 source paths (${outsideCount} outside the source scope)`
        : `changed: ${changes.length} ${changes.length === 1 ? "path" : "paths"}`,
    );
    for (const change of changes) {
      lines.push(`  ${change.change.padEnd(8)} ${displayPath(change.path)}`);
    }
    const reasons = result.delta.unreadable_reasons ?? {};
    for (const path of result.delta.unreadable) {
      const reason = Object.hasOwn(reasons, path) ? reasons[path] : undefined;
      lines.push(`  unreadable ${displayPath(path)}${reason === undefined ? "" : ` (${reason})`}`);
    }
    lines.push(...outside);
  }
  const between = result.chain?.betweenTurns ?? [];
  if (between.length > 0) {
    lines.push(
      `changed between turns, by you or another process: ${between.map(displayPath).join(", ")} (after the previous turn was judged and before this one's agent ran: rows of this turn, checked with it; the host can waive them with --waive DIGEST:REASON)`,
    );
  }
  if (result.affected) lines.push(affectedLine(result.affected));
  const environment = result.environmentChanges;
  if (environment.length > 0) {
    lines.push(
      `environment: ${environment.length} user-level ${environment.length === 1 ? "file" : "files"} the checks may read changed (ledger rows, tool environment)`,
    );
    for (const change of environment) {
      const kind = change.contentDigest === "deleted" ? "deleted" : "changed";
      lines.push(`  ${kind.padEnd(8)} ${displayPath(change.path)}`);
    }
  }
  if (result.checksSource === "none") {
    lines.push(
      "checks: none configured (pass --check CMD, add checks to turngate.config.json, or use a project with a preset)",
    );
  }
  const runs = result.verification?.runs ?? [];
  lines.push(...skippedChecksLines(result.skippedChecks ?? [], runs.length > 0));
  if (runs.length > 0) lines.push(checksLine(runs));
  else if (result.reports.length > 0) lines.push(escapeControls(result.summaryText));
  const cached = cachedChecksLine(result);
  if (cached !== null) lines.push(cached);

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
    lines.push(`${outcome.kind} (${outcome.reason}): ${escapeControls(gateText(outcome, result))}`);
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
    const shown = what.slice(0, UNBOUND_PATHS_SHOWN);
    if (what.length > UNBOUND_PATHS_SHOWN) {
      shown.push(`and ${what.length - UNBOUND_PATHS_SHOWN} more (see --json)`);
    }
    lines.push(
      `not bound (workspace_changed_during_check): the checks changed the workspace while they ran: ${shown.join(", ")}`,
    );
  }
  if (binding && !binding.bound && "hint" in binding) {
    lines.push(`  what to do: ${escapeControls(binding.hint)}`);
  }
  if (binding && "rewrites" in binding && binding.rewrites && binding.rewrites.length > 0) {
    const list = binding.rewrites.map(
      (r) => `${displayPath(r.path)} (by ${escapeControls(r.checkId)})`,
    );
    lines.push(`rewritten by the checks, then re-run ("rewrite_paths"): ${list.join(", ")}`);
  }
  if (binding?.checkOutputs) lines.push(checkOutputsLine(binding.checkOutputs));

  for (const run of runs) {
    if (run.check.status === "passed") continue;
    const cls = failureClassOf(run);
    const detail = failureDetail(run);
    const risk =
      hintOf(run, result.shell) ??
      (detail !== null ? `${detail}: ${run.command.command}` : undefined) ??
      run.check.residual_risk ??
      run.command.command;
    const status = cls === null ? run.check.status : `${run.check.status} (${cls})`;
    const head = `${status}: ${escapeControls(run.command.id)}: ${escapeControls(risk)}`;
    lines.push(head);
    lines.push(...failureDigestLines(run, run.execution.log ? rel(run.execution.log.path) : null));
  }
  // Checks turngate added to the report itself (issue 10: a configuration file or the
  // checks' cargo target folder changed during the turn), not commands that ran.
  const ran = new Set((result.verification?.runs ?? []).map((run) => run.command.id));
  for (const check of result.verification?.report.checks ?? []) {
    if (check.status === "passed" || ran.has(check.id) || !check.id.startsWith("turngate:")) {
      continue;
    }
    lines.push(
      `${check.status}: ${escapeControls(check.id)}: ${escapeControls(check.residual_risk ?? check.description)}`,
    );
  }
  const cleanRoomHint = cleanRoomFailureLine(result);
  if (cleanRoomHint !== null) lines.push(cleanRoomHint);
  const agentLine = agentErrorLine(result);
  if (agentLine !== null) lines.push(agentLine);
  if (result.proofPath) lines.push(`proof: ${rel(result.proofPath)}`);
  if (result.proofError) lines.push(`proof: not written: ${result.proofError}`);
  if (result.chainError) {
    lines.push(
      `turn chain: not written: ${result.chainError} (the next run cannot start from the state this one was judged on)`,
    );
  }
  const copied = result.verification?.outputs;
  if (copied !== undefined) {
    lines.push(
      `outputs: ${copied.paths.length} ${copied.paths.length === 1 ? "file" : "files"} the checks wrote, copied out of the clean room to ${rel(copied.dir)}`,
    );
  }
  // The usual modes go without a line (`--json`, the proof and `show` record them); a
  // required clean room that could not start says why no check ran.
  if (result.verification !== undefined && !result.isolation.available) {
    lines.push(isolationLine(result));
  }
  lines.push(trustLine(result));
  return `${lines.join("\n")}\n`;
}

/**
 * The checks in one line, in the user's terms (issue #12 item 12): `checks: 2 passed`,
 * `checks: 1 failed (unit), 1 passed`, `checks: 1 needs review (lint, optional)` — counts
 * by status in the order failed, needs review, passed, naming the checks that did not pass.
 * (`--json` keeps A3S's summary text in `summary_text`.)
 */
function checksLine(runs: readonly CheckRunLike[]): string {
  const parts: string[] = [];
  const groups: Array<[string, string]> = [
    ["failed", "failed"],
    ["needs_review", "need review"],
    ["skipped", "skipped"],
    ["passed", "passed"],
  ];
  for (const [status, words] of groups) {
    const matching = runs.filter((run) => run.check.status === status);
    if (matching.length === 0) continue;
    const verb = status === "needs_review" && matching.length === 1 ? "needs review" : words;
    const names =
      status === "passed"
        ? ""
        : ` (${matching.map((run) => `${escapeControls(run.command.id)}${run.command.required ? "" : ", optional"}`).join("; ")})`;
    parts.push(`${matching.length} ${verb}${names}`);
  }
  return `checks: ${parts.join(", ")}`;
}

/**
 * The gate's refusal in the user's terms, with what to do next (issue #12 item 12). A3S's
 * message stays verbatim in `--json` (`outcome.message`); an unknown reason shows it as is.
 */
function gateText(outcome: Exclude<GateOutcome, { kind: "allow" }>, result: TurnResult): string {
  const digest = result.effectDigest;
  switch (outcome.reason) {
    case "unverified_mutation": {
      const runs = result.verification?.runs ?? [];
      const waive = `or, as the host, accept this exact change with --waive ${digest}:REASON`;
      const change = `the change (effect digest ${digest}) is not verified`;
      if (runs.length === 0) {
        return `${change}: no check ran on it. Add one (--check CMD, or "checks" in turngate.config.json) and run again, ${waive}`;
      }
      if (result.verification?.binding.bound === false) {
        return `${change}: the checks changed the workspace while they ran, so their result does not hold for it. Make the checks leave the workspace as they found it (or add their outputs to "outputs" in turngate.config.json) and run again, ${waive}`;
      }
      const binding = result.verification?.binding;
      const changedAfter = binding?.bound === true ? (binding.changedAfter ?? []) : [];
      const failed = runs.some(
        (run) =>
          run.command.required &&
          (run.check.status === "failed" || run.check.status === "needs_review"),
      );
      if (changedAfter.length > 0 && !failed) {
        return `${change}: the checks passed on the bytes they were given, but the workspace changed while they ran (${namedPaths(changedAfter)}), so their result is for the earlier bytes. Stop whatever is still writing there and run again, ${waive}`;
      }
      return `${change}: the required checks did not all pass. Fix it and run again, ${waive}`;
    }
    case "observation_incomplete":
      return "turngate could not read every path of the workspace (listed as unreadable above), so it cannot tell what the turn changed: make them readable, rename names that are not UTF-8, or add them to ignores, and run again";
    default:
      return outcome.message;
  }
}

/** Up to three paths, escaped, then how many more: `a.js, b.js, c.js and 2 more`. Pure. */
function namedPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).map(escapeControls).join(", ");
  return paths.length > 3 ? `${shown} and ${paths.length - 3} more` : shown;
}

/**
 * The line about an agent that exited with a code other than 0, or null (issue #12 item 14):
 * the verdict does not depend on it; `--fail-on-agent-error` makes turngate exit 1.
 */
function agentErrorLine(result: TurnResult): string | null {
  const exit = result.agent?.exit;
  if (!exit || exit.exitCode === 0) return null;
  const how = exit.signal
    ? `was ended by ${exit.signal} (exit code ${exit.exitCode})`
    : `exited with code ${exit.exitCode}`;
  if (result.failOnAgentError) {
    return `agent: ${how}; --fail-on-agent-error makes this run exit 1 (the verdict above is unchanged)`;
  }
  return `agent: ${how}; the verdict does not depend on it (pass --fail-on-agent-error to exit 1 when the agent fails)`;
}

/**
 * Where the checks ran, in one line (docs/design.md §3b): `isolation: clean-room (…)` or
 * `isolation: in-place (…)`, from what the session decided, never a claim.
 */
export function isolationLine(result: Pick<TurnResult, "isolation">): string {
  const { isolation } = result;
  if (isolation.mode === "clean-room") {
    return isolation.available
      ? "isolation: clean-room (the checks ran on a copy of exactly these bytes, in a sandbox)"
      : "isolation: clean-room required, but the sandbox could not start: no check ran";
  }
  return "isolation: in-place (the checks ran in the workspace itself)";
}

/**
 * After a failed check in the clean room (docs/design.md §3b), one line saying what the
 * room holds and what to do when a check needs an ignored file (a local settings file, a
 * generated one): it is not there, by design. Null when no check failed or the checks did
 * not run in a clean room.
 */
export function cleanRoomFailureLine(
  result: Pick<TurnResult, "isolation" | "verification">,
): string | null {
  const { isolation } = result;
  if (isolation.mode !== "clean-room" || !isolation.available) return null;
  const runs = result.verification?.runs ?? [];
  if (!runs.some((run) => run.check.status === "failed")) return null;
  return 'clean room: the checks ran on a copy of the tracked and unignored files only; an ignored file a check reads (a local settings file, a generated one) is not there. If a check needs one: track it, create it in the check or its setup, or run with --isolation in-place. Unless the configuration sets "network": true, the room has no network either: a dependency missing from your caches (~/go/pkg/mod, ~/.cargo/registry) cannot be fetched there; fetch it before the checks (a confined agent needs that cache in "agent_writable")';
}

/**
 * The last line of a turn's text (docs/guarantees.md "Confined agents"): `trust: confined` when
 * turngate ran the agent in its sandbox (`--confine`), `trust: sandboxed (host claim)` when the
 * host said the agent runs as another user or in a sandbox (`--sandboxed`, `TURNGATE_SANDBOXED=1`;
 * issue 10), `trust: confined-writes` from a confined hook whose harness cannot hide the key
 * (docs/hooks.md "Confined hooks"), else `trust: unsandboxed`, saying plainly that such an agent can forge a waiver or a
 * prompt event and that `--confine` stops it (issue 32 item 4).
 */
export function trustLine(result: Pick<TurnResult, "trust">): string {
  if (result.trust === "confined") {
    return "trust: confined (turngate ran the agent in its sandbox: it could not write .git/, .turngate/ or the gate's configuration, nor see turngate's state or signing key)";
  }
  if (result.trust === "confined-writes") {
    return "trust: confined-writes (the harness's sandbox kept the agent from writing turngate's state, not from reading its signing key)";
  }
  if (result.trust === "sandboxed") {
    return "trust: sandboxed (host claim: the agent runs as another user or in a sandbox)";
  }
  return "trust: unsandboxed (the agent runs as your user: it could read the signing key and forge a waiver or a prompt event; run it with turngate run --confine, or hooks installed with --confine, to stop that)";
}

/**
 * The wire form (snake_case) of a turn, printed by `--json`:
 * `{schema, verdict, exit_code, root, effect_digest, agent, changes, outside_scope
 * (changed paths outside the source scope by scope: `{ignored, output, harness}`), observation_complete,
 * unreadable, checks_source, checks, binding, reports, summary, summary_text, outcome,
 * proof_path, proof_format, proof_keyid, trust, config_path, unmatched_waivers, shell,
 * environment_changes}`; absent parts are null; `shell` is `{path, name, pipefail}` of the
 * checks' shell; `environment_changes` the `environment` ledger rows `[{path,
 * content_digest}]` (`~/.gitconfig`, …);
 * each check's `hint` explains an `exit status masked` risk (else null); a check with
 * structured test results also has `tests` (counts) and `failing_tests` (ids); every check has
 * `failure_digest`, the lines `run` prints under a check that did not pass (its failing tests
 * with the first lines of each failure, then its last lines; `[]` when it passed; issue 34);
 * `timeout_ms` is the
 * timeout that applied and `failure_class` is `assertion`, `timeout`, `cancelled`, `signal`,
 * `infrastructure` or null (`failureClass` of @turngate/node); `agent_failed` is true when
 * the agent exited with a code other than 0; `outcome.message` is A3S's gate message verbatim;
 * `binding` is `bindingJson`'s form (with `hint`, `check_outputs`, `rewrites` when
 * present, issue 10);
 * `unmatched_waivers` lists the `--waive` digests that are not the effect digest of a turn
 * the gate did not allow (else `[]`);
 * `agent` is `{command, exit_code, signal, detached, grace_ms, subreaper, survivors}` —
 * `subreaper` `"active"` or `"unavailable (reason)"`, `survivors` `[{pid, command_line,
 * found_by: process_group|session|environment_marker|subreaper, outcome: exited|killed|unkillable}]`.
 * `turn_chain` (`turngate run` only, else null; docs/cli.md "Gapless turns") is `{previous:
 * {verdict, reason, ended_at} | null, fresh, changed_between_turns: [path],
 * changed_between_turns_note, unverified_paths: [path], config_kept: {path, written_in} | null,
 * config_adopted_by: digest | null}` — `config_kept` when the configuration file on disk was
 * written by the agent in a turn the host has not accepted (`written_in`, its effect digest),
 * so the turn ran with the earlier configuration; `config_adopted_by` when the host's
 * `--waive` named that turn, so the file was adopted (docs/cli.md "Configuration the agent
 * wrote"); `chain_error` says why the chain was not written (else null).
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
          detached: result.agent.exit.detached,
          grace_ms: result.agent.graceMs,
          subreaper: subreaperText(result.agent.subreaper),
          survivors: result.agent.survivors.map((survivor) => ({
            pid: survivor.pid,
            command_line: survivor.command_line,
            found_by: survivor.found_by,
            outcome: survivor.outcome,
          })),
        }
      : null,
    agent_failed: result.agent !== undefined && result.agent.exit.exitCode !== 0,
    fail_on_agent_error: result.failOnAgentError,
    changes: result.delta.changes,
    outside_scope: outsideScopeJson(result.delta.changes),
    observation_complete: result.delta.complete,
    unreadable: result.delta.unreadable,
    checks_source: result.checksSource ?? null,
    checks: (result.verification?.runs ?? []).map((run) => ({
      id: run.command.id,
      command: run.command.command,
      cwd: run.command.cwd ?? null,
      status: run.check.status,
      exit_code: run.execution.exitCode,
      timed_out: run.execution.timedOut,
      duration_ms: run.execution.durationMs,
      timeout_ms: run.execution.timeoutMs,
      failure_class: failureClassOf(run),
      log_path: run.execution.log?.path ?? null,
      residual_risk: run.check.residual_risk ?? null,
      hint: hintOf(run, result.shell),
      ...(result.cache ? { cached: run.cached ?? "none" } : {}),
      ...(run.check.tests
        ? { tests: run.check.tests, failing_tests: run.check.failing_tests ?? [] }
        : {}),
      failure_digest:
        run.check.status === "passed"
          ? []
          : failureDigestOf(
              run,
              run.execution.log ? shownPath(result.root, run.execution.log.path) : null,
            ),
    })),
    binding: bindingJson(result.verification?.binding),
    reports: result.reports,
    summary: result.summary,
    summary_text: result.summaryText,
    outcome: result.outcome,
    proof_path: result.proofPath ?? null,
    proof_error: result.proofError ?? null,
    chain_error: result.chainError ?? null,
    proof_format: result.proofSignature?.format ?? null,
    proof_keyid: result.proofSignature?.keyid ?? null,
    trust: result.trust,
    isolation: result.isolation,
    copied_outputs: result.verification?.outputs ?? null,
    config_path: result.configPath ?? null,
    affected_targets: affectedJson(result.affected),
    skipped_checks: result.skippedChecks ?? [],
    ...(result.cache
      ? {
          cache: {
            keys: result.cache.keys,
            uploaded: result.cache.uploaded,
            uploads: result.cache.uploads,
            warnings: result.cache.warnings,
          },
        }
      : {}),
    unmatched_waivers: unmatchedWaivers(result),
    shell: { path: result.shell.path, name: result.shell.name, pipefail: result.shell.pipefail },
    environment_changes: result.environmentChanges.map((change) => ({
      path: change.path,
      content_digest: change.contentDigest,
    })),
    turn_chain: result.chain
      ? {
          previous: result.chain.previous
            ? {
                verdict: result.chain.previous.verdict,
                reason: result.chain.previous.reason,
                ended_at: result.chain.previous.endedAt,
              }
            : null,
          fresh: result.chain.fresh,
          changed_between_turns: result.chain.betweenTurns,
          changed_between_turns_note:
            result.chain.betweenTurns.length > 0
              ? "changed between turns, by you or another process"
              : null,
          unverified_paths: result.chain.unverified,
          config_kept: result.chain.configKept
            ? { path: result.chain.configKept.path, written_in: result.chain.configKept.since }
            : null,
          config_adopted_by: result.chain.configAdoptedBy ?? null,
        }
      : null,
  };
}

/** Paths named in the `not bound` line; the rest are counted (all are in `--json`). */
export const UNBOUND_PATHS_SHOWN = 10;

/** Folders shown in the `check outputs:` line; the rest are counted. */
export const CHECK_OUTPUT_GROUPS_SHOWN = 5;

/**
 * One line for the check outputs (issue 10): the count, then the paths grouped by their top
 * folder (`.pytest_cache/ 5`; a file at the root by its name), the largest groups first (ties
 * by name), at most {@link CHECK_OUTPUT_GROUPS_SHOWN} groups. Counts come from the capped list,
 * so with more than the cap the line says how many are not grouped.
 */
export function checkOutputsLine(outputs: {
  count: number;
  paths: ReadonlyArray<{ path: string }>;
}): string {
  const groups = new Map<string, number>();
  for (const { path } of outputs.paths) {
    const slash = path.indexOf("/");
    const key = slash < 0 ? path : path.slice(0, slash + 1);
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  const sorted = [...groups].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  const shown = sorted
    .slice(0, CHECK_OUTPUT_GROUPS_SHOWN)
    .map(([k, n]) => `${displayPath(k)} ${n}`);
  if (sorted.length > CHECK_OUTPUT_GROUPS_SHOWN) {
    shown.push(`${sorted.length - CHECK_OUTPUT_GROUPS_SHOWN} more folders`);
  }
  const unlisted = outputs.count - outputs.paths.length;
  if (unlisted > 0) shown.push(`${unlisted} not listed`);
  const noun = outputs.count === 1 ? "path" : "paths";
  return `check outputs: ${outputs.count} ${noun} (ignored or output locations, not in the digest): ${shown.join(", ")}`;
}

/** `active`, or `unavailable (reason)`. */
function subreaperText(status: TurnAgent["subreaper"]): string {
  return status.active ? "active" : `unavailable (${status.reason})`;
}

/**
 * Lines about the processes the agent left running: a count with the grace, one line per
 * survivor (pid, outcome, how it was found, command line) and, for an unkillable one, what
 * the user should do; the subreaper's absence when it was unavailable. Nothing when the
 * agent left nothing and the subreaper was active.
 */
function survivorLines(agent: TurnAgent): string[] {
  const lines: string[] = [];
  const survivors = agent.survivors;
  if (survivors.length > 0) {
    const noun = survivors.length === 1 ? "process" : "processes";
    lines.push(
      `agent left ${survivors.length} ${noun} running after it exited (grace ${agent.graceMs} ms, then SIGKILL):`,
    );
    for (const survivor of survivors) {
      lines.push(
        `  pid ${survivor.pid} ${survivor.outcome} (${survivor.found_by}): ${escapeControls(survivor.command_line)}`,
      );
    }
    if (survivors.some((survivor) => survivor.outcome === "unkillable")) {
      lines.push(
        "  an unkillable process may still write to the workspace: stop it (kill -9 PID as its owner or as root), then run the turn again",
      );
    }
  }
  if (!agent.subreaper.active) lines.push(`subreaper: ${subreaperText(agent.subreaper)}`);
  return lines;
}

/**
 * What masks a check's exit status and how to fix it (written for the checks' shell), when
 * its risk is `exit status masked` or `exit status cannot be verified`.
 */
export function hintOf(
  run: { check: { residual_risk?: string }; command: { command: string } },
  shell: HintShell,
) {
  const risk = run.check.residual_risk;
  if (risk !== EXIT_STATUS_MASKED_RISK && risk !== EXIT_STATUS_UNVERIFIABLE_RISK) return null;
  return maskedExitExplanation(run.command.command, shell);
}

/** Waiver digests that did not match the effect digest of a turn that was not allowed. */
function unmatchedWaivers(result: TurnResult): string[] {
  if (result.outcome.kind === "allow") return [];
  const adopted = result.chain?.configAdoptedBy;
  return unmatchedWaiverDigests(result.waivers, result.effectDigest).filter((d) => d !== adopted);
}

/**
 * The per-check result-cache line of a turn (issue #20 item 3): `cached: <id> remote|local|none,
 * …` in run order, check ids escaped; null when the configuration has no `cache` block or no
 * check ran. Shared by `run`/`verify` text and the hook answers. Never throws.
 */
export function cachedChecksLine(result: TurnResult): string | null {
  const runs = result.verification?.runs ?? [];
  if (!result.cache || runs.length === 0) return null;
  const parts = runs.map((run) => `${escapeControls(run.command.id)} ${run.cached ?? "none"}`);
  return `cached: ${parts.join(", ")}`;
}
