import * as z from "zod";
import type { ParsedTest, ParsedTestResults, TestStatus } from "../facts/test-results/types.js";
import { sortedUnique } from "../ledger/order.js";
import { type VerificationCheck, VerificationCheckSchema } from "../schemas/check.js";
import { validated } from "../validate.js";

/** Residual-risk word of a check whose run lost tests the last verified run had. */
export const TESTS_DISAPPEARED_RISK = "tests_disappeared";

/** Residual-risk word of a check whose run skips tests that passed in the last verified run. */
export const TESTS_SKIPPED_RISK = "tests_skipped";

/** At most this many test ids are named in one residual risk. */
export const VANISHED_LIST_MAX = 20;

/** What is kept of one test of the last verified run. */
export interface TestHistoryEntry {
  status: TestStatus;
  file: string | null;
  suite: string | null;
}

/** The tests of the last verified run of one check, by test id. */
export type TestHistory = Record<string, TestHistoryEntry>;

/** Tests of the last verified run that are gone (`disappeared`) or now skipped (`skipped`), ids in code-point order. */
export interface VanishedTests {
  disappeared: string[];
  skipped: string[];
}

const TestStatusSchema = z.enum(["passed", "failed", "skipped", "errored"]);
const HistoryEntrySchema = z.looseObject({
  status: TestStatusSchema,
  file: z.string().nullable(),
  suite: z.string().nullable(),
});
const TestListSchema = z.array(HistoryEntrySchema.extend({ id: z.string() }));
const TestHistorySchema = z.record(z.string(), HistoryEntrySchema);
const VanishedTestsSchema = z.looseObject({
  disappeared: z.array(z.string()),
  skipped: z.array(z.string()),
});

/**
 * The history entry of every test of a parsed run (`parseTestResults` output), by test
 * id. Throws `TurngateValidationError` (path `results`, `results.tests.N.status`, …) when
 * `results` has no list of tests with `id`, `status`, `file` and `suite`.
 */
export function testHistoryOf(results: ParsedTestResults): TestHistory {
  validated(z.looseObject({ tests: TestListSchema }), results, "test history", "results");
  const out: TestHistory = {};
  for (const t of results.tests) {
    const entry = { status: t.status, file: t.file, suite: t.suite };
    // A plain assignment to out["__proto__"] would set the prototype, losing the test.
    Object.defineProperty(out, t.id, {
      value: entry,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function dirOf(path: string): string {
  // No slash (-1) or a leading one (0): the empty directory.
  return path.slice(0, Math.max(path.lastIndexOf("/"), 0));
}

function sameOrUnder(value: string | null, path: string): boolean {
  return value !== null && value !== "" && (value === path || value.endsWith(`/${path}`));
}

/** `tests/test_a.py` → `tests.test_a`; `src/test/java/a/FooTest.java` → `src.test.java.a.FooTest`. */
function dotted(path: string): string {
  const slash = path.lastIndexOf("/");
  const dot = path.lastIndexOf(".");
  return (dot > slash ? path.slice(0, dot) : path).split("/").join(".");
}

/** A JUnit classname (`tests.test_a.TestCase`, `com.x.FooTest`) naming the module or class of `path`. */
function classnameOf(segment: string, path: string): boolean {
  const d = dotted(path);
  return segment === d || segment.startsWith(`${d}.`) || d.endsWith(`.${segment}`);
}

/**
 * Whether a vanished test is explained by a deleted (or renamed: deleted + added) file:
 * its `file`, or the file part of its id (before the first `::`, as pytest and Vitest ids
 * start), is that path (or ends with `/path`: runners may report absolute paths); a
 * segment of its suite is the JUnit classname of that file (`tests.test_a` for
 * `tests/test_a.py`, `com.x.FooTest` for `…/com/x/FooTest.java`); or, for a deleted Go
 * `_test.go` file, its suite is that file's package directory.
 */
function explainedByDeletion(
  id: string,
  entry: TestHistoryEntry,
  deleted: readonly string[],
): boolean {
  const head = id.includes("::") ? id.slice(0, id.indexOf("::")) : null;
  const segments = entry.suite?.split(" > ");
  return deleted.some(
    (p) =>
      sameOrUnder(entry.file, p) ||
      sameOrUnder(head, p) ||
      segments?.some((s) => classnameOf(s, p)) ||
      (p.endsWith("_test.go") && dirOf(p) !== "" && sameOrUnder(entry.suite, dirOf(p))),
  );
}

/**
 * Compare a run's tests with the last verified run's (issue #16 §3): `disappeared` are
 * the ids of the last verified run missing now — reported only when the run has fewer
 * ids than the last verified one (the denominator shrank) and the ledger's deleted paths
 * (`deletedPaths`, workspace-relative) do not explain them; `skipped` are ids that passed
 * then and are skipped now. Pure. Throws `TurngateValidationError` (path `previous.ID.status`,
 * `current.N.id`, `deleted_paths.N`, …) for a malformed argument.
 */
export function vanishedTests(
  previous: TestHistory,
  current: readonly ParsedTest[],
  deletedPaths: readonly string[],
): VanishedTests {
  validated(TestHistorySchema, previous, "vanished tests", "previous");
  validated(TestListSchema, current, "vanished tests", "current");
  validated(z.array(z.string()), deletedPaths, "vanished tests", "deleted_paths");
  const now = new Map(current.map((t) => [t.id, t]));
  const skipped: string[] = [];
  const missing: string[] = [];
  for (const [id, entry] of Object.entries(previous)) {
    const t = now.get(id);
    if (t === undefined) {
      if (!explainedByDeletion(id, entry, deletedPaths)) missing.push(id);
    } else if (entry.status === "passed" && t.status === "skipped") skipped.push(id);
  }
  const shrank = now.size < Object.keys(previous).length;
  // Code-point order, as every other list of a report (the ids are distinct already).
  return { disappeared: shrank ? sortedUnique(missing) : [], skipped: sortedUnique(skipped) };
}

function listed(ids: readonly string[]): string {
  const shown = ids.slice(0, VANISHED_LIST_MAX).join(", ");
  return ids.length > VANISHED_LIST_MAX
    ? `${shown}, … (+${ids.length - VANISHED_LIST_MAX} more)`
    : shown;
}

/**
 * A check marked for vanished tests (issue #16 §3): with disappeared or newly skipped
 * tests a `passed` check becomes `needs_review`, and every check gets the residual risk
 * `tests_disappeared: N tests of the last verified run are gone: a, b` and/or
 * `tests_skipped: N tests that passed in the last verified run are skipped: c` (at most
 * `VANISHED_LIST_MAX` ids each), appended to any residual risk it had. Unchanged when
 * nothing vanished. Pure. Throws `TurngateValidationError` (path `check.*`,
 * `vanished.disappeared.N`, …) for a malformed check or list.
 */
export function checkWithVanishedTests(
  check: VerificationCheck,
  vanished: VanishedTests,
): VerificationCheck {
  validated(VerificationCheckSchema, check, "vanished tests check", "check");
  validated(VanishedTestsSchema, vanished, "vanished tests check", "vanished");
  const risks: string[] = [];
  const n = (k: number) => `${k} test${k === 1 ? "" : "s"}`;
  if (vanished.disappeared.length > 0)
    risks.push(
      `${TESTS_DISAPPEARED_RISK}: ${n(vanished.disappeared.length)} of the last verified run ${vanished.disappeared.length === 1 ? "is" : "are"} gone: ${listed(vanished.disappeared)}`,
    );
  if (vanished.skipped.length > 0)
    risks.push(
      `${TESTS_SKIPPED_RISK}: ${n(vanished.skipped.length)} that passed in the last verified run ${vanished.skipped.length === 1 ? "is" : "are"} skipped: ${listed(vanished.skipped)}`,
    );
  if (risks.length === 0) return check;
  const risk = risks.join("; ");
  return {
    ...check,
    status: check.status === "passed" ? "needs_review" : check.status,
    residual_risk: check.residual_risk === undefined ? risk : `${check.residual_risk}; ${risk}`,
  };
}
