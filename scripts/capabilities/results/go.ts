/**
 * Index of `go test -json` output: one JSON event per line with `Package`, optional `Test`
 * and `Action` (`run`, `pass`, `fail`, `skip`, `output`, …). A test's last `pass`/`fail`/
 * `skip` is its status; a test that started but never ended failed. Implements the Go part
 * of issue 6 "Deliver" item 3.
 */
import type { GoReference } from "../test-references.js";
import { type Recorded, ResultsFormatError, type ResultsIndex, toOutcome } from "./outcome.js";

/** Looks up Go references in one parsed event stream. */
export type GoResults = ResultsIndex<GoReference>;

const TERMINAL: Record<string, Recorded> = {
  pass: { status: "passed" },
  fail: { status: "failed" },
  skip: { status: "skipped" },
};
const UNFINISHED: Recorded = { status: "failed", detail: "(started but never finished)" };

/**
 * Parses `go test -json` output. Lines that do not start with `{` are ignored (the stream
 * may be interleaved with plain text when stderr is merged).
 *
 * @param text contents of the event stream
 * @param shownFile file name used in messages, e.g. `results/go.json`
 * @throws ResultsFormatError naming the 1-based line when a `{` line is not a JSON object
 *   with string `Package` and `Action`
 */
export function parseGoResults(text: string, shownFile: string): GoResults {
  const tests = new Map<string, Recorded>();
  const failedPackages = new Set<string>();
  for (const [i, line] of text.split("\n").entries()) {
    if (!line.startsWith("{")) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      throw new ResultsFormatError(shownFile, `line ${i + 1} is not valid JSON`);
    }
    const { Package: pkg, Test: test, Action: action } = (ev ?? {}) as Record<string, unknown>;
    if (typeof pkg !== "string" || typeof action !== "string") {
      throw new ResultsFormatError(shownFile, `line ${i + 1} lacks Package or Action`);
    }
    if (typeof test !== "string") {
      if (action === "fail") failedPackages.add(pkg);
      continue;
    }
    const key = `${pkg} ${test}`;
    const terminal = TERMINAL[action];
    if (terminal !== undefined) tests.set(key, terminal);
    else if (action === "run" && !tests.has(key)) tests.set(key, UNFINISHED);
  }
  return {
    outcome(ref) {
      const absent = failedPackages.has(ref.importPath)
        ? `from ${shownFile} (package ${ref.importPath} failed)`
        : `from ${shownFile}`;
      return toOutcome(tests.get(`${ref.importPath} ${ref.test}`), absent);
    },
  };
}
