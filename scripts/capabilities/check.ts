/**
 * The capability ledger check (issue 6 "Deliver" item 3; extends
 * reference/a3s-completion-gate.md §7): README areas and ledger areas agree, every row names
 * tests, and every named test passed in this run's machine-readable results.
 */
import fs from "node:fs";
import path from "node:path";
import {
  CAPABILITY_MAP_HEADING,
  COLUMNS,
  EVIDENCE_LEDGER_HEADING,
  EVIDENCE_LEVELS_HEADING,
  GAP_LEVEL,
  LEDGER_FILE,
  README_FILE,
  RUNTIME_SURFACES,
  SURFACE_LEDGER_HEADING,
} from "./layout.js";
import { checkLinkTarget, findLocalLinks, type LocalLink } from "./links.js";
import { type MarkdownTable, tableAfterHeading } from "./markdown-table.js";
import { openResults, type ResultLookup } from "./results/index.js";
import { compareSequences } from "./sequences.js";
import { parseTestsCell, type TestReference } from "./test-references.js";

/** Options of {@link checkCapabilities}. */
export interface CheckCapabilitiesOptions {
  /** Repository root holding README.md and CAPABILITY_VERIFICATION.md. */
  root: string;
  /** Directory with vitest.json, pytest.xml and go.json; default `<root>/results`. */
  resultsDir?: string;
  /** Structure only: parse references but do not look them up in the results. */
  skipResults?: boolean;
}

/** What was checked: ledger rows and distinct test references. */
export interface CapabilityCounts {
  areas: number;
  surfaces: number;
  tests: number;
}

/** Outcome of {@link checkCapabilities}. */
export interface CapabilityCheckResult {
  /** True iff `problems` is empty. */
  ok: boolean;
  /** One line per problem, prefixed by the area or surface name, or by `<file>:`. */
  problems: string[];
  counts: CapabilityCounts;
  /** False when `skipResults` was set. */
  resultsChecked: boolean;
}

/** Thrown for unusable options; `field` names the option. */
export class CapabilityCheckInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "CapabilityCheckInputError";
  }
}

interface LedgerRow {
  name: string;
  line: number;
  refs: TestReference[];
}

const NA_WITHOUT_REASON = /^n\/a\s*[—–-]?\s*$/i;

function readFile(root: string, file: string, problems: string[]): string | undefined {
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

function parseTable(text: string | undefined, heading: string, file: string, problems: string[]) {
  if (text === undefined) return undefined;
  const parsed = tableAfterHeading(text, heading, file);
  problems.push(...parsed.problems);
  return parsed.table;
}

/** Column indexes by name, or undefined (with a problem) when one is missing. */
function columns<K extends string>(
  table: MarkdownTable | undefined,
  names: Record<K, string>,
  file: string,
  heading: string,
  problems: string[],
): Record<K, number> | undefined {
  if (table === undefined) return undefined;
  const out = {} as Record<K, number>;
  let ok = true;
  for (const key of Object.keys(names) as K[]) {
    const index = table.header.indexOf(names[key]);
    if (index < 0) {
      problems.push(`${file}: "${heading}" table has no "${names[key]}" column`);
      ok = false;
    }
    out[key] = index;
  }
  return ok ? out : undefined;
}

function startsWithLevel(value: string, levels: readonly string[]): boolean {
  const v = value.toLowerCase();
  return levels.some((level) => {
    const l = level.toLowerCase();
    return v === l || (v.startsWith(l) && /^[^\p{L}\p{N}]/u.test(v.slice(l.length)));
  });
}

function levelProblem(
  owner: string,
  cellName: string,
  value: string,
  levels: readonly string[] | undefined,
): string | undefined {
  if (!value)
    return `${owner}: ${cellName} is empty (write "${GAP_LEVEL}" when there is no evidence)`;
  if (levels !== undefined && !startsWithLevel(value, levels)) {
    return `${owner}: ${cellName} "${value}" does not start with an evidence level (${levels.join(", ")})`;
  }
  return undefined;
}

/**
 * Runs the capability ledger check on a repository.
 *
 * Reads `README.md` "## Capability map" and `CAPABILITY_VERIFICATION.md` ("## Evidence
 * levels", "## Capability evidence ledger", "## Runtime surface ledger") and, unless
 * `skipResults`, `vitest.json`, `pytest.xml` and `go.json` in the results directory. Every
 * problem is collected; nothing is thrown for content problems.
 *
 * @param options repository root, results directory, structure-only switch
 * @returns `{ok, problems, counts, resultsChecked}`; `counts.tests` counts distinct references
 * @throws CapabilityCheckInputError when `root` (or `resultsDir`) is not a string, or `root`
 *   is not a directory
 */
export function checkCapabilities(options: CheckCapabilitiesOptions): CapabilityCheckResult {
  const { root: rootOption, resultsDir: resultsOption, skipResults = false } = options ?? {};
  if (typeof rootOption !== "string" || rootOption === "") {
    throw new CapabilityCheckInputError("root", "must be a non-empty path string");
  }
  const root = path.resolve(rootOption);
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CapabilityCheckInputError("root", `is not a directory: ${rootOption}`);
  }
  if (resultsOption !== undefined && typeof resultsOption !== "string") {
    throw new CapabilityCheckInputError("resultsDir", "must be a path string when given");
  }
  const resultsDir = path.resolve(root, resultsOption ?? "results");

  const problems: string[] = [];
  const readme = readFile(root, README_FILE, problems);
  const ledger = readFile(root, LEDGER_FILE, problems);
  const mapTable = parseTable(readme, CAPABILITY_MAP_HEADING, README_FILE, problems);
  const levelTable = parseTable(ledger, EVIDENCE_LEVELS_HEADING, LEDGER_FILE, problems);
  const evidenceTable = parseTable(ledger, EVIDENCE_LEDGER_HEADING, LEDGER_FILE, problems);
  const surfaceTable = parseTable(ledger, SURFACE_LEDGER_HEADING, LEDGER_FILE, problems);

  const mapCols = columns(
    mapTable,
    { area: COLUMNS.area },
    README_FILE,
    CAPABILITY_MAP_HEADING,
    problems,
  );
  const levelCols = columns(
    levelTable,
    { level: COLUMNS.level },
    LEDGER_FILE,
    EVIDENCE_LEVELS_HEADING,
    problems,
  );
  const evidenceCols = columns(
    evidenceTable,
    {
      area: COLUMNS.area,
      tests: COLUMNS.tests,
      performance: COLUMNS.performance,
      state: COLUMNS.state,
    },
    LEDGER_FILE,
    EVIDENCE_LEDGER_HEADING,
    problems,
  );
  const surfaceCols = columns(
    surfaceTable,
    { surface: COLUMNS.surface, tests: COLUMNS.tests, gate: COLUMNS.gate },
    LEDGER_FILE,
    SURFACE_LEDGER_HEADING,
    problems,
  );
  const levels =
    levelTable && levelCols
      ? levelTable.rows.map((r) => r.cells[levelCols.level] ?? "")
      : undefined;

  const linksByLine = new Map<number, LocalLink[]>();
  for (const link of findLocalLinks(ledger ?? "")) {
    linksByLine.set(link.line, [...(linksByLine.get(link.line) ?? []), link]);
  }
  const checkLinks = (owner: string, line: number) => {
    for (const link of linksByLine.get(line) ?? []) {
      const problem = checkLinkTarget(root, root, link.target);
      if (problem) problems.push(`${owner}: ${problem}`);
    }
    linksByLine.delete(line);
  };

  const rows: LedgerRow[] = [];
  const testsOf = (owner: string, cell: string): TestReference[] => {
    const { refs, malformed } = parseTestsCell(cell);
    for (const m of malformed) problems.push(`${owner}: ${m}`);
    return refs;
  };

  // README areas and their descriptions.
  let readmeAreas: string[] | undefined;
  if (mapTable && mapCols) {
    if (mapTable.rows.length === 0)
      problems.push(`${README_FILE}: "${CAPABILITY_MAP_HEADING}" table has no rows`);
    readmeAreas = mapTable.rows.map((r) => r.cells[mapCols.area] ?? "");
  }

  // Evidence ledger rows.
  let ledgerAreas: string[] | undefined;
  const areaProblems: string[] = [];
  if (evidenceTable && evidenceCols) {
    ledgerAreas = [];
    for (const row of evidenceTable.rows) {
      const area = row.cells[evidenceCols.area] ?? "";
      ledgerAreas.push(area);
      const owner = area || `${LEDGER_FILE}:${row.line}`;
      const before = problems.length;
      const refs = testsOf(owner, row.cells[evidenceCols.tests] ?? "");
      if (refs.length === 0)
        problems.push(`${owner}: names no test (the Tests cell needs at least one reference)`);
      const performance = row.cells[evidenceCols.performance] ?? "";
      if (!performance) problems.push(`${owner}: performance and resource evidence is empty`);
      else if (NA_WITHOUT_REASON.test(performance)) {
        problems.push(
          `${owner}: performance and resource evidence "${performance}" needs a reason (write "n/a — <reason>")`,
        );
      }
      const state = levelProblem(
        owner,
        "current evidence state",
        row.cells[evidenceCols.state] ?? "",
        levels,
      );
      if (state) problems.push(state);
      checkLinks(owner, row.line);
      areaProblems.push(...problems.splice(before));
      rows.push({ name: owner, line: row.line, refs });
    }
  }

  if (readmeAreas && ledgerAreas) {
    const diff = compareSequences(readmeAreas, ledgerAreas);
    const readmeName = "the README capability map";
    const ledgerName = "the capability evidence ledger";
    for (const d of diff.duplicatesA)
      problems.push(`${d.name}: listed ${d.count} times in ${readmeName}`);
    for (const d of diff.duplicatesB)
      problems.push(`${d.name}: listed ${d.count} times in ${ledgerName}`);
    for (const n of diff.onlyA)
      problems.push(`${n}: in ${readmeName} but missing from ${ledgerName}`);
    for (const n of diff.onlyB)
      problems.push(`${n}: in ${ledgerName} but missing from ${readmeName}`);
    for (const m of diff.moved) {
      problems.push(
        `${m.name}: out of order — row ${m.positionA} in ${readmeName}, row ${m.positionB} in ${ledgerName}`,
      );
    }
  }
  if (mapTable && mapCols) {
    for (const row of mapTable.rows) {
      const area = row.cells[mapCols.area] ?? "";
      if (!area) problems.push(`${README_FILE}:${row.line}: Area cell is empty`);
      else if (row.cells.some((c) => c === ""))
        problems.push(`${area}: README capability map description is empty`);
    }
  }
  problems.push(...areaProblems);

  // Runtime surface ledger.
  let surfaceCount = 0;
  if (surfaceTable && surfaceCols) {
    const surfaces = surfaceTable.rows.map((r) => r.cells[surfaceCols.surface] ?? "");
    surfaceCount = surfaces.length;
    const diff = compareSequences(RUNTIME_SURFACES, surfaces);
    const ledgerName = "the runtime surface ledger";
    for (const d of diff.duplicatesB)
      problems.push(`${d.name}: listed ${d.count} times in ${ledgerName}`);
    for (const n of diff.onlyA) problems.push(`${n}: missing from ${ledgerName}`);
    for (const n of diff.onlyB) {
      problems.push(
        `${n}: not a runtime surface (expected exactly: ${RUNTIME_SURFACES.join(", ")})`,
      );
    }
    for (const m of diff.moved) {
      problems.push(
        `${m.name}: out of order — expected row ${m.positionA}, found at row ${m.positionB} of ${ledgerName}`,
      );
    }
    for (const row of surfaceTable.rows) {
      const surface = row.cells[surfaceCols.surface] || `${LEDGER_FILE}:${row.line}`;
      const gate = row.cells[surfaceCols.gate] ?? "";
      const refs = testsOf(surface, row.cells[surfaceCols.tests] ?? "");
      const gateProblem = levelProblem(surface, "current gate", gate, levels);
      if (gateProblem) problems.push(gateProblem);
      else if (refs.length === 0 && !startsWithLevel(gate, [GAP_LEVEL])) {
        problems.push(`${surface}: names no test (only a "${GAP_LEVEL}" gate may have none)`);
      }
      checkLinks(surface, row.line);
      rows.push({ name: surface, line: row.line, refs });
    }
  }

  // Links outside the two ledgers' rows.
  for (const [line] of [...linksByLine]) checkLinks(`${LEDGER_FILE}:${line}`, line);

  // Test references: files exist, and each test passed in this run.
  const results: ResultLookup | undefined = skipResults ? undefined : openResults(root, resultsDir);
  const fileExists = new Map<string, boolean>();
  const distinct = new Set<string>();
  for (const row of rows) {
    for (const ref of row.refs) {
      distinct.add(ref.text);
      if (ref.runner !== "go") {
        let exists = fileExists.get(ref.file);
        if (exists === undefined) {
          exists = fs.existsSync(path.join(root, ref.file));
          fileExists.set(ref.file, exists);
        }
        if (!exists) {
          problems.push(`${row.name}: ${ref.text} — test file does not exist`);
          continue;
        }
      }
      if (results === undefined) continue;
      const outcome = results.outcome(ref);
      if (outcome.status !== "passed") {
        problems.push(
          `${row.name}: ${ref.text} — ${outcome.status}${outcome.detail ? ` ${outcome.detail}` : ""}`,
        );
      }
    }
  }
  if (results) problems.push(...results.fileProblems());

  return {
    ok: problems.length === 0,
    problems,
    counts: { areas: ledgerAreas?.length ?? 0, surfaces: surfaceCount, tests: distinct.size },
    resultsChecked: results !== undefined,
  };
}
