import type { ParsedTestResults } from "@turngate/core";
import { terminalSafeTailLine } from "./terminal-text.js";

/** At most this many failing tests and suite errors are listed under a check. */
export const FAILING_TESTS_SHOWN = 20;

/**
 * The lines naming a check's failing tests (issue #16 §2), shown instead of the output's
 * last lines when the check's structured results name any: a header with the counts and
 * the log (`  failing tests (2 of 9; full log: .turngate/logs/….log):`), then one line per
 * failed or errored test (`  ✗ id: first line of its message`) and per suite error
 * (`  ! first line of the error`), at most `FAILING_TESTS_SHOWN`, then `  … N more`. Each
 * line is made terminal-safe and capped like a tail line. Null when the results name no
 * failure (the caller shows the tail).
 */
export function failingTestLines(
  results: ParsedTestResults | undefined,
  log: string | null,
): string[] | null {
  if (results === undefined) return null;
  const failing = results.tests.filter((t) => t.status === "failed" || t.status === "errored");
  if (failing.length === 0 && results.errors.length === 0) return null;
  const first = (text: string | null) =>
    (text ?? "")
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "";
  const entries = [
    ...failing.map((t) => {
      const m = first(t.message);
      return `✗ ${t.id}${t.status === "errored" ? " (errored)" : ""}${m === "" ? "" : `: ${m}`}`;
    }),
    ...results.errors.map((e) => `! ${e.suite ?? e.file ?? "suite"}: ${first(e.message)}`),
  ];
  const where = log === null ? "" : `; full log: ${log}`;
  const lines = [
    `  failing tests (${failing.length} of ${results.totals.tests}${results.errors.length > 0 ? `, ${results.errors.length} suite ${results.errors.length === 1 ? "error" : "errors"}` : ""}${where}):`,
  ];
  for (const entry of entries.slice(0, FAILING_TESTS_SHOWN))
    lines.push(`  ${terminalSafeTailLine(entry)}`);
  if (entries.length > FAILING_TESTS_SHOWN)
    lines.push(`  … ${entries.length - FAILING_TESTS_SHOWN} more`);
  return lines;
}
