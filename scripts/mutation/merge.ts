/**
 * Folds narrowed Stryker runs into the committed incremental file (issue #11 §5).
 *
 * Stryker's incremental file (`stryker/incremental.json`, a mutation-testing-report-schema
 * report) holds, per source file, every mutant's status and covering tests, and per test
 * file its tests. A run narrowed with `--mutate` writes a report of just those files, so
 * several people measuring different files each hold a part. `mergeIncremental` builds one
 * report from a base and parts. A part contributes only the source files its run measured
 * (`only`: the run's `--mutate` prefixes) — a narrowed run's file also carries copies of
 * every other file's entries as they were when it started, and those must not overwrite newer
 * results of the same text. For every source and test file it keeps the entry whose recorded
 * `source` equals the file on disk now (the last such one; else the last entry seen), and
 * renumbers test ids, which are local to each report, through each test's file and name
 * (not its recorded position, which differs between runs). A covering or
 * killing test that the kept test-file entry no longer holds is dropped, so Stryker re-tests
 * that mutant instead of trusting a stale result.
 */

/** One test of a report's `testFiles[file].tests`. */
interface ReportTest {
  id: string;
  name: string;
  location?: { start: { line: number; column: number } };
  [key: string]: unknown;
}

/** One mutant of a report's `files[file].mutants` (only the fields this reads). */
interface ReportMutant {
  killedBy?: string[];
  coveredBy?: string[];
  [key: string]: unknown;
}

/** The part of a Stryker report (or incremental file) this reads and writes. */
export interface IncrementalReport {
  files: Record<string, { source: string; mutants: ReportMutant[]; [key: string]: unknown }>;
  testFiles?: Record<string, { source?: string; tests: ReportTest[]; [key: string]: unknown }>;
  [key: string]: unknown;
}

/** How many entries came from where, for the merge script's one-line summary. */
export interface MergeCounts {
  /** Source files whose kept entry matches the disk. */
  current: number;
  /** Source files kept although no entry matches the disk (Stryker re-tests what changed). */
  stale: number;
  /** Source files dropped because they are gone from disk. */
  dropped: number;
  /** Test ids dropped because the kept test-file entry does not hold that test. */
  droppedTests: number;
}

/**
 * A test's identity across reports: its file and name. The start position is left out: one
 * run records a file's tests with locations, another (narrowed to other files) without or at
 * 1:1, and the same test must still match (two tests of one name in one file are one here).
 */
function testKey(file: string, t: ReportTest): string {
  return `${file}\n${t.name}`;
}

/** The entry of `name` to keep: the last whose source equals `disk`, else the last one. */
function pick<T extends { source?: string }>(
  candidates: T[],
  disk: string,
): { entry: T; current: boolean } {
  for (let i = candidates.length - 1; i >= 0; i--) {
    const c = candidates[i] as T;
    if (c.source === disk) return { entry: c, current: true };
  }
  return { entry: candidates[candidates.length - 1] as T, current: false };
}

/**
 * Merges `base` and `parts` (in that order of precedence: later wins among equals).
 * @param base the committed incremental report.
 * @param parts reports of narrowed runs.
 * @param only repository-relative path prefixes of the source files the parts measured; a
 *   part's entry for any other source file is ignored (test files are taken from every report).
 * @param readSource the text of a repository-relative file on disk now, or undefined when
 *   it does not exist (its entries are then dropped).
 * @returns the merged report (top-level fields other than `files` and `testFiles` from
 *   `base`) and counts.
 * @throws TypeError naming the report (`base`, `parts[i]`) when it has no `files` object.
 */
export function mergeIncremental(
  base: IncrementalReport,
  parts: IncrementalReport[],
  readSource: (file: string) => string | undefined,
  only: string[],
): { report: IncrementalReport; counts: MergeCounts } {
  const reports = [base, ...parts];
  reports.forEach((r, i) => {
    if (typeof r !== "object" || r === null || typeof r.files !== "object" || r.files === null) {
      throw new TypeError(
        `${i === 0 ? "base" : `parts[${i - 1}]`}: not a Stryker report (no "files" object)`,
      );
    }
  });
  // Each report's own id → identity key.
  const keysById = reports.map((r) => {
    const m = new Map<string, string>();
    for (const [file, tf] of Object.entries(r.testFiles ?? {})) {
      for (const t of tf.tests) m.set(t.id, testKey(file, t));
    }
    return m;
  });
  // Test files: keep one entry per file, renumber its tests.
  const testFiles: NonNullable<IncrementalReport["testFiles"]> = {};
  const idByKey = new Map<string, string>();
  const testNames = [...new Set(reports.flatMap((r) => Object.keys(r.testFiles ?? {})))].sort();
  for (const file of testNames) {
    // A test runner that reports no file locations files every test under "".
    const disk = file === "" ? undefined : readSource(file);
    if (file !== "" && disk === undefined) continue;
    const candidates = reports.flatMap((r) => (r.testFiles?.[file] ? [r.testFiles[file]] : []));
    const { entry } = pick(candidates, disk ?? "");
    const tests = entry.tests.map((t) => {
      const key = testKey(file, t);
      let id = idByKey.get(key);
      if (id === undefined) {
        id = String(idByKey.size);
        idByKey.set(key, id);
      }
      return { ...t, id };
    });
    testFiles[file] = { ...entry, tests };
  }
  const counts: MergeCounts = { current: 0, stale: 0, dropped: 0, droppedTests: 0 };
  const files: IncrementalReport["files"] = {};
  const sourceNames = [...new Set(reports.flatMap((r) => Object.keys(r.files)))].sort();
  for (const file of sourceNames) {
    const disk = readSource(file);
    if (disk === undefined) {
      counts.dropped++;
      continue;
    }
    const measured = only.some((p) => file.startsWith(p));
    const candidates = reports.flatMap((r, i) =>
      r.files[file] && (i === 0 || measured) ? [{ ...r.files[file], at: i }] : [],
    );
    if (candidates.length === 0) continue;
    const { entry, current } = pick(candidates, disk);
    if (current) counts.current++;
    else counts.stale++;
    const { at, ...kept } = entry;
    const keys = keysById[at] as Map<string, string>;
    const remap = (ids: string[] | undefined): string[] | undefined => {
      if (ids === undefined) return undefined;
      const out: string[] = [];
      for (const old of ids) {
        const key = keys.get(old);
        const id = key === undefined ? undefined : idByKey.get(key);
        if (id === undefined) counts.droppedTests++;
        else out.push(id);
      }
      return out;
    };
    files[file] = {
      ...kept,
      mutants: kept.mutants.map((m) => {
        const out: ReportMutant = { ...m };
        if (m.killedBy !== undefined) out.killedBy = remap(m.killedBy);
        if (m.coveredBy !== undefined) out.coveredBy = remap(m.coveredBy);
        return out;
      }),
    };
  }
  return { report: { ...base, files, testFiles }, counts };
}
