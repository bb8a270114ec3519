/**
 * The outcome of one referenced test in a run's results (issue 6 "Deliver" item 3: a skipped,
 * failed or absent test fails the check).
 */

/** `passed` is the only acceptable status; `detail` adds the runner's own word or a cause. */
export type Outcome =
  | { status: "passed" }
  | { status: "failed" | "skipped" | "absent"; detail?: string };

/** Looks up references of one runner (`Ref`) in one parsed results file. */
export interface ResultsIndex<Ref> {
  /** The referenced test's outcome; `absent` when the results do not name it. */
  outcome(ref: Ref): Outcome;
}

/** Status of one recorded test run, before several runs of the same name are folded. */
export type RecordedStatus = "passed" | "failed" | "skipped";

/** Recorded status plus the runner's own status word when it differs (e.g. `todo`, `error`). */
export interface Recorded {
  status: RecordedStatus;
  detail?: string;
}

const SEVERITY: Record<RecordedStatus, number> = { passed: 0, skipped: 1, failed: 2 };

/**
 * Records `next` under `key`, keeping the worse of the two when a name was reported twice
 * (a test passes only if every run of that name passed).
 *
 * @param map results index being built
 * @param key runner-specific test key
 * @param next status just read
 */
export function recordWorst(map: Map<string, Recorded>, key: string, next: Recorded): void {
  const prev = map.get(key);
  if (prev === undefined || SEVERITY[next.status] > SEVERITY[prev.status]) map.set(key, next);
}

/**
 * Turns a recorded status (or none) into an {@link Outcome}.
 *
 * @param recorded what the index holds for the test, if anything
 * @param absentDetail why the test is absent, e.g. `absent from results/vitest.json`
 */
export function toOutcome(recorded: Recorded | undefined, absentDetail?: string): Outcome {
  if (recorded === undefined) {
    return absentDetail === undefined
      ? { status: "absent" }
      : { status: "absent", detail: absentDetail };
  }
  if (recorded.status === "passed") return { status: "passed" };
  return recorded.detail === undefined
    ? { status: recorded.status }
    : { status: recorded.status, detail: recorded.detail };
}

/** Thrown when a results file exists but cannot be understood. */
export class ResultsFormatError extends Error {
  /**
   * @param file results file name as shown to the user, e.g. `results/go.json`
   * @param reason what is wrong with it
   */
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = "ResultsFormatError";
  }
}
