/**
 * The result file a runtime's runner writes (see README): one entry per case with the
 * result (`actual`) or the error (`error_code`, `error_path`).
 */

/** What one runtime answered for one case. */
export interface CaseResult {
  group: string;
  id: string;
  ok: boolean;
  actual?: unknown;
  error_code?: string;
  error_path?: string | null;
}

/** A runner's whole output. */
export interface RuntimeResults {
  runtime: string;
  cases: CaseResult[];
}

/**
 * Checks a parsed result file.
 * @throws Error naming the first malformed entry.
 */
export function checkResultsFile(value: unknown): RuntimeResults {
  const v = value as Partial<RuntimeResults> | null;
  if (
    typeof v !== "object" ||
    v === null ||
    typeof v.runtime !== "string" ||
    !Array.isArray(v.cases)
  ) {
    throw new Error('result file must be {"runtime": string, "cases": [...]}');
  }
  v.cases.forEach((c, i) => {
    if (
      typeof c !== "object" ||
      c === null ||
      typeof c.group !== "string" ||
      typeof c.id !== "string"
    ) {
      throw new Error(`result cases[${i}]: "group" and "id" must be strings`);
    }
    if (!("actual" in c) && typeof c.error_code !== "string") {
      throw new Error(`result cases[${i}] (${c.group}/${c.id}): needs "actual" or "error_code"`);
    }
  });
  return v as RuntimeResults;
}
