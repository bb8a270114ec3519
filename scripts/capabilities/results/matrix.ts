/**
 * Index of the test matrix's results (results/matrix.json, written by `test-matrix/run
 * --json`: `{passed, failed, runtimes: [{name, passed, failed, error?}], groups: {group:
 * {runtime: {passed, failed}}}, failures}`), so the ledger can cite the matrix itself and not
 * only the TypeScript tests around it (issue #11 §5). A `matrix:<group> > <runtime>` cell
 * passed when it ran at least one vector and failed none, and its runtime did not fail to
 * start.
 */
import type { MatrixReference } from "../test-references.js";
import { ResultsFormatError, type ResultsIndex } from "./outcome.js";

/** Looks up matrix cells in one parsed report. */
export type MatrixResults = ResultsIndex<MatrixReference>;

interface Counts {
  passed: number;
  failed: number;
}

const isCounts = (v: unknown): v is Counts =>
  typeof v === "object" &&
  v !== null &&
  typeof (v as Counts).passed === "number" &&
  typeof (v as Counts).failed === "number";

/**
 * Parses matrix.json.
 * @param text the file's contents
 * @param shownFile file name used in messages, e.g. `results/matrix.json`
 * @throws ResultsFormatError when it is not a matrix report (no `groups` of counts)
 */
export function parseMatrixResults(text: string, shownFile: string): MatrixResults {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ResultsFormatError(shownFile, "is not valid JSON");
  }
  const groups = (doc as { groups?: unknown })?.groups;
  const runtimes = (doc as { runtimes?: unknown })?.runtimes;
  if (typeof groups !== "object" || groups === null || !Array.isArray(runtimes)) {
    throw new ResultsFormatError(shownFile, "is not a test-matrix report (groups, runtimes)");
  }
  const broken = new Map<string, string>();
  for (const r of runtimes as Array<{ name?: unknown; error?: unknown }>) {
    if (typeof r?.name === "string" && typeof r.error === "string") broken.set(r.name, r.error);
  }
  return {
    outcome(ref) {
      const cells = (groups as Record<string, unknown>)[ref.group];
      const cell =
        typeof cells === "object" && cells !== null
          ? (cells as Record<string, unknown>)[ref.runtime]
          : undefined;
      if (!isCounts(cell))
        return {
          status: "absent",
          detail: `(no ${ref.group} × ${ref.runtime} cell in ${shownFile})`,
        };
      const error = broken.get(ref.runtime);
      if (error !== undefined)
        return { status: "failed", detail: `(runtime ${ref.runtime}: ${error})` };
      if (cell.failed > 0)
        return {
          status: "failed",
          detail: `(${cell.failed} of ${cell.passed + cell.failed} vectors failed)`,
        };
      if (cell.passed === 0) return { status: "skipped", detail: "(no vector ran)" };
      return { status: "passed" };
    },
  };
}
