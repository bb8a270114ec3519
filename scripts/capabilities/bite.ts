/**
 * The bite check from Stryker's results (issue 35 item 2; CAPABILITY_VERIFICATION.md
 * "Claims"): for every claim with code lines (`- code: \`<path>:<start>-<end>\``), are the
 * mutants Stryker made on those lines killed by a test the claim cites? Reads Stryker's
 * incremental file (`stryker/incremental.json`, the mutation-testing-report-schema shape CI
 * already produces with per-test coverage): `files[path].mutants[]` with `location.start`,
 * `status` and `killedBy` test ids, and `testFiles[path].tests[]` with `id` and `name`. The
 * vitest runner names a test by its describe chain and title joined by one space, so a
 * claim's `vitest:<file> > <describe> > … > <test>` reference matches the test of that file
 * whose name is its segments joined by " ". Pure: no file is read here.
 */

import { type EquivalentEntry, entryMatches } from "../mutation/equivalents.js";
import type { ClaimArea } from "./claims.js";
import { claimOwner } from "./claims.js";
import type { CodeRange } from "./code-ranges.js";

/** The part of a Stryker mutant the bite check reads. */
export interface BiteMutant {
  id: string;
  status: string;
  mutatorName?: string;
  replacement?: string;
  static?: boolean;
  killedBy?: string[];
  location?: { start: { line: number; column: number } };
}

/** The part of Stryker's incremental file (or JSON report) the bite check reads. */
export interface BiteReport {
  files: Record<string, { mutants: BiteMutant[] }>;
  testFiles?: Record<string, { tests: Array<{ id: string; name: string }> }>;
}

/** The verdict on one claim with code lines. */
export interface ClaimBite {
  area: string;
  claim: number;
  /** `<Area>, claim <n> ("<first words>…")`. */
  owner: string;
  /** Mutants that start on the claim's lines and count (not Ignored, static or equivalent). */
  mutants: number;
  /** Of those, the ones killed (Killed or Timeout) with a killing test the claim cites. */
  bitten: number;
  /** True when `bitten` ≥ 1. */
  ok: boolean;
  /** Why not, when `ok` is false: no mutant on the lines, or the killers are not cited. */
  problem?: string;
}

/** Statuses of mutants that never count: not run, or not a valid mutant. */
const NOT_COUNTED = new Set(["Ignored", "CompileError", "RuntimeError", "Pending"]);

/** The Stryker test ids of `report` that the vitest references of a claim name. */
function citedTestIds(report: BiteReport, refs: ClaimArea["claims"][number]["refs"]): Set<string> {
  const ids = new Set<string>();
  for (const ref of refs) {
    if (ref.runner !== "vitest") continue;
    const tests = report.testFiles?.[ref.file]?.tests ?? [];
    const name = ref.name.split(" > ").join(" ");
    for (const t of tests) if (t.name === name) ids.add(t.id);
  }
  return ids;
}

/** Whether a mutant starts on one of `ranges`. */
function onLines(file: string, mutant: BiteMutant, ranges: CodeRange[]): boolean {
  const line = mutant.location?.start.line;
  if (line === undefined) return false;
  return ranges.some((r) => r.file === file && line >= r.start && line <= r.end);
}

/**
 * Judges every claim with code lines against Stryker's results.
 *
 * A mutant counts for a claim when it starts on one of the claim's code lines and is neither
 * Ignored (static mutants are), a compile or runtime error, nor listed as equivalent
 * (`stryker/equivalent/*.md`, `../mutation/equivalents.ts`). The claim is bitten when at least
 * one counted mutant is Killed or Timeout with a `killedBy` test the claim cites. Stryker stops
 * a mutant at its first failing test, so `killedBy` names one test: a mutant whose first killer
 * is not cited does not bite for the claim even when a cited test would also have failed.
 *
 * @param areas the map's areas (`parseClaims`); claims without code lines are skipped
 * @param report Stryker's incremental file; file keys repository-relative (backslashes allowed)
 * @param equivalents the equivalents list (`readEquivalents`)
 * @returns one verdict per claim with code lines, in map order. Problems:
 *   `no mutant on its lines (<ranges>): the range is wrong or the file is outside Stryker's mutate scope`,
 *   `none of its <n> mutant(s) is killed by a test it cites (killed by: <test names>)`
 */
export function biteFromStryker(
  areas: ClaimArea[],
  report: BiteReport,
  equivalents: EquivalentEntry[] = [],
): ClaimBite[] {
  const files = Object.entries(report.files).map(
    ([file, { mutants }]) => [file.replaceAll("\\", "/"), mutants] as const,
  );
  const testName = new Map<string, string>();
  for (const { tests } of Object.values(report.testFiles ?? {})) {
    for (const t of tests) testName.set(t.id, t.name);
  }
  const out: ClaimBite[] = [];
  for (const area of areas) {
    for (const claim of area.claims) {
      if (claim.code.length === 0) continue;
      const cited = citedTestIds(report, claim.refs);
      let mutants = 0;
      let bitten = 0;
      const killers = new Set<string>();
      for (const [file, list] of files) {
        for (const m of list) {
          if (!onLines(file, m, claim.code)) continue;
          if (NOT_COUNTED.has(m.status) || m.static === true) continue;
          if (equivalents.some((e) => entryMatches(e, file, m))) continue;
          mutants++;
          if (m.status !== "Killed" && m.status !== "Timeout") continue;
          const by = m.killedBy ?? [];
          if (by.some((id) => cited.has(id))) bitten++;
          else for (const id of by) killers.add(testName.get(id) ?? `test id ${id}`);
        }
      }
      const verdict: ClaimBite = {
        area: area.area,
        claim: claim.number,
        owner: claimOwner(area.area, claim),
        mutants,
        bitten,
        ok: bitten > 0,
      };
      if (mutants === 0) {
        verdict.problem = `no mutant on its lines (${claim.code.map((r) => r.text).join(", ")}): the range is wrong or the file is outside Stryker's mutate scope`;
      } else if (bitten === 0) {
        const names = [...killers].sort();
        verdict.problem = `none of its ${mutants} mutant(s) is killed by a test it cites (killed by: ${names.length > 0 ? names.join("; ") : "no test"})`;
      }
      out.push(verdict);
    }
  }
  return out;
}
