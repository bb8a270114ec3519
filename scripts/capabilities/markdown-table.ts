/**
 * Extracts the pipe table that follows a Markdown heading (reference/a3s-completion-gate.md
 * §7 "Table extraction", with three deliberate changes, all as GitHub renders tables: the
 * table must sit inside the heading's own section, `\|` is an escaped pipe inside a cell, and
 * a separator cell needs one dash, not three).
 */

/** One data row: its 1-based line number in the file and its trimmed cells. */
export interface TableRow {
  line: number;
  cells: string[];
}

/** A parsed table: header cells and the data rows that had the header's cell count. */
export interface MarkdownTable {
  header: string[];
  rows: TableRow[];
}

/** Result of {@link tableAfterHeading}: the table (absent when none was found) and problems. */
export interface TableParse {
  table: MarkdownTable | undefined;
  /** Problem texts, already prefixed with `<file>:` or `<file>:<line>:`. */
  problems: string[];
}

const SEPARATOR_CELL = /^:?-+:?$/;

/**
 * Splits one table line into trimmed cells. The line must start and end with `|` (after
 * trimming); `\|` inside a cell stands for a literal `|`.
 *
 * @param line one line of Markdown
 * @returns the cells, or `undefined` when the line is not a complete table row
 */
export function splitRow(line: string): string[] | undefined {
  const text = line.trim();
  if (text.length < 2 || !text.startsWith("|") || !text.endsWith("|") || text.endsWith("\\|")) {
    return undefined;
  }
  const cells: string[] = [];
  let cell = "";
  for (let i = 1; i < text.length - 1; i++) {
    const ch = text[i];
    if (ch === "\\" && text[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (ch === "|") {
      cells.push(cell.trim());
      cell = "";
    } else {
      cell += ch;
    }
  }
  cells.push(cell.trim());
  return cells;
}

/**
 * Finds the first line exactly equal to `heading` (trailing spaces ignored), then the first
 * run of lines starting with `|` before the next heading, and parses it as header, separator
 * and data rows. Malformed rows are reported and left out; the rest of the table is kept.
 *
 * Problems (all prefixed with `file`):
 * - `missing heading "<heading>"`
 * - `no table under "<heading>"`
 * - `<line>: invalid separator row under "<heading>"`
 * - `<line>: table row does not start and end with "|"`
 * - `<line>: table row has <n> cells; expected <m>`
 *
 * @param text whole file contents
 * @param heading heading line, e.g. `## Capability evidence ledger`
 * @param file file name used as the problem prefix, e.g. `docs/capabilities.md`
 */
export function tableAfterHeading(text: string, heading: string, file: string): TableParse {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trimEnd() === heading);
  if (start < 0) return { table: undefined, problems: [`${file}: missing heading "${heading}"`] };

  let first = -1;
  for (let i = start + 1; i < lines.length; i++) {
    const trimmed = (lines[i] ?? "").trim();
    if (trimmed.startsWith("#")) break;
    if (trimmed.startsWith("|")) {
      first = i;
      break;
    }
  }
  if (first < 0) return { table: undefined, problems: [`${file}: no table under "${heading}"`] };

  let end = first;
  while (end < lines.length && (lines[end] ?? "").trim().startsWith("|")) end++;

  const problems: string[] = [];
  const header = splitRow(lines[first] ?? "");
  if (header === undefined) {
    return {
      table: undefined,
      problems: [`${file}:${first + 1}: table row does not start and end with "|"`],
    };
  }
  const separator = first + 1 < end ? splitRow(lines[first + 1] ?? "") : undefined;
  if (
    separator === undefined ||
    separator.length !== header.length ||
    !separator.every((c) => SEPARATOR_CELL.test(c))
  ) {
    return {
      table: undefined,
      problems: [`${file}:${first + 2}: invalid separator row under "${heading}"`],
    };
  }

  const rows: TableRow[] = [];
  for (let i = first + 2; i < end; i++) {
    const cells = splitRow(lines[i] ?? "");
    if (cells === undefined) {
      problems.push(`${file}:${i + 1}: table row does not start and end with "|"`);
    } else if (cells.length !== header.length) {
      problems.push(
        `${file}:${i + 1}: table row has ${cells.length} cells; expected ${header.length}`,
      );
    } else {
      rows.push({ line: i + 1, cells });
    }
  }
  return { table: { header, rows }, problems };
}
