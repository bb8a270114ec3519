/**
 * Loading and checking the conformance vectors (`vectors/<group>.json`, see README).
 * No dependencies beyond node: (test-matrix is not a workspace package).
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

/** One case: a method call and either the exact result or the error it must raise. */
export interface VectorCase {
  id: string;
  method: string;
  params: unknown;
  expect?: unknown;
  error_code?: string;
  error_path?: string;
  note?: string;
}

/** The cases of one vector file; `group` is the file name without `.json`. */
export interface VectorGroup {
  group: string;
  cases: VectorCase[];
}

const CASE_KEYS = new Set(["id", "method", "params", "expect", "error_code", "error_path", "note"]);

/**
 * Checks one parsed vector file.
 * @throws Error naming the file, the case index and the problem (unknown key, duplicate id,
 *   both or neither of `expect`/`error_code`, …).
 */
export function checkVectorFile(group: string, value: unknown): VectorGroup {
  const fail = (where: string, message: string): never => {
    throw new Error(`vectors/${group}.json${where}: ${message}`);
  };
  if (!Array.isArray(value)) fail("", "expected an array of cases");
  const seen = new Set<string>();
  const cases = (value as unknown[]).map((raw, i): VectorCase => {
    const at = `[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      fail(at, "expected an object");
    const c = raw as Record<string, unknown>;
    for (const key of Object.keys(c)) if (!CASE_KEYS.has(key)) fail(at, `unknown key "${key}"`);
    if (typeof c.id !== "string" || c.id === "") fail(at, '"id" must be a non-empty string');
    if (seen.has(c.id as string)) fail(at, `duplicate id "${String(c.id)}"`);
    seen.add(c.id as string);
    if (typeof c.method !== "string") fail(at, '"method" must be a string');
    if (!("params" in c)) fail(at, '"params" is required');
    const hasExpect = "expect" in c;
    const hasError = "error_code" in c;
    if (hasExpect === hasError) fail(at, 'exactly one of "expect" and "error_code" is required');
    if (hasError && typeof c.error_code !== "string") fail(at, '"error_code" must be a string');
    if ("error_path" in c && (!hasError || typeof c.error_path !== "string")) {
      fail(at, '"error_path" must be a string next to "error_code"');
    }
    return c as unknown as VectorCase;
  });
  return { group, cases };
}

/** Every `*.json` file of `dir`, sorted by group name, checked. */
export function loadVectors(dir: string): VectorGroup[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .map((name) => basename(name, ".json"))
    .sort()
    .map((group) =>
      checkVectorFile(group, JSON.parse(readFileSync(join(dir, `${group}.json`), "utf8"))),
    );
}
