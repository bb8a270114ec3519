/**
 * Opens a run's results directory and answers "did this referenced test pass?" for any
 * runner (issue 6 "Deliver" item 3). Each results file is read and parsed at most once, and
 * only when a reference of its runner is looked up.
 */
import fs from "node:fs";
import path from "node:path";
import { RESULT_FILES } from "../layout.js";
import type { TestReference } from "../test-references.js";
import { parseGoResults } from "./go.js";
import { parseMatrixResults } from "./matrix.js";
import { type Outcome, ResultsFormatError } from "./outcome.js";
import { parsePytestResults } from "./pytest.js";
import { parseVitestResults } from "./vitest.js";

/** Lookup over one results directory. */
export interface ResultLookup {
  /** The outcome of one reference in this run. */
  outcome(ref: TestReference): Outcome;
  /** Problems with results files that exist but could not be parsed (`<file>: <reason>`). */
  fileProblems(): string[];
}

/** A results file that could not be used: the reason shown after "absent". */
interface Unusable {
  absent: string;
}

/**
 * Opens the results directory.
 *
 * @param root repository root (absolute); vitest file paths and shown file names are relative to it
 * @param resultsDir absolute directory holding vitest.json, pytest.xml, go.json, matrix.json
 */
export function openResults(root: string, resultsDir: string): ResultLookup {
  const problems: string[] = [];

  /** Reads and parses one results file on first use, then remembers the result. */
  function lazy<T>(
    file: string,
    parse: (text: string, shownFile: string) => T,
  ): () => T | Unusable {
    let cached: T | Unusable | undefined;
    return () => {
      if (cached !== undefined) return cached;
      const full = path.join(resultsDir, file);
      const rel = path.relative(root, full);
      const name =
        rel.startsWith("..") || path.isAbsolute(rel) ? full : rel.split(path.sep).join("/");
      let text: string | undefined;
      try {
        text = fs.readFileSync(full, "utf8");
      } catch {
        cached = { absent: `(no ${name} — did the runner run?)` };
        return cached;
      }
      try {
        cached = parse(text, name);
      } catch (err) {
        if (!(err instanceof ResultsFormatError)) throw err;
        problems.push(err.message);
        cached = { absent: `(${name} could not be read)` };
      }
      return cached;
    };
  }

  const vitest = lazy(RESULT_FILES.vitest, (text, name) => parseVitestResults(text, root, name));
  const pytest = lazy(RESULT_FILES.pytest, parsePytestResults);
  const go = lazy(RESULT_FILES.go, parseGoResults);
  const matrix = lazy(RESULT_FILES.matrix, parseMatrixResults);
  const ask = <T>(index: T | Unusable, look: (index: T) => Outcome): Outcome =>
    typeof index === "object" && index !== null && "absent" in index
      ? { status: "absent", detail: index.absent }
      : look(index as T);

  return {
    outcome(ref) {
      switch (ref.runner) {
        case "vitest":
          return ask(vitest(), (r) => r.outcome(ref));
        case "pytest":
          return ask(pytest(), (r) => r.outcome(ref));
        case "go":
          return ask(go(), (r) => r.outcome(ref));
        case "matrix":
          return ask(matrix(), (r) => r.outcome(ref));
      }
    },
    fileProblems: () => [...problems],
  };
}
