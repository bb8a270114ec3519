/**
 * The terminal view of a turn (`turngate show`, issue 21): the summary first, then the
 * checks, then the files with their diffs. Colour only when asked (`color: true`: a
 * terminal without `NO_COLOR`, see `useColor`). Every string from the workspace — paths,
 * check ids and commands, output, diff lines — goes through the terminal-text helpers, so
 * it cannot forge turngate's lines, move the cursor or change colours.
 */
import { join } from "node:path";
import type { TurnView, TurnViewCheck, TurnViewFile } from "@turngate/core";
import { formatSeconds } from "../duration.js";
import {
  displayPath,
  escapeControls,
  MAX_TAIL_LINE_CHARS,
  terminalSafeTailLine,
} from "../terminal-text.js";
import { ageText, checkLabel, plainReason, plainTargetReason } from "./plain-words.js";

/** SGR codes used by the view (only ever wrapped around turngate's own text). */
/** Copied outputs listed by path in the summary; the rest are counted. */
const OUTPUTS_SHOWN = 10;

const SGR = {
  bold: "1",
  dim: "2",
  red: "31",
  green: "32",
  yellow: "33",
  cyan: "36",
} as const;

type Paint = (code: keyof typeof SGR, text: string) => string;

/**
 * Whether the terminal view is coloured: only when the stream is a terminal, `NO_COLOR` is
 * unset or empty (no-color.org), and `TERM` is not `dumb`.
 */
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR ?? "") === "" && env.TERM !== "dumb";
}

const VERDICT_COLOUR: Record<TurnView["verdict"], keyof typeof SGR> = {
  verified: "green",
  waived: "yellow",
  narrative: "cyan",
  distinct: "cyan",
  incomplete: "red",
  continue: "red",
};

const STATUS_MARK: Record<TurnViewCheck["status"], [string, keyof typeof SGR]> = {
  passed: ["✓", "green"],
  failed: ["✗", "red"],
  needs_review: ["!", "yellow"],
  skipped: ["-", "dim"],
};

const CHANGE_MARK: Record<TurnViewFile["change"], string> = {
  added: "A",
  modified: "M",
  deleted: "D",
  ignored: "I",
  output: "O",
  harness: "H",
  environment: "E",
  changed: "?",
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One diff line made inert: controls escaped (`\x1b`), tabs kept, long lines capped. */
function safeDiffLine(line: string): string {
  const safe = escapeControls(line.replace(/\r$/, ""));
  const chars = Array.from(safe);
  if (chars.length <= MAX_TAIL_LINE_CHARS) return safe;
  return `${chars.slice(0, MAX_TAIL_LINE_CHARS).join("")}…(${chars.length - MAX_TAIL_LINE_CHARS} more characters)`;
}

/** The summary line's file counts: `3 files (1 added, 2 modified), +12 −3`. */
function filesSummary(view: TurnView): string {
  const f = view.counts.files;
  const total = view.files.length;
  if (total === 0) return "no files changed";
  const parts: string[] = [];
  if (f.added) parts.push(`${f.added} added`);
  if (f.modified) parts.push(`${f.modified} modified`);
  if (f.deleted) parts.push(`${f.deleted} deleted`);
  if (f.outside_scope) parts.push(`${f.outside_scope} outside the source scope`);
  if (f.environment) parts.push(`${f.environment} user-level`);
  const lines = view.diffs.available ? `, +${view.counts.additions} −${view.counts.deletions}` : "";
  return `${plural(total, "file")} (${parts.join(", ")})${lines}`;
}

/** The checks' counts: `2 passed, 1 failed`, or `no checks`. */
function checksSummary(view: TurnView): string {
  const c = view.counts.checks;
  const parts: string[] = [];
  if (c.failed) parts.push(`${c.failed} failed`);
  if (c.needs_review) parts.push(`${c.needs_review} need review`);
  if (c.skipped) parts.push(`${c.skipped} skipped`);
  if (c.passed) parts.push(`${c.passed} passed`);
  return parts.length === 0 ? "no checks" : `checks: ${parts.join(", ")}`;
}

/** What a diff row says in the file list after the path (`+3 −1`, `binary, 12 → 40 bytes`, …). */
function diffNote(file: TurnViewFile): string {
  const diff = file.diff;
  switch (diff.kind) {
    case "text":
      return `+${diff.additions} −${diff.deletions}${diff.truncated ? " (diff cut at the view's limit)" : ""}`;
    case "binary":
      return `binary, ${diff.old_bytes ?? 0} → ${diff.new_bytes ?? 0} bytes`;
    case "too_large":
      return `too large to show (${diff.old_bytes ?? "?"} → ${diff.new_bytes ?? "?"} bytes; limit ${diff.limit_bytes} bytes)`;
    case "unavailable":
      return `no diff: ${escapeControls(diff.reason)}`;
  }
}

/**
 * The terminal text of a view (issue 21):
 * 1. summary: the verdict (coloured by kind) with the effect digest; why the turn was not
 *    allowed in `run`'s words (`plainReason`; the gate's A3S text stays in `--json`); when
 *    it was decided and how long ago (`nowMs`, default now); counts of checks, files and
 *    diff lines; the trust claim; when diffs are not available, why;
 * 2. `checks`: one line per check (mark, status with failure class, id, command, duration),
 *    then for a check that did not pass its residual risk or hint, its failure digest (the
 *    lines `run` printed: failing tests with their failures, then the last lines) or, from
 *    a proof, its failing tests and the last lines of its output (escape sequences
 *    stripped), and its log's path and SHA-256;
 * 3. `files`: one line per path (`A`/`M`/`D`/`I`/`O`/`H`/`E`/`?`, path, what its diff is);
 * 4. the diffs, coloured (`+` green, `-` red, `@@` cyan, headers bold), every line's
 *    controls escaped so a file's bytes show literally (`\x1b[2J`), never act.
 * Copied outputs (clean room: each file's path, the first ten), waivers, attempts and
 * affected targets (reasons in words) follow the summary when present. A check turngate named itself (`check:1`) is shown by its command. The stored
 * HUD, a snapshot of its moment, is left to `--json` and `turngate hud`.
 *
 * Input: a view and whether to colour. Output: text ending in a newline.
 */
export function renderViewText(
  view: TurnView,
  options: { color: boolean; nowMs?: number },
): string {
  const paint: Paint = options.color
    ? (code, text) => `\x1b[${SGR[code]}m${text}\x1b[0m`
    : (_code, text) => text;
  const out: string[] = [];
  const head = view.verdict.toUpperCase();
  out.push(
    `${paint("bold", paint(VERDICT_COLOUR[view.verdict], head))}  effect digest ${view.effect_digest || '"" (nothing changed)'}`,
  );
  const why = plainReason(view);
  if (why !== null) out.push(`  ${escapeControls(why)}`);
  const age = ageText(view.finished_at, options.nowMs ?? Date.now());
  if (age !== null) out.push(`  decided ${age} (${escapeControls(view.finished_at ?? "")})`);
  out.push(`  ${checksSummary(view)} · ${filesSummary(view)}`);
  if (view.trust !== null) out.push(`  trust: ${view.trust}`);
  if (!view.diffs.available && view.files.length > 0) {
    out.push(`  diffs: not available (${escapeControls(view.diffs.reason ?? "unknown")})`);
  } else if (view.diffs.baseline_tree !== null && view.files.length > 0) {
    out.push(
      `  baseline tree ${view.diffs.baseline_tree} (git diff ${view.diffs.baseline_tree} ${view.diffs.final_tree ?? ""})`.trimEnd(),
    );
  }
  for (const waiver of view.waivers) {
    out.push(`  waiver: ${waiver.effect_digest}: ${escapeControls(waiver.reason)}`);
  }
  if (view.outputs !== null && view.outputs.paths.length > 0) {
    const n = view.outputs.paths.length;
    out.push(
      `  outputs: ${plural(n, "file")} the checks wrote, copied out of the clean room to ${displayPath(view.outputs.dir)}`,
    );
    for (const path of view.outputs.paths.slice(0, OUTPUTS_SHOWN)) {
      out.push(`    ${displayPath(join(view.outputs.dir, path))}`);
    }
    if (n > OUTPUTS_SHOWN)
      out.push(`    … ${n - OUTPUTS_SHOWN} more in ${displayPath(view.outputs.dir)}`);
  }
  if (view.attempts !== null) out.push(`  attempts: ${view.attempts}`);
  if (view.affected_targets !== null) {
    const targets = view.affected_targets.map((t) =>
      escapeControls(t.reason ? `${t.target} (${plainTargetReason(t.reason)})` : t.target),
    );
    out.push(`  affected targets: ${targets.length === 0 ? "none" : targets.join(", ")}`);
  }

  if (view.checks.length > 0) {
    out.push("", paint("bold", "checks"));
    for (const check of view.checks) {
      const [mark, colour] = STATUS_MARK[check.status];
      const status = check.failure_class
        ? `${check.status} (${check.failure_class})`
        : check.status;
      const took = check.duration_ms !== null ? ` in ${formatSeconds(check.duration_ms)}` : "";
      const label = checkLabel(check);
      const command =
        check.command !== null && check.command !== label
          ? `: ${escapeControls(check.command)}`
          : "";
      out.push(
        `  ${paint(colour, `${mark} ${status}`)} ${escapeControls(label)}${command}${took}${check.required ? "" : " (optional)"}`,
      );
      if (check.status === "passed") continue;
      const why = check.hint ?? check.residual_risk;
      if (why !== null) out.push(`      ${escapeControls(why)}`);
      if (check.failure_digest.length > 0) {
        // The lines `run` printed under this check (already terminal-safe).
        for (const line of check.failure_digest) out.push(`      ${line}`);
      } else if (check.failing_tests.length > 0) {
        out.push(`      failing tests: ${check.failing_tests.map(escapeControls).join(", ")}`);
      }
      if (check.failure_digest.length === 0 && check.output_tail.length > 0) {
        out.push(
          `      last ${plural(check.output_tail.length, "line")} of ${check.output_lines}:`,
        );
        for (const line of check.output_tail) out.push(`      | ${terminalSafeTailLine(line)}`);
      }
      if (check.log !== null && (check.log.path !== null || check.log.uri !== null)) {
        const where =
          check.log.path !== null
            ? displayPath(check.log.path)
            : escapeControls(check.log.uri ?? "");
        out.push(`      log: ${where}${check.log.sha256 ? ` (sha256 ${check.log.sha256})` : ""}`);
      }
    }
  }

  if (view.files.length > 0) {
    out.push("", paint("bold", "files"));
    for (const file of view.files) {
      out.push(
        `  ${CHANGE_MARK[file.change]} ${displayPath(file.path)}  ${paint("dim", diffNote(file))}`,
      );
    }
    for (const file of view.files) {
      if (file.diff.kind !== "text" || file.diff.unified === "") continue;
      out.push("");
      for (const raw of file.diff.unified.replace(/\n$/, "").split("\n")) {
        const line = safeDiffLine(raw);
        if (
          /^(?:diff --git|index |--- |\+\+\+ |new file|deleted file|old mode|new mode)/.test(raw)
        ) {
          out.push(paint("bold", line));
        } else if (raw.startsWith("@@")) out.push(paint("cyan", line));
        else if (raw.startsWith("+")) out.push(paint("green", line));
        else if (raw.startsWith("-")) out.push(paint("red", line));
        else out.push(line);
      }
      if (file.diff.truncated) {
        out.push(paint("dim", `… diff of ${displayPath(file.path)} cut at the view's limit`));
      }
    }
  }
  return `${out.join("\n")}\n`;
}
