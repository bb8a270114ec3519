/**
 * A claim's code lines (CAPABILITY_VERIFICATION.md "Claims", issue 35 item 2): the lines of a
 * source file that implement the claim's sentence, written under the claim as
 * `- code: \`<path>:<start>-<end>\`` (repository-relative path, 1-based lines, both ends
 * included). The bite check (`./bite.ts`) counts the mutants Stryker made on these lines; the
 * structure check requires the file to exist and the range to lie inside it.
 */
import fs from "node:fs";
import path from "node:path";

/** One `code:` item of a claim. */
export interface CodeRange {
  /** Repository-relative POSIX path, e.g. `packages/core/src/gate/decide.ts`. */
  file: string;
  /** First line, 1-based. */
  start: number;
  /** Last line, 1-based, inclusive (≥ start). */
  end: number;
  /** 1-based line of the item in the map file. */
  line: number;
  /** The range as written, without backticks: `<path>:<start>-<end>`. */
  text: string;
}

const RANGE = /^`([^`\s:]+):(\d+)-(\d+)`$/;

/**
 * Parses the text after `code:` of a claim item.
 *
 * @param item e.g. "`packages/core/src/gate/decide.ts:40-72`"
 * @param line the item's 1-based line in the map file
 * @returns the range, or a problem text: `code: "<item>" is not \`<path>:<start>-<end>\`
 *   (1-based lines, start ≤ end)` — also for start 0, end before start, an absolute path or one
 *   with `..` segments
 */
export function parseCodeRange(item: string, line: number): CodeRange | string {
  const m = RANGE.exec(item);
  const start = Number(m?.[2]);
  const end = Number(m?.[3]);
  const file = m?.[1] ?? "";
  if (
    m === null ||
    start < 1 ||
    end < start ||
    file.startsWith("/") ||
    file.split("/").includes("..")
  ) {
    return `code: "${item}" is not \`<path>:<start>-<end>\` (repository-relative path, 1-based lines, start ≤ end)`;
  }
  return { file, start, end, line, text: `${file}:${start}-${end}` };
}

/**
 * Problem with a range against the files of a repository: the file is missing, or the range
 * ends past its last line.
 *
 * @param root repository root
 * @param range a parsed range
 * @param lineCount cache of line counts by path, filled as files are read
 * @returns `code <path>:<s>-<e>: no such file` or `code <path>:<s>-<e>: ends past line <n>,
 *   the file's last`, or undefined
 */
export function codeRangeProblem(
  root: string,
  range: CodeRange,
  lineCount: Map<string, number | null> = new Map(),
): string | undefined {
  let count = lineCount.get(range.file);
  if (count === undefined) {
    try {
      count = fs.readFileSync(path.join(root, range.file), "utf8").split(/\r?\n/).length;
    } catch {
      count = null;
    }
    lineCount.set(range.file, count);
  }
  if (count === null) return `code ${range.text}: no such file`;
  if (range.end > count) return `code ${range.text}: ends past line ${count}, the file's last`;
  return undefined;
}
