/**
 * Feeds vector cases to one method-calling function and collects the result file entries;
 * the part of a runner that does not depend on the runtime.
 */
import { jsonEqual } from "./json-equal.js";
import type { CaseResult, RuntimeResults } from "./results.js";
import type { VectorGroup } from "./vectors.js";

/** What calling one method gave: the result, or the error's `data.code`/`data.path`. */
export type CallOutcome = { actual: unknown } | { error_code: string; error_path: string | null };

/** Calls every case of every group in order and judges each against its own vector. */
export function runCases(
  runtime: string,
  groups: VectorGroup[],
  call: (method: string, params: unknown) => CallOutcome,
): RuntimeResults {
  const cases: CaseResult[] = [];
  for (const { group, cases: vectorCases } of groups) {
    for (const c of vectorCases) {
      const out = call(c.method, c.params);
      const ok =
        "actual" in out
          ? c.expect !== undefined && jsonEqual(out.actual, c.expect)
          : out.error_code === c.error_code &&
            (c.error_path === undefined || out.error_path === c.error_path);
      cases.push({ group, id: c.id, ok, ...out });
    }
  }
  return { runtime, cases };
}
