/**
 * The capability ledger check (issue 6 "Deliver" item 3; extends
 * reference/a3s-completion-gate.md §7): capability map areas and ledger areas agree, every row names
 * tests, links stay inside the repository, and every named test passed in this run's
 * machine-readable results.
 */
import fs from "node:fs";
import path from "node:path";
import { GAP_LEVEL, LEDGER_FILE, MAP_FILE, RUNTIME_SURFACES } from "./layout.js";
import { readLedgerFiles } from "./ledger-files.js";
import { checkLinkTarget, findLocalLinks, type LocalLink } from "./links.js";
import { perfProfileProblems } from "./perf-profiles.js";
import { openResults } from "./results/index.js";
import { compareSequences } from "./sequences.js";
import { parseTestsCell, type TestReference } from "./test-references.js";

/** Options of {@link checkCapabilities}. */
export interface CheckCapabilitiesOptions {
  /** Repository root holding docs/capabilities.md and CAPABILITY_VERIFICATION.md. */
  root: string;
  /** Directory with vitest.json, pytest.xml and go.json (relative: from `root`); default `<root>/results`. */
  resultsDir?: string;
  /** Structure only: parse references and check their files exist, but read no results. */
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

/** A ledger row's name (area or surface) and the references its Tests cell names. */
interface NamedRefs {
  owner: string;
  refs: TestReference[];
}

const NA_WITHOUT_REASON = /^n\/a\s*[—–-]?\s*$/i;
const MAP = "the capability map (docs/capabilities.md)";
const EVIDENCE_LEDGER = "the capability evidence ledger";
const SURFACE_LEDGER = "the runtime surface ledger";

/** True when `value` is `level` or starts with it followed by a non-alphanumeric character. */
function startsWithLevel(value: string, levels: readonly string[]): boolean {
  const v = value.toLowerCase();
  return levels.some((level) => {
    const l = level.toLowerCase();
    return v === l || (v.startsWith(l) && /^[^\p{L}\p{N}]/u.test(v.slice(l.length)));
  });
}

/** Problem with a state or gate cell: empty, or not starting with an evidence level. */
function levelProblem(
  owner: string,
  cellName: string,
  value: string,
  levels: readonly string[] | undefined,
): string | undefined {
  if (!value) {
    return `${owner}: ${cellName} is empty (write "${GAP_LEVEL}" when there is no evidence)`;
  }
  if (levels !== undefined && !startsWithLevel(value, levels)) {
    return `${owner}: ${cellName} "${value}" does not start with an evidence level (${levels.join(", ")})`;
  }
  return undefined;
}

function validateOptions(options: CheckCapabilitiesOptions): {
  root: string;
  resultsDir: string;
  skipResults: boolean;
} {
  const { root, resultsDir, skipResults = false } = options ?? {};
  if (typeof root !== "string" || root === "") {
    throw new CapabilityCheckInputError("root", "must be a non-empty path string");
  }
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CapabilityCheckInputError("root", `is not a directory: ${root}`);
  }
  if (resultsDir !== undefined && typeof resultsDir !== "string") {
    throw new CapabilityCheckInputError("resultsDir", "must be a path string when given");
  }
  const absRoot = path.resolve(root);
  return { root: absRoot, resultsDir: path.resolve(absRoot, resultsDir ?? "results"), skipResults };
}

/**
 * Runs the capability ledger check on a repository.
 *
 * Reads `docs/capabilities.md` "## Capability map" and `CAPABILITY_VERIFICATION.md` ("## Evidence
 * levels", "## Capability evidence ledger", "## Runtime surface ledger") and, unless
 * `skipResults`, `vitest.json`, `pytest.xml` and `go.json` in the results directory (each at
 * most once). Every problem is collected, in this order: file structure, area parity, capability
 * map descriptions, evidence rows, surface parity, surface rows, other ledger links, test
 * references (by row), unreadable results files. Content problems are never thrown.
 *
 * @param options repository root, results directory, structure-only switch
 * @returns `{ok, problems, counts, resultsChecked}`; `counts.tests` counts distinct references
 * @throws CapabilityCheckInputError when `root` is not a non-empty string naming a directory,
 *   or `resultsDir` is given but not a string
 */
export function checkCapabilities(options: CheckCapabilitiesOptions): CapabilityCheckResult {
  const { root, resultsDir, skipResults } = validateOptions(options);
  const files = readLedgerFiles(root);
  const problems = [...files.problems];
  const named: NamedRefs[] = [];

  const linksByLine = new Map<number, LocalLink[]>();
  for (const link of findLocalLinks(files.ledgerText)) {
    linksByLine.set(link.line, [...(linksByLine.get(link.line) ?? []), link]);
  }
  /** Checks (and consumes) the ledger links on one line. */
  const checkLinks = (owner: string, line: number) => {
    for (const link of linksByLine.get(line) ?? []) {
      const problem = checkLinkTarget(root, root, link.target);
      if (problem) problems.push(`${owner}: ${problem}`);
    }
    linksByLine.delete(line);
  };
  /** Parses a Tests cell, reporting malformed items, and remembers the references. */
  const testsOf = (owner: string, cell: string): TestReference[] => {
    const { refs, malformed } = parseTestsCell(cell);
    for (const m of malformed) problems.push(`${owner}: ${m}`);
    named.push({ owner, refs });
    return refs;
  };

  // Areas: capability map ↔ capability evidence ledger.
  if (files.map && files.evidence) {
    const diff = compareSequences(
      files.map.map((r) => r.area),
      files.evidence.map((r) => r.area),
    );
    for (const d of diff.duplicatesA) problems.push(`${d.name}: listed ${d.count} times in ${MAP}`);
    for (const d of diff.duplicatesB)
      problems.push(`${d.name}: listed ${d.count} times in ${EVIDENCE_LEDGER}`);
    for (const n of diff.onlyA)
      problems.push(`${n}: in ${MAP} but missing from ${EVIDENCE_LEDGER}`);
    for (const n of diff.onlyB)
      problems.push(`${n}: in ${EVIDENCE_LEDGER} but missing from ${MAP}`);
    for (const m of diff.moved) {
      problems.push(
        `${m.name}: out of order — row ${m.positionA} in ${MAP}, row ${m.positionB} in ${EVIDENCE_LEDGER}`,
      );
    }
  }
  for (const row of files.map ?? []) {
    if (!row.area) problems.push(`${MAP_FILE}:${row.line}: Area cell is empty`);
    else if (!row.described) problems.push(`${row.area}: capability map description is empty`);
  }

  for (const row of files.evidence ?? []) {
    const owner = row.area || `${LEDGER_FILE}:${row.line}`;
    if (testsOf(owner, row.tests).length === 0) {
      problems.push(`${owner}: names no test (the Tests cell needs at least one reference)`);
    }
    if (!row.performance) {
      problems.push(`${owner}: performance and resource evidence is empty`);
    } else if (NA_WITHOUT_REASON.test(row.performance)) {
      problems.push(
        `${owner}: performance and resource evidence "${row.performance}" needs a reason (write "n/a — <reason>")`,
      );
    }
    problems.push(
      ...perfProfileProblems(owner, row.performance ?? "", skipResults ? null : resultsDir),
    );
    const state = levelProblem(owner, "current evidence state", row.state, files.levels);
    if (state) problems.push(state);
    checkLinks(owner, row.line);
  }

  // Runtime surfaces: exactly RUNTIME_SURFACES, in order.
  if (files.surfaces) {
    const diff = compareSequences(
      RUNTIME_SURFACES,
      files.surfaces.map((r) => r.surface),
    );
    for (const d of diff.duplicatesB)
      problems.push(`${d.name}: listed ${d.count} times in ${SURFACE_LEDGER}`);
    for (const n of diff.onlyA) problems.push(`${n}: missing from ${SURFACE_LEDGER}`);
    for (const n of diff.onlyB) {
      problems.push(
        `${n}: not a runtime surface (expected exactly: ${RUNTIME_SURFACES.join(", ")})`,
      );
    }
    for (const m of diff.moved) {
      problems.push(
        `${m.name}: out of order — expected row ${m.positionA}, found at row ${m.positionB} of ${SURFACE_LEDGER}`,
      );
    }
  }
  for (const row of files.surfaces ?? []) {
    const owner = row.surface || `${LEDGER_FILE}:${row.line}`;
    const refs = testsOf(owner, row.tests);
    const gate = levelProblem(owner, "current gate", row.gate, files.levels);
    if (gate) problems.push(gate);
    else if (refs.length === 0 && !startsWithLevel(row.gate, [GAP_LEVEL])) {
      problems.push(`${owner}: names no test (only a "${GAP_LEVEL}" gate may have none)`);
    }
    checkLinks(owner, row.line);
  }

  // Links anywhere else in the ledger file.
  for (const line of [...linksByLine.keys()]) checkLinks(`${LEDGER_FILE}:${line}`, line);

  // Test references: the file exists, and the test passed in this run.
  const results = skipResults ? undefined : openResults(root, resultsDir);
  const fileExists = new Map<string, boolean>();
  const distinct = new Set<string>();
  for (const { owner, refs } of named) {
    for (const ref of refs) {
      distinct.add(ref.text);
      if (ref.runner === "vitest" || ref.runner === "pytest") {
        if (!fileExists.has(ref.file))
          fileExists.set(ref.file, fs.existsSync(path.join(root, ref.file)));
        if (!fileExists.get(ref.file)) {
          problems.push(`${owner}: ${ref.text} — test file does not exist`);
          continue;
        }
      }
      const outcome = results?.outcome(ref);
      if (outcome && outcome.status !== "passed") {
        problems.push(
          `${owner}: ${ref.text} — ${outcome.status}${outcome.detail ? ` ${outcome.detail}` : ""}`,
        );
      }
    }
  }
  if (results) problems.push(...results.fileProblems());

  return {
    ok: problems.length === 0,
    problems,
    counts: {
      areas: files.evidence?.length ?? 0,
      surfaces: files.surfaces?.length ?? 0,
      tests: distinct.size,
    },
    resultsChecked: results !== undefined,
  };
}
