/**
 * Per-module mutation scores (issue #11 §5): Stryker's `thresholds.break` judges the score of
 * all mutated files together, so a well-tested module could hide a weak one. This reads
 * Stryker's JSON report (mutation-testing-report-schema: `files[path].mutants[].status`) and
 * scores each module group of `stryker/groups.json` on its own, against its own `break`,
 * leaving out the survivors listed as equivalent (`./equivalents.ts`).
 */
import { type EquivalentEntry, entryMatches, type ListableMutant } from "./equivalents.js";

/** One module group: the files whose path starts with one of `prefixes`, and its threshold. */
export interface MutationGroup {
  /** Name printed in the table, e.g. `"reports and shell evidence"`. */
  name: string;
  /** Repository-relative path prefixes (`/` separators), e.g. `"packages/core/src/gate/"`. */
  prefixes: string[];
  /** The lowest acceptable score, percent (0–100). */
  break: number;
}

/** Counts and score of one group. */
export interface GroupScore {
  name: string;
  killed: number;
  timeout: number;
  /** Survived and not listed as equivalent. */
  survived: number;
  /** NoCoverage and not listed as equivalent. */
  noCoverage: number;
  /** Survived or NoCoverage, and listed as equivalent: not part of the score. */
  equivalent: number;
  /** Ignored, compile and runtime errors: not part of the score. */
  other: number;
  /** (killed + timeout) / (killed + timeout + survived + noCoverage) × 100; null with no mutant. */
  score: number | null;
  break: number;
  /** True when `score` is below `break` or the group matched no mutant. */
  failed: boolean;
}

/** The part of Stryker's JSON report this reads. */
export interface MutationReport {
  files: Record<string, { mutants: Array<{ status: string } & ListableMutant> }>;
}

/**
 * Scores every group of `groups` in `report`.
 * @param report Stryker's JSON report; file keys repository-relative (backslashes allowed).
 * @param equivalents the equivalents list (`readEquivalents`); a Survived or NoCoverage
 *   mutant an entry matches counts as `equivalent`, outside the score.
 * @returns one `GroupScore` per group, in the order given. A file counts in every group
 *   whose prefix it starts with. A group matching no mutant fails (a renamed folder must
 *   not silently drop a module from the check).
 * @throws Error naming the group when `break` is not a number from 0 to 100.
 */
export function groupScores(
  report: MutationReport,
  groups: MutationGroup[],
  equivalents: EquivalentEntry[] = [],
): GroupScore[] {
  return groups.map((group) => {
    if (typeof group.break !== "number" || !(group.break >= 0 && group.break <= 100)) {
      throw new Error(`mutation group "${group.name}": break must be a number from 0 to 100`);
    }
    const counts = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, equivalent: 0, other: 0 };
    for (const [file, { mutants }] of Object.entries(report.files)) {
      const normal = file.replaceAll("\\", "/");
      if (!group.prefixes.some((p) => normal.startsWith(p))) continue;
      for (const m of mutants) {
        if (m.status === "Killed") counts.killed++;
        else if (m.status === "Timeout") counts.timeout++;
        else if (isSurvivor(m) && equivalents.some((e) => entryMatches(e, normal, m)))
          counts.equivalent++;
        else if (m.status === "Survived") counts.survived++;
        else if (m.status === "NoCoverage") counts.noCoverage++;
        else counts.other++;
      }
    }
    const detected = counts.killed + counts.timeout;
    const valid = detected + counts.survived + counts.noCoverage;
    const score = valid === 0 ? null : (detected / valid) * 100;
    return {
      name: group.name,
      ...counts,
      score,
      break: group.break,
      failed: score === null || score < group.break,
    };
  });
}

/** True for the statuses a test must kill or the list must name: Survived and NoCoverage. */
function isSurvivor(m: { status: string }): boolean {
  return m.status === "Survived" || m.status === "NoCoverage";
}

/** A Survived or NoCoverage mutant that no equivalents entry names. */
export interface UnlistedSurvivor {
  file: string;
  line: number;
  column: number;
  mutator: string;
  replacement: string;
  status: string;
}

/**
 * The survivors the equivalents list does not name, and the entries that name no survivor.
 * @param report Stryker's JSON report.
 * @param equivalents the list (`readEquivalents`).
 * @param only repository-relative path prefixes; when non-empty, only files starting with one
 *   of them are audited (a narrowed run). Entries are judged stale only for files the report
 *   holds, so a report of some files says nothing of the others' entries.
 * @returns `unlisted` in file, line, column order; `stale` in list order.
 */
export function auditSurvivors(
  report: MutationReport,
  equivalents: EquivalentEntry[],
  only: string[] = [],
): { unlisted: UnlistedSurvivor[]; stale: EquivalentEntry[] } {
  const unlisted: UnlistedSurvivor[] = [];
  const used = new Set<EquivalentEntry>();
  const present = new Set<string>();
  for (const [key, { mutants }] of Object.entries(report.files)) {
    const file = key.replaceAll("\\", "/");
    if (only.length > 0 && !only.some((p) => file.startsWith(p))) continue;
    present.add(file);
    for (const m of mutants) {
      if (!isSurvivor(m)) continue;
      const hits = equivalents.filter((e) => entryMatches(e, file, m));
      for (const h of hits) used.add(h);
      if (hits.length > 0) continue;
      unlisted.push({
        file,
        line: m.location?.start.line ?? 0,
        column: m.location?.start.column ?? 0,
        mutator: m.mutatorName ?? "?",
        replacement: (m.replacement ?? "").replace(/\s+/g, " ").trim(),
        status: m.status,
      });
    }
  }
  unlisted.sort((a, b) =>
    a.file !== b.file ? (a.file < b.file ? -1 : 1) : a.line - b.line || a.column - b.column,
  );
  const stale = equivalents.filter((e) => present.has(e.file) && !used.has(e));
  return { unlisted, stale };
}

/**
 * The lines printed after the table: `unlisted survivors (N):` then one
 * `<file>:<line>:<col> <Mutator> → \`<replacement>\` (<status>)` each, and `stale equivalents
 * entries (N):` then `<where>: <file> <line>:<col> <Mutator>` each; "" when both are empty.
 */
export function formatAudit(audit: {
  unlisted: UnlistedSurvivor[];
  stale: EquivalentEntry[];
}): string {
  const out: string[] = [];
  if (audit.unlisted.length > 0) {
    out.push(
      `unlisted survivors (${audit.unlisted.length}): kill each with a test or list it in stryker/equivalent/`,
    );
    for (const u of audit.unlisted) {
      out.push(
        `  ${u.file}:${u.line}:${u.column} ${u.mutator} → \`${u.replacement}\` (${u.status})`,
      );
    }
  }
  if (audit.stale.length > 0) {
    out.push(
      `stale equivalents entries (${audit.stale.length}): they name no surviving mutant; remove or correct them`,
    );
    for (const e of audit.stale)
      out.push(`  ${e.where}: ${e.file} ${e.line}:${e.column} ${e.mutator}`);
  }
  return out.join("\n");
}

/**
 * The table printed by `scripts/mutation-groups.ts`: one line per group,
 * `<name>: <score>% (break <b>) killed K, timeout T, survived S, no coverage N, equivalent E[ — BELOW BREAK]`,
 * scores with two decimals (`n/a` with no mutant, then ` — NO MUTANTS`).
 */
export function formatGroupScores(scores: GroupScore[]): string {
  return scores
    .map((s) => {
      const score = s.score === null ? "n/a" : `${s.score.toFixed(2)}%`;
      const flag = s.score === null ? " — NO MUTANTS" : s.failed ? " — BELOW BREAK" : "";
      return `${s.name}: ${score} (break ${s.break}) killed ${s.killed}, timeout ${s.timeout}, survived ${s.survived}, no coverage ${s.noCoverage}, equivalent ${s.equivalent}${flag}`;
    })
    .join("\n");
}
