/**
 * Where the capability ledger lives and what it must contain: file names, headings, column
 * names and the fixed runtime surface list (issue 6, "Deliver" items 1–2; claims per area:
 * issue 35 item 1; the A3S layout it extends is reference/a3s-completion-gate.md §7).
 */

/** File holding the capability map (its areas and their claims), relative to the repository root. */
export const MAP_FILE = "docs/capabilities.md";
/** Ledger file, relative to the repository root. */
export const LEDGER_FILE = "CAPABILITY_VERIFICATION.md";

/** Heading of the section of {@link MAP_FILE} whose `### <Area>` sections list every claim. */
export const CLAIMS_HEADING = "## Claims";
/** Heading of the ledger table with one evidence row per capability map area. */
export const EVIDENCE_LEDGER_HEADING = "## Capability evidence ledger";
/** Heading of the ledger table with one row per runtime surface. */
export const SURFACE_LEDGER_HEADING = "## Runtime surface ledger";
/** Heading of the legend table whose `Level` column lists the allowed evidence levels. */
export const EVIDENCE_LEVELS_HEADING = "## Evidence levels";

/** Column names, exactly as written in the table headers. */
export const COLUMNS = {
  area: "Area",
  level: "Level",
  tests: "Tests",
  claims: "Claims",
  performance: "Performance and resource evidence",
  state: "Current evidence state",
  surface: "Surface",
  gate: "Current gate",
} as const;

/** The runtime surfaces the ledger must list, exactly and in this order. */
export const RUNTIME_SURFACES: readonly string[] = [
  "TypeScript core",
  "Node host",
  "CLI",
  "Python (CPython)",
  "Python (Pyodide)",
  "Go",
  "Native accelerator",
];

/** The evidence level that marks an advertised but unproven row. */
export const GAP_LEVEL = "gap";

/** Machine-readable results of one test run, relative to the results directory. */
export const RESULT_FILES = {
  vitest: "vitest.json",
  pytest: "pytest.xml",
  go: "go.json",
  matrix: "matrix.json",
} as const;
