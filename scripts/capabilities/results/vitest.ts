/**
 * Index of a vitest JSON report (`--reporter=json`): `testResults[].name` is the absolute
 * file path, `assertionResults[]` carry `ancestorTitles`, `title` and `status`
 * (`passed` | `failed` | `skipped` | `pending` | `todo`). Implements the vitest part of
 * issue 6 "Deliver" item 3.
 */
import path from "node:path";
import type { VitestReference } from "../test-references.js";
import {
  type Recorded,
  ResultsFormatError,
  type ResultsIndex,
  recordWorst,
  toOutcome,
} from "./outcome.js";

/** Looks up vitest references in one parsed report. */
export type VitestResults = ResultsIndex<VitestReference>;

/** The suffix @fast-check/vitest's `test.prop` adds to a title: ` (with seed=<int>)`. */
const FAST_CHECK_SEED = / \(with seed=-?\d+\)$/;

function statusOf(raw: unknown): Recorded {
  if (raw === "passed") return { status: "passed" };
  if (raw === "failed") return { status: "failed" };
  if (raw === "skipped") return { status: "skipped" };
  if (raw === "pending" || raw === "todo") return { status: "skipped", detail: `(${raw})` };
  return { status: "failed", detail: `(unknown status ${JSON.stringify(raw)})` };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

/**
 * Parses a vitest JSON report.
 *
 * @param text contents of the report
 * @param root repository root; test files are keyed by their POSIX path relative to it
 * @param shownFile report name used in messages, e.g. `results/vitest.json`
 * @throws ResultsFormatError when the text is not JSON or lacks `testResults[]` entries with
 *   a string `name` and an `assertionResults` array
 */
export function parseVitestResults(text: string, root: string, shownFile: string): VitestResults {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ResultsFormatError(shownFile, `not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(json) || !Array.isArray(json.testResults)) {
    throw new ResultsFormatError(shownFile, "has no testResults array");
  }
  const tests = new Map<string, Recorded>();
  const fileFailures = new Map<string, string>();
  for (const [i, fileResult] of json.testResults.entries()) {
    if (!isObject(fileResult) || typeof fileResult.name !== "string") {
      throw new ResultsFormatError(shownFile, `testResults[${i}].name is not a string`);
    }
    if (!Array.isArray(fileResult.assertionResults)) {
      throw new ResultsFormatError(shownFile, `testResults[${i}].assertionResults is not an array`);
    }
    const file = path.relative(root, fileResult.name).split(path.sep).join("/");
    if (
      fileResult.status === "failed" &&
      typeof fileResult.message === "string" &&
      fileResult.message
    ) {
      fileFailures.set(file, fileResult.message.split("\n")[0] ?? "");
    }
    for (const [j, a] of fileResult.assertionResults.entries()) {
      if (!isObject(a) || typeof a.title !== "string" || !Array.isArray(a.ancestorTitles)) {
        throw new ResultsFormatError(
          shownFile,
          `testResults[${i}].assertionResults[${j}] lacks title or ancestorTitles`,
        );
      }
      // @fast-check/vitest appends the run's random seed to a property test's title
      // ("… (with seed=-1571735567)"); the ledger cites the title without it.
      const title = a.title.replace(FAST_CHECK_SEED, "");
      const name = [...a.ancestorTitles.map(String), title].join(" > ");
      recordWorst(tests, `${file} > ${name}`, statusOf(a.status));
    }
  }
  return {
    outcome(ref) {
      const failure = fileFailures.get(ref.file);
      const absent =
        failure === undefined
          ? `from ${shownFile}`
          : `from ${shownFile} (its file failed: ${failure})`;
      return toOutcome(tests.get(`${ref.file} > ${ref.name}`), absent);
    },
  };
}
