/**
 * Per-module mutation scores (issue #11 §5): Stryker's `thresholds.break` judges the score of
 * all mutated files together, so a well-tested module could hide a weak one. This reads
 * Stryker's JSON report (mutation-testing-report-schema: `files[path].mutants[].status`) and
 * scores each module group of `stryker/groups.json` on its own, against its own `break`.
 */

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
  survived: number;
  noCoverage: number;
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
  files: Record<string, { mutants: Array<{ status: string }> }>;
}

/**
 * Scores every group of `groups` in `report`.
 * @param report Stryker's JSON report; file keys repository-relative (backslashes allowed).
 * @returns one `GroupScore` per group, in the order given. A file counts in every group
 *   whose prefix it starts with. A group matching no mutant fails (a renamed folder must
 *   not silently drop a module from the check).
 * @throws Error naming the group when `break` is not a number from 0 to 100.
 */
export function groupScores(report: MutationReport, groups: MutationGroup[]): GroupScore[] {
  return groups.map((group) => {
    if (typeof group.break !== "number" || !(group.break >= 0 && group.break <= 100)) {
      throw new Error(`mutation group "${group.name}": break must be a number from 0 to 100`);
    }
    const counts = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, other: 0 };
    for (const [file, { mutants }] of Object.entries(report.files)) {
      const normal = file.replaceAll("\\", "/");
      if (!group.prefixes.some((p) => normal.startsWith(p))) continue;
      for (const m of mutants) {
        if (m.status === "Killed") counts.killed++;
        else if (m.status === "Timeout") counts.timeout++;
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

/**
 * The table printed by `scripts/mutation-groups.ts`: one line per group,
 * `<name>: <score>% (break <b>) killed K, timeout T, survived S, no coverage N[ — BELOW BREAK]`,
 * scores with two decimals (`n/a` with no mutant, then ` — NO MUTANTS`).
 */
export function formatGroupScores(scores: GroupScore[]): string {
  return scores
    .map((s) => {
      const score = s.score === null ? "n/a" : `${s.score.toFixed(2)}%`;
      const flag = s.score === null ? " — NO MUTANTS" : s.failed ? " — BELOW BREAK" : "";
      return `${s.name}: ${score} (break ${s.break}) killed ${s.killed}, timeout ${s.timeout}, survived ${s.survived}, no coverage ${s.noCoverage}${flag}`;
    })
    .join("\n");
}
