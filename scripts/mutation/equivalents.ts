/**
 * The list of equivalent mutants (issue #11 §5): surviving mutants that no input can tell
 * from the original, each named with the reason in a markdown table under
 * `stryker/equivalent/` (format: `stryker/equivalent/README.md`). `scripts/mutation-groups.ts`
 * reads the list so that a listed survivor does not count against its group, an unlisted one
 * is printed, and an entry that matches no surviving mutant is printed as stale.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** One row of an equivalents table. */
export interface EquivalentEntry {
  /** Repository-relative source path (`/` separators), from the `## <path>` heading. */
  file: string;
  /** 1-based line and column of the mutant's start (Stryker's `location.start`). */
  line: number;
  column: number;
  /** Stryker's mutator name, e.g. `"ConditionalExpression"`. */
  mutator: string;
  /**
   * The replacement as written after `→` (pipes unescaped, whitespace collapsed, a trailing
   * `…` removed), or null when the row gives none (it then matches every replacement).
   */
  replacement: string | null;
  /** True when the written replacement ended in `…`: it matches by prefix. */
  prefix: boolean;
  /** Where the row is, `<markdown file>:<line>`, for messages. */
  where: string;
}

/** The part of a Stryker mutant this module reads. */
export interface ListableMutant {
  mutatorName?: string;
  replacement?: string;
  location?: { start: { line: number; column: number } };
}

const FIRST_CELL = /^(\d+):(\d+)\s+([A-Za-z]+)\b(.*)$/;

/** Collapses runs of whitespace to one space and trims. */
function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The cells of a markdown table row, split at pipes not escaped as `\|`. */
function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  return inner.split(/(?<!\\)\|/).map((c) => c.trim());
}

/**
 * Parses one equivalents markdown file.
 * @param markdown the file's text.
 * @param where the file's name, used in `EquivalentEntry.where` and in errors.
 * @returns the rows of every table, in order, each with the path of the `## ` heading above it.
 * @throws Error naming `<where>:<line>` for a table row under no `## <path>` heading, or a
 *   row whose first cell is not `line:column Mutator …` (header and `---` rows excepted).
 */
export function parseEquivalents(markdown: string, where: string): EquivalentEntry[] {
  const entries: EquivalentEntry[] = [];
  let file: string | null = null;
  const lines = markdown.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? "";
    const at = `${where}:${i + 1}`;
    if (text.startsWith("## ")) {
      file = text.slice(3).trim().split(/\s+/)[0]?.replaceAll("`", "") ?? null;
      continue;
    }
    if (text.startsWith("# ")) {
      file = null;
      continue;
    }
    if (!text.trimStart().startsWith("|")) continue;
    const first = cells(text)[0] ?? "";
    if (/^-+$/.test(first.replaceAll(":", "")) || first.toLowerCase() === "mutant") continue;
    const m = FIRST_CELL.exec(first);
    if (m === null) {
      throw new Error(`${at}: expected "line:column Mutator" in the first cell, got "${first}"`);
    }
    if (file === null) throw new Error(`${at}: a table row under no "## <source path>" heading`);
    const rest = m[4] ?? "";
    let replacement: string | null = null;
    let prefix = false;
    const arrow = rest.lastIndexOf("→");
    if (arrow !== -1) {
      const after = rest.slice(arrow + 1).trim();
      const span = /^`([^`]*)`/.exec(after);
      if (span === null) {
        throw new Error(`${at}: expected the replacement in backticks after "→", got "${after}"`);
      }
      replacement = collapse((span[1] ?? "").replaceAll("\\|", "|"));
      if (replacement.endsWith("…")) {
        prefix = true;
        replacement = replacement.slice(0, -1).trimEnd();
      }
    }
    entries.push({
      file,
      line: Number(m[1]),
      column: Number(m[2]),
      mutator: m[3] ?? "",
      replacement,
      prefix,
      where: at,
    });
  }
  return entries;
}

/**
 * Reads every `*.md` file of `dir` (README.md included; a file without tables adds nothing).
 * @param dir the folder, e.g. `<repo>/stryker/equivalent`.
 * @param label how files are named in `where` (default: `path.basename(dir)/<file>`).
 * @returns all entries, files in name order; [] when `dir` does not exist.
 * @throws Error from `parseEquivalents` for a malformed row.
 */
export function readEquivalents(dir: string, label = path.basename(dir)): EquivalentEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".md"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return names
    .sort()
    .flatMap((n) => parseEquivalents(readFileSync(path.join(dir, n), "utf8"), `${label}/${n}`));
}

/**
 * Whether `entry` names `mutant` of source file `file`.
 * @param file the report's file key (backslashes allowed).
 * @returns true when file, start position and mutator are equal and the replacement matches
 *   (equal after collapsing whitespace, or a prefix when the entry ends in `…`, or any when
 *   the entry gives none).
 */
export function entryMatches(
  entry: EquivalentEntry,
  file: string,
  mutant: ListableMutant,
): boolean {
  const start = mutant.location?.start;
  if (start === undefined) return false;
  if (file.replaceAll("\\", "/") !== entry.file) return false;
  if (start.line !== entry.line || start.column !== entry.column) return false;
  if (mutant.mutatorName !== entry.mutator) return false;
  if (entry.replacement === null) return true;
  const replacement = collapse(mutant.replacement ?? "");
  return entry.prefix
    ? replacement.startsWith(entry.replacement)
    : replacement === entry.replacement;
}
