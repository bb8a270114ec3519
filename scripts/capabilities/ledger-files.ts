/**
 * Reads docs/capabilities.md (areas and their claims) and CAPABILITY_VERIFICATION.md (tables)
 * into typed rows (issue 6 "Deliver" items 1–2, issue 35 item 1). Missing files, headings,
 * tables and columns become problems; a table with problems still yields its well-formed
 * rows, a table that cannot be used yields `undefined`.
 */
import fs from "node:fs";
import path from "node:path";
import { type ClaimArea, parseClaims } from "./claims.js";
import {
  CLAIMS_HEADING,
  COLUMNS,
  EVIDENCE_LEDGER_HEADING,
  EVIDENCE_LEVELS_HEADING,
  LEDGER_FILE,
  MAP_FILE,
  SURFACE_LEDGER_HEADING,
} from "./layout.js";
import { tableAfterHeading } from "./markdown-table.js";

/** A capability evidence ledger row (cells trimmed). */
export interface EvidenceRow {
  line: number;
  area: string;
  /** The Claims cell: `[<count>](docs/capabilities.md#<area anchor>)`. */
  claims: string;
  performance: string;
  state: string;
}

/** A runtime surface ledger row (cells trimmed). */
export interface SurfaceRow {
  line: number;
  surface: string;
  tests: string;
  gate: string;
}

/** Everything the check reads from the two Markdown files. */
export interface LedgerFiles {
  /** Problems found while reading the files' structure, prefixed with `<file>:` or `<file>:<line>:`. */
  problems: string[];
  /** Problems with the map's areas and claims (see {@link parseClaims}). */
  claimProblems: string[];
  /** Ledger file text ("" when unreadable), for the link check. */
  ledgerText: string;
  /** The map's areas with their claims; `undefined` when the file or heading is missing. */
  map: ClaimArea[] | undefined;
  /** Evidence levels from the legend's `Level` column, as written. */
  levels: string[] | undefined;
  evidence: EvidenceRow[] | undefined;
  surfaces: SurfaceRow[] | undefined;
}

/**
 * Reads one table's rows as objects keyed like `columns`.
 *
 * @returns the rows, or `undefined` when the file, heading, table or a column is missing
 */
function readTable<K extends string>(
  text: string | undefined,
  file: string,
  heading: string,
  columns: Record<K, string>,
  problems: string[],
): Array<{ line: number; cells: string[]; values: Record<K, string> }> | undefined {
  if (text === undefined) return undefined;
  const { table, problems: tableProblems } = tableAfterHeading(text, heading, file);
  problems.push(...tableProblems);
  if (table === undefined) return undefined;
  const index = {} as Record<K, number>;
  let complete = true;
  for (const key of Object.keys(columns) as K[]) {
    index[key] = table.header.indexOf(columns[key]);
    if (index[key] < 0) {
      problems.push(`${file}: "${heading}" table has no "${columns[key]}" column`);
      complete = false;
    }
  }
  if (!complete) return undefined;
  return table.rows.map((row) => {
    const values = {} as Record<K, string>;
    for (const key of Object.keys(columns) as K[]) values[key] = row.cells[index[key]] ?? "";
    return { line: row.line, cells: row.cells, values };
  });
}

function readText(root: string, file: string, problems: string[]): string | undefined {
  try {
    return fs.readFileSync(path.join(root, file), "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    problems.push(
      code === "ENOENT" ? `${file}: file not found` : `${file}: cannot be read (${code})`,
    );
    return undefined;
  }
}

/**
 * Reads the capability map's claims, the evidence levels, the evidence ledger and the surface
 * ledger.
 *
 * @param root repository root (absolute)
 */
export function readLedgerFiles(root: string): LedgerFiles {
  const problems: string[] = [];
  const mapText = readText(root, MAP_FILE, problems);
  const ledger = readText(root, LEDGER_FILE, problems);

  let map: ClaimArea[] | undefined;
  let claimProblems: string[] = [];
  if (mapText !== undefined) {
    const parsed = parseClaims(mapText, CLAIMS_HEADING, MAP_FILE);
    const missing = `${MAP_FILE}: missing heading "${CLAIMS_HEADING}"`;
    if (parsed.problems.includes(missing)) problems.push(missing);
    else map = parsed.areas;
    claimProblems = parsed.problems.filter((p) => p !== missing);
  }
  const levels = readTable(
    ledger,
    LEDGER_FILE,
    EVIDENCE_LEVELS_HEADING,
    { level: COLUMNS.level },
    problems,
  );
  const evidence = readTable(
    ledger,
    LEDGER_FILE,
    EVIDENCE_LEDGER_HEADING,
    {
      area: COLUMNS.area,
      claims: COLUMNS.claims,
      performance: COLUMNS.performance,
      state: COLUMNS.state,
    },
    problems,
  );
  const surfaces = readTable(
    ledger,
    LEDGER_FILE,
    SURFACE_LEDGER_HEADING,
    { surface: COLUMNS.surface, tests: COLUMNS.tests, gate: COLUMNS.gate },
    problems,
  );

  return {
    problems,
    claimProblems,
    ledgerText: ledger ?? "",
    map,
    levels: levels?.map((r) => r.values.level),
    evidence: evidence?.map((r) => ({ line: r.line, ...r.values })),
    surfaces: surfaces?.map((r) => ({ line: r.line, ...r.values })),
  };
}
