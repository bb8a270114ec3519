import * as z from "zod";
import type { ParsedTestResults } from "../facts/test-results/types.js";
import { type VerificationCheck, VerificationCheckSchema } from "../schemas/check.js";
import { validated } from "../validate.js";

/** Residual risk of a check whose results show no executed test. */
export const NO_TESTS_RAN_RISK = "no tests ran";

/** Prefix of the residual risk of a check whose results file is missing or unreadable. */
export const NO_STRUCTURED_RESULT_RISK = "no structured result";

/** At most this many ids are listed in a check's `failing_tests`. */
export const FAILING_TESTS_MAX = 100;

/** What the runner's structured results said: the parse, or why there is none. */
export type TestResultsEvidence =
  | { results: ParsedTestResults; problem?: undefined }
  | { results?: undefined; problem: string };

/** Input of `checkWithTestResults`. */
export interface TestResultsCheckInput {
  /** The check `checkFromExecution` derived from the exit status. */
  check: VerificationCheck;
  /** The command's exit code (null when it never ran). */
  exitCode: number | null;
  /** The command's `expect_exit`. */
  expectExit: number;
  /** Set when the command could not run to an exit (spawn failure, timeout, cancel). */
  executionError?: string;
  evidence: TestResultsEvidence;
}

const Count = z.number().int().min(0);
const TestStatusSchema = z.enum(["passed", "failed", "skipped", "errored"]);

/** What `checkWithTestResults` reads of a parse (`parseTestResults` output). */
export const TestResultsReadSchema = z.looseObject({
  tests: z.array(z.looseObject({ id: z.string(), status: TestStatusSchema })),
  totals: z.looseObject({ passed: Count, failed: Count, skipped: Count, errored: Count }),
  errors: z.array(z.looseObject({ message: z.string() })),
});

const TestResultsCheckInputSchema = z.looseObject({
  check: VerificationCheckSchema,
  exitCode: z.number().int().nullable(),
  expectExit: z.number().int(),
  executionError: z.string().optional(),
  evidence: z.union([
    z.looseObject({ results: TestResultsReadSchema, problem: z.undefined().optional() }),
    z.looseObject({ results: z.undefined().optional(), problem: z.string() }),
  ]),
});

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function joinRisk(existing: string | undefined, add: string): string {
  return existing === undefined ? add : `${existing}; ${add}`;
}

/**
 * The check of a command that declared structured test results (issue #16 §2): the
 * **consistent** combination of its exit status and what the tests said. Rules in order,
 * the first that applies wins:
 *
 * 1. the command could not run (spawn failure, timeout, cancel) → the check as derived
 *    (failed), with the counts when a results file was read anyway;
 * 2. no structured result (file missing, older than the run, unreadable, unparsable) →
 *    `needs_review` with residual risk `no structured result: {problem}` when the exit
 *    status matched; `failed` (the exit already said so) with that note otherwise;
 * 3. parsed failed or errored tests, or suite errors → `failed`; when the exit status
 *    matched, the residual risk says so: `exit 0 but 2 tests failed, 1 suite error: {first
 *    suite error}`;
 * 4. no test executed (every test skipped, or none) → never `passed`: `skipped` with
 *    residual risk `no tests ran` when the exit status matched, else `failed` with it;
 * 5. the exit status did not match but every parsed test passed → `needs_review`
 *    (`exit N but every parsed test passed (M tests)`);
 * 6. otherwise the check stays `passed`.
 *
 * Whenever results were read, the check carries `tests: {passed, failed, skipped,
 * errored}` and `failing_tests` (failed and errored ids, first `FAILING_TESTS_MAX`). Pure.
 * Throws `TurngateValidationError` naming the field (`check.status`, `exitCode`,
 * `evidence.results.totals.failed`, `evidence.problem`, …) when `input` is malformed.
 */
export function checkWithTestResults(input: TestResultsCheckInput): VerificationCheck {
  validated(TestResultsCheckInputSchema, input, "test results check", "");
  const { exitCode, expectExit, evidence } = input;
  const check: VerificationCheck = { ...input.check };
  const results = evidence.results;
  if (results) {
    const { passed, failed, skipped, errored } = results.totals;
    check.tests = { passed, failed, skipped, errored };
    const failing = results.tests
      .filter((t) => t.status === "failed" || t.status === "errored")
      .map((t) => t.id);
    if (failing.length > 0) check.failing_tests = failing.slice(0, FAILING_TESTS_MAX);
  }
  if (input.executionError !== undefined) return check;
  const exitOk = exitCode === expectExit;
  if (!results) {
    const risk = `${NO_STRUCTURED_RESULT_RISK}: ${evidence.problem}`;
    if (exitOk) return { ...check, status: "needs_review", residual_risk: risk };
    return { ...check, status: "failed", residual_risk: joinRisk(check.residual_risk, risk) };
  }
  const { failed, errored, passed, skipped } = results.totals;
  const suiteErrors = results.errors.length;
  if (failed + errored > 0 || suiteErrors > 0) {
    if (!exitOk) return { ...check, status: "failed" };
    const parts: string[] = [];
    if (failed > 0) parts.push(`${plural(failed, "test")} failed`);
    if (errored > 0) parts.push(`${plural(errored, "test")} errored`);
    if (suiteErrors > 0) {
      const first = (results.errors[0]?.message ?? "").split("\n")[0];
      parts.push(`${plural(suiteErrors, "suite error")}: ${first}`);
    }
    return {
      ...check,
      status: "failed",
      residual_risk: `exit ${exitCode} but ${parts.join(", ")}`,
    };
  }
  if (passed === 0) {
    const risk =
      skipped > 0 ? `${NO_TESTS_RAN_RISK} (${plural(skipped, "test")} skipped)` : NO_TESTS_RAN_RISK;
    if (exitOk) return { ...check, status: "skipped", residual_risk: risk };
    return { ...check, status: "failed", residual_risk: joinRisk(check.residual_risk, risk) };
  }
  if (!exitOk) {
    return {
      ...check,
      status: "needs_review",
      residual_risk: `exit ${exitCode} but every parsed test passed (${plural(passed + skipped, "test")})`,
    };
  }
  return check;
}
