import { FAILURE_DIGEST_MAX_CHARS, failureDigest, type ParsedTestResults } from "@turngate/core";
import { terminalSafeTailLine } from "./terminal-text.js";

/** A check run as the failure digest reads it. */
export interface DigestRun {
  testResults?: ParsedTestResults;
  execution: { output: string; log?: { path: string } };
}

/**
 * The failure digest of one check that did not pass (issue 34 item 1), the same text on
 * every channel: `run`/`verify` print it under the check's line, the hook answers quote it
 * to the model, `--json` and `show` carry it as `failure_digest`. It is core's
 * `failureDigest` — the failing tests' names each with the first lines of its failure, from
 * the structured results or read from the output, then the output's last lines — with every
 * quoted line made terminal-safe (`terminalSafeTailLine`) and indented by two spaces.
 *
 * Input: the run, the log path as the reader sees it (relative to the workspace) or null,
 * the character budget (default `FAILURE_DIGEST_MAX_CHARS`, 10,000: what Claude Code shows
 * of a hook's text). Output: the lines (no trailing newline). Never throws.
 */
export function failureDigestLines(
  run: DigestRun,
  log: string | null,
  maxChars: number = FAILURE_DIGEST_MAX_CHARS,
): string[] {
  // The two-space indent counts against the budget too (at most ~200 lines).
  return failureDigestOf(run, log, Math.max(200, maxChars - 400)).map((line) => `  ${line}`);
}

/** `failureDigestLines` without the indent: the `failure_digest` of `--json` and the view. */
export function failureDigestOf(
  run: DigestRun,
  log: string | null,
  maxChars: number = FAILURE_DIGEST_MAX_CHARS,
): string[] {
  return failureDigest({
    results: run.testResults ?? null,
    output: run.execution.output,
    logPath: log,
    maxChars,
    safeLine: terminalSafeTailLine,
  }).lines;
}
