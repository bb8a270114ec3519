/**
 * The view model of a turn (`turngate.turn_view.v1`, issue 21): what a person reviewing an
 * agent's turn reads first — verdict and digest, the checks with their output, the files
 * with their diffs — built from the turn's facts (a `turn_proof.v1`, or the same fields of a
 * turn that has no proof) and what the host adds (how the checks ran, the observer's change
 * kinds, diffs against the baseline tree). Pure: no I/O; the diffs come from the host
 * (`turnDiffs` of @turngate/node).
 */
import { DELETED_CONTENT_DIGEST } from "../ledger/content-digest.js";
import { parseWith } from "../schemas/parse.js";
import {
  TURN_VIEW_SCHEMA,
  type TurnView,
  type TurnViewCheck,
  type TurnViewDiff,
  type TurnViewFile,
  type TurnViewInput,
  TurnViewInputSchema,
} from "../schemas/turn-view.js";
import { utf8ByteLength } from "../schemas/utf8.js";

/**
 * The documented limits of a view (issue 21 "Large or binary files are summarised, not
 * dumped"). Sizes in bytes (UTF-8 for text), counts in lines or files:
 * - `blobBytes` 1 MiB: a file larger than this on either side is `too_large` (node's
 *   `turnDiffs` does not read it);
 * - `fileDiffBytes` 128 KiB and `fileDiffLines` 1,000: a unified diff is cut at the first
 *   limit it reaches and marked `truncated` (the counts stay exact);
 * - `totalDiffBytes` 2 MiB: once the diffs of a view reach this, later text diffs are
 *   `too_large` with `limit_bytes` = this budget;
 * - `diffFiles` 300: paths past the 300th get no diff (`unavailable`);
 * - `outputTailLines` 40: the lines of a check's output the view keeps.
 */
export const TURN_VIEW_LIMITS = Object.freeze({
  blobBytes: 1024 * 1024,
  fileDiffBytes: 128 * 1024,
  fileDiffLines: 1000,
  totalDiffBytes: 2 * 1024 * 1024,
  diffFiles: 300,
  outputTailLines: 40,
});

/**
 * `unified` cut to the per-file limits of {@link TURN_VIEW_LIMITS} (`fileDiffLines`, then
 * `fileDiffBytes`, on a line boundary). Output: the kept text and whether it was cut. Pure.
 */
export function truncateUnifiedDiff(unified: string): { text: string; truncated: boolean } {
  let lines = unified.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines = lines.slice(0, -1);
  let truncated = false;
  if (lines.length > TURN_VIEW_LIMITS.fileDiffLines) {
    lines = lines.slice(0, TURN_VIEW_LIMITS.fileDiffLines);
    truncated = true;
  }
  let bytes = 0;
  const kept: string[] = [];
  for (const line of lines) {
    const size = utf8ByteLength(line) + 1;
    if (bytes + size > TURN_VIEW_LIMITS.fileDiffBytes) {
      truncated = true;
      break;
    }
    bytes += size;
    kept.push(line);
  }
  return { text: kept.length > 0 ? `${kept.join("\n")}\n` : "", truncated };
}

/** The last `count` lines of `text` (trailing newlines dropped) and how many lines it has. */
function tailLines(text: string, count: number): { tail: string[]; lines: number } {
  const trimmed = text.replace(/\n+$/, "");
  if (trimmed === "") return { tail: [], lines: 0 };
  const all = trimmed.split("\n");
  return { tail: all.slice(-count), lines: all.length };
}

/** The local path of a `file:` URL (percent-decoded), or null for another scheme. */
function fileUrlPath(uri: string): string | null {
  if (!uri.startsWith("file://")) return null;
  try {
    return decodeURIComponent(uri.slice("file://".length).replace(/^localhost\//, "/"));
  } catch {
    return null;
  }
}

/** Scope of a ledger path that no diff and no observer change names (a proof alone). */
function outsideScopeOf(path: string): "harness" | "ignored" {
  return path === ".git" || path.startsWith(".git/") || path.startsWith(".turngate/")
    ? "harness"
    : "ignored";
}

/**
 * A file's diff as a view keeps it: a text diff cut to the per-file limits
 * (`truncateUnifiedDiff`), or `too_large` with `limit_bytes` = `totalDiffBytes` when the cut
 * text (UTF-8 bytes) is larger than `budget`, the bytes of the view's diff budget still
 * left. Any other diff as it is. Output: the diff and the budget it used (bytes). Pure.
 */
export function fitDiff(diff: TurnViewDiff, budget: number): { diff: TurnViewDiff; bytes: number } {
  if (diff.kind !== "text") return { diff, bytes: 0 };
  const cut = truncateUnifiedDiff(diff.unified);
  const size = utf8ByteLength(cut.text);
  if (size > budget) {
    return {
      diff: {
        kind: "too_large",
        old_bytes: null,
        new_bytes: null,
        limit_bytes: TURN_VIEW_LIMITS.totalDiffBytes,
      },
      bytes: 0,
    };
  }
  return {
    diff: { ...diff, unified: cut.text, truncated: diff.truncated || cut.truncated },
    bytes: size,
  };
}

/**
 * Build the view model of a turn (issue 21).
 *
 * Input ({@link TurnViewInput}, validated): `turn` — a `turn_proof.v1` or the same fields
 * (`effect_digest`, `records`, `reports`, `waivers_used`, `outcome`, optional `workspace`,
 * `evidence_logs`, `trust`, `started_at`, `finished_at`); optional `runs` (how each check
 * ran: command, duration in ms, exit code, failure class, output, log path and SHA-256),
 * `changes` (the observer's `{path, change, scope}`), `diffs` (`{path, change?, diff}` from
 * the baseline tree) or `diffs_unavailable` (why there are none), `source`, `attempts`,
 * `affected_targets`, `hud`, `outputs` (the clean room's copied outputs, `{dir, paths}`).
 *
 * Output: `turngate.turn_view.v1` ({@link TurnView}):
 * - `verdict`: the terminal kind when the gate allowed the turn, else the outcome kind;
 *   `reason` and `message` are the gate's when it did not (else null);
 * - `checks`: every check of every report, in report order, joined by id with its run:
 *   `failure_class`, `duration_ms`, `exit_code` from the run (null without one), the last
 *   40 output lines, the run's `failure_digest` when it did not pass (else []), and the log
 *   (`path` and `sha256` from the run, else the check's first `evidence_uris` entry with the
 *   SHA-256 the proof's `evidence_logs` records);
 * - `files`: one row per ledger path (the first row of a path in canonical order):
 *   `environment` rows are `environment`; with `changes`, a source path takes the
 *   observer's `added`/`modified`/`deleted`, any other its scope (`ignored`, `output`,
 *   `harness`); without them, a diff's change kind, else `deleted` for the deleted marker,
 *   else `changed` in the scope `harness` (`.git/`, `.turngate/`) or `ignored`. Each row has
 *   its diff, else `unavailable` with the reason (outside the source scope, or
 *   `diffs_unavailable`). Text diffs are cut to {@link TURN_VIEW_LIMITS};
 * - `counts`: checks by status, files by kind, added and deleted diff lines.
 *
 * Errors: `TurngateValidationError` naming the first bad field (e.g. `turn.outcome.kind`).
 */
export function buildTurnView(input: TurnViewInput): TurnView {
  const parsed = parseWith(TurnViewInputSchema, input, "turn view input");
  const turn = parsed.turn;
  const outcome = turn.outcome;
  const verdict = outcome.kind === "allow" ? outcome.terminal.kind : outcome.kind;

  const runs = new Map((parsed.runs ?? []).map((run) => [run.id, run]));
  const logDigests = new Map((turn.evidence_logs ?? []).map((log) => [log.uri, log.sha256]));
  const checks: TurnViewCheck[] = [];
  const counts = {
    checks: { passed: 0, failed: 0, needs_review: 0, skipped: 0 },
    files: { added: 0, modified: 0, deleted: 0, outside_scope: 0, environment: 0 },
    additions: 0,
    deletions: 0,
  };
  for (const report of turn.reports) {
    for (const check of report.checks) {
      const run = runs.get(check.id);
      const { tail, lines } = tailLines(run?.output ?? "", TURN_VIEW_LIMITS.outputTailLines);
      const uri = check.evidence_uris?.[0] ?? null;
      let log: TurnViewCheck["log"] = null;
      if (run?.log_path != null) {
        log = {
          path: run.log_path,
          uri,
          sha256: run.log_sha256 ?? logDigests.get(uri ?? "") ?? null,
        };
      } else if (uri !== null) {
        log = { path: fileUrlPath(uri), uri, sha256: logDigests.get(uri) ?? null };
      }
      checks.push({
        id: check.id,
        kind: check.kind,
        description: check.description,
        command: run?.command ?? null,
        status: check.status,
        required: check.required,
        failure_class: run?.failure_class ?? null,
        duration_ms: run?.duration_ms ?? null,
        exit_code: run?.exit_code ?? null,
        residual_risk: check.residual_risk ?? null,
        hint: run?.hint ?? null,
        tests: check.tests ?? null,
        failing_tests: check.failing_tests ?? [],
        failure_digest: check.status === "passed" ? [] : (run?.failure_digest ?? []),
        output_tail: tail,
        output_lines: lines,
        log,
      });
      counts.checks[check.status] += 1;
    }
  }

  const changes = parsed.changes ? new Map(parsed.changes.map((c) => [c.path, c])) : undefined;
  const diffs = new Map((parsed.diffs ?? []).map((d) => [d.path, d]));
  const files: TurnViewFile[] = [];
  const seen = new Set<string>();
  let budget = TURN_VIEW_LIMITS.totalDiffBytes;
  for (const record of turn.records) {
    if (seen.has(record.path)) continue;
    seen.add(record.path);
    let change: TurnViewFile["change"];
    let scope: TurnViewFile["scope"];
    const given = diffs.get(record.path);
    if (record.tool === "environment") {
      change = "environment";
      scope = "environment";
    } else if (changes) {
      const observed = changes.get(record.path);
      if (observed === undefined) {
        scope = outsideScopeOf(record.path);
        change =
          given?.change ??
          (record.content_digest === DELETED_CONTENT_DIGEST ? "deleted" : "changed");
        if (given?.change !== undefined) scope = "source";
      } else if (observed.scope === "source") {
        change = observed.change;
        scope = "source";
      } else {
        change = observed.scope;
        scope = observed.scope;
      }
    } else if (given?.change !== undefined) {
      change = given.change;
      scope = "source";
    } else {
      scope = outsideScopeOf(record.path);
      change = record.content_digest === DELETED_CONTENT_DIGEST ? "deleted" : "changed";
    }
    let diff: TurnViewDiff;
    if (given !== undefined) diff = given.diff;
    else if (scope !== "source") {
      diff = {
        kind: "unavailable",
        reason:
          scope === "environment"
            ? "a user-level file outside the workspace: not in the workspace's git trees"
            : "outside the source scope (ignored, an output location or a harness file): not in git's trees",
      };
    } else {
      diff = {
        kind: "unavailable",
        reason: parsed.diffs_unavailable ?? "no diff was computed for this path",
      };
    }
    const fitted = fitDiff(diff, budget);
    diff = fitted.diff;
    budget -= fitted.bytes;
    if (diff.kind === "text") {
      counts.additions += diff.additions;
      counts.deletions += diff.deletions;
    }
    if (change === "added" || change === "modified" || change === "deleted")
      counts.files[change] += 1;
    else if (change === "environment") counts.files.environment += 1;
    else counts.files.outside_scope += 1;
    files.push({
      path: record.path,
      change,
      scope,
      tool: record.tool,
      content_digest: record.content_digest,
      diff,
    });
  }

  const workspace = turn.workspace;
  const diffsAvailable = parsed.diffs !== undefined && !parsed.diffs_unavailable;
  return {
    schema: TURN_VIEW_SCHEMA,
    source: parsed.source,
    verdict,
    effect_digest: turn.effect_digest,
    reason: outcome.kind === "allow" ? null : outcome.reason,
    message: outcome.kind === "allow" ? null : outcome.message,
    root: workspace?.root ?? null,
    trust: turn.trust ?? null,
    started_at: turn.started_at ?? null,
    finished_at: turn.finished_at ?? null,
    counts,
    checks,
    files,
    diffs: {
      available: diffsAvailable,
      reason: diffsAvailable
        ? null
        : (parsed.diffs_unavailable ?? workspace?.tree_reason ?? "no diffs were computed"),
      baseline_tree: workspace?.baseline_tree ?? null,
      final_tree: workspace?.final_tree ?? null,
    },
    waivers: turn.waivers_used,
    attempts: parsed.attempts ?? null,
    affected_targets: parsed.affected_targets ?? null,
    hud: parsed.hud ?? null,
    outputs: parsed.outputs ?? null,
  };
}
