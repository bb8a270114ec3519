/**
 * The capability ledger check (issue 6 "Deliver" item 3, claims: issue 35 item 1; extends
 * reference/a3s-completion-gate.md §7): capability map areas and ledger areas agree, every
 * claim of the map cites tests, every cited test is in the sources and passed in this run's
 * machine-readable results, README and docs/ state no capability outside the map, and links
 * stay inside the repository.
 */
import fs from "node:fs";
import path from "node:path";
import { claimMarkerProblems } from "./claim-markers.js";
import { claimOwner, headingAnchor } from "./claims.js";
import { codeRangeProblem } from "./code-ranges.js";
import { GAP_LEVEL, LEDGER_FILE, MAP_FILE, RUNTIME_SURFACES } from "./layout.js";
import { readLedgerFiles } from "./ledger-files.js";
import { checkLinkTarget, findLocalLinks, type LocalLink } from "./links.js";
import { perfProfileProblems } from "./perf-profiles.js";
import { openResults } from "./results/index.js";
import { compareSequences } from "./sequences.js";
import { openTestPresence } from "./test-presence.js";
import { parseTestsCell, type TestReference } from "./test-references.js";

/** Options of {@link checkCapabilities}. */
export interface CheckCapabilitiesOptions {
  /** Repository root holding docs/capabilities.md and CAPABILITY_VERIFICATION.md. */
  root: string;
  /** Directory with vitest.json, pytest.xml and go.json (relative: from `root`); default `<root>/results`. */
  resultsDir?: string;
  /** Structure only: parse references and look them up in the sources, but read no results. */
  skipResults?: boolean;
}

/** What was checked: ledger rows, the map's claims and distinct test references. */
export interface CapabilityCounts {
  areas: number;
  claims: number;
  surfaces: number;
  tests: number;
}

/** Outcome of {@link checkCapabilities}. */
export interface CapabilityCheckResult {
  /** True iff `problems` is empty. */
  ok: boolean;
  /**
   * One line per problem, prefixed by `<Area>, claim <n> ("<first words>…")`, the area or
   * surface name, or by `<file>:`.
   */
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

/** A claim (or surface row) and the references it cites. */
interface NamedRefs {
  owner: string;
  refs: TestReference[];
}

const NA_WITHOUT_REASON = /^n\/a\s*[—–-]?\s*$/i;
const CLAIMS_CELL = /^\[(\d+)\]\(([^)#\s]+)#([^)\s]+)\)$/;
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
 * Problem with an evidence row's Claims cell: it must be `[<n>](docs/capabilities.md#<anchor>)`
 * with `n` the area's claim count in the map and `anchor` the area's heading anchor.
 */
function claimsCellProblem(
  owner: string,
  cell: string,
  claims: number | undefined,
  anchor: string,
): string | undefined {
  const m = CLAIMS_CELL.exec(cell);
  const expected = `[${claims ?? "<n>"}](${MAP_FILE}#${anchor})`;
  if (!m)
    return `${owner}: Claims cell "${cell}" is not a claim count linking the area (write ${expected})`;
  if (claims !== undefined && Number(m[1]) !== claims) {
    return `${owner}: Claims cell says ${m[1]} claims, ${MAP} has ${claims} (write ${expected})`;
  }
  if (m[2] !== MAP_FILE || m[3] !== anchor) {
    return `${owner}: Claims cell links ${m[2]}#${m[3]}, expected ${MAP_FILE}#${anchor}`;
  }
  return undefined;
}

/**
 * Runs the capability ledger check on a repository.
 *
 * Reads `docs/capabilities.md` "## Claims" (one `### <Area>` section of numbered claims each)
 * and `CAPABILITY_VERIFICATION.md` ("## Evidence levels", "## Capability evidence ledger",
 * "## Runtime surface ledger"), README.md and docs/*.md for claim markers, the test files the
 * references name and, unless `skipResults`, `vitest.json`, `pytest.xml`, `go.json` and
 * `matrix.json` in the results directory (each at most once). Every problem is collected, in
 * this order: file structure, area parity, claims, evidence rows, surface parity, surface
 * rows, other ledger links, claim markers, test references (by claim, then surface),
 * unreadable results files. Content problems are never thrown.
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

  // Areas: capability map ↔ capability evidence ledger.
  if (files.map && files.evidence) {
    const diff = compareSequences(
      files.map.map((a) => a.area),
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
        `${m.name}: out of order — area ${m.positionA} in ${MAP}, row ${m.positionB} in ${EVIDENCE_LEDGER}`,
      );
    }
  }

  // Claims: their own problems, their code lines (the file exists and holds the range:
  // `<owner>: code <path>:<s>-<e>: …`), then the references they cite.
  problems.push(...files.claimProblems);
  const claimCount = new Map<string, number>();
  const lineCount = new Map<string, number | null>();
  for (const area of files.map ?? []) {
    claimCount.set(area.area, area.claims.length);
    for (const claim of area.claims) {
      const owner = claimOwner(area.area, claim);
      named.push({ owner, refs: claim.refs });
      for (const range of claim.code) {
        const problem = codeRangeProblem(root, range, lineCount);
        if (problem) problems.push(`${owner}: ${problem}`);
      }
    }
  }

  for (const row of files.evidence ?? []) {
    const owner = row.area || `${LEDGER_FILE}:${row.line}`;
    const cell = claimsCellProblem(
      owner,
      row.claims,
      claimCount.get(row.area),
      headingAnchor(row.area),
    );
    if (cell) problems.push(cell);
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
    const { refs, malformed } = parseTestsCell(row.tests);
    for (const m of malformed) problems.push(`${owner}: ${m}`);
    named.push({ owner, refs });
    const gate = levelProblem(owner, "current gate", row.gate, files.levels);
    if (gate) problems.push(gate);
    else if (refs.length === 0 && !startsWithLevel(row.gate, [GAP_LEVEL])) {
      problems.push(`${owner}: names no test (only a "${GAP_LEVEL}" gate may have none)`);
    }
    checkLinks(owner, row.line);
  }

  // Links anywhere else in the ledger file.
  for (const line of [...linksByLine.keys()]) checkLinks(`${LEDGER_FILE}:${line}`, line);

  // Capability sentences outside the map.
  if (files.map) {
    problems.push(
      ...claimMarkerProblems(root, new Set(files.map.map((a) => headingAnchor(a.area)))),
    );
  }

  // Test references: named in the sources, and passed in this run.
  const presence = openTestPresence(root);
  const results = skipResults ? undefined : openResults(root, resultsDir);
  const distinct = new Set<string>();
  for (const { owner, refs } of named) {
    for (const ref of refs) {
      distinct.add(ref.text);
      const missing = presence.problem(ref);
      if (missing) {
        problems.push(`${owner}: cited test ${ref.text} is not in the sources: ${missing}`);
        continue;
      }
      const outcome = results?.outcome(ref);
      if (outcome && outcome.status !== "passed") {
        problems.push(
          `${owner}: cited test ${ref.text} did not pass (${outcome.status}${outcome.detail ? ` ${outcome.detail}` : ""})`,
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
      claims: (files.map ?? []).reduce((n, a) => n + a.claims.length, 0),
      surfaces: files.surfaces?.length ?? 0,
      tests: distinct.size,
    },
    resultsChecked: results !== undefined,
  };
}
