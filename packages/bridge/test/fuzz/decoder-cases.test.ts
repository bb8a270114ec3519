/**
 * Fuzzed results for the bindings' decoders (issue #11 §4): with the fixed seed, fuzzed
 * calls of every stateless method are answered in process; each success (valid against
 * protocol.json) becomes a `valid` case, and mutations of it (a field replaced, removed or
 * added; 0, 1e20, wrong types, deep nesting) become cases marked by ajv as valid or not.
 * The Python and Go tests read fixtures/decoder-cases.json: a valid case must decode, any case must
 * decode or raise the binding's typed protocol error — never a raw exception.
 * This test regenerates the file and fails when the checked-in copy differs (drift);
 * TURNGATE_UPDATE_FIXTURES=1 rewrites it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dispatchStateless, statelessMethodNames } from "@turngate/bridge/pure";
import { exceedsJsonDepth } from "@turngate/core";
import fc from "fast-check";
import { expect, test, vi } from "vitest";
import { applyEdits, callArbitrary, edit, matrixSeeds } from "./lib/arbitraries.js";
import { FIXED_SEED } from "./lib/config.js";
import { resultProblem } from "./lib/protocol-schema.js";

const FILE = new URL("fixtures/decoder-cases.json", import.meta.url);
const PER_METHOD = 12;
const MAX_CASE_BYTES = 3000;

interface Case {
  method: string;
  params: unknown;
  result: unknown;
  valid: boolean;
}

function generate(): Case[] {
  const methods = statelessMethodNames().filter((m) => m !== "shutdown" && m !== "initialize");
  const seeds = matrixSeeds().filter((s) => methods.includes(s.method));
  const cases: Case[] = [];
  const calls = fc.sample(callArbitrary(seeds, methods), { numRuns: 4000, seed: FIXED_SEED });
  const mutations = fc.sample(fc.array(edit, { minLength: 1, maxLength: 2 }), {
    numRuns: 4000,
    seed: FIXED_SEED + 1,
  });
  const perMethod = new Map<string, number>();
  let k = 0;
  for (const call of [...seeds, ...calls]) {
    if ((perMethod.get(call.method) ?? 0) >= PER_METHOD) continue;
    let result: unknown;
    try {
      result = JSON.parse(JSON.stringify(dispatchStateless(call.method, call.params)));
    } catch {
      continue;
    }
    const params = JSON.parse(JSON.stringify(call.params));
    if (JSON.stringify({ params, result }).length > MAX_CASE_BYTES) continue;
    perMethod.set(call.method, (perMethod.get(call.method) ?? 0) + 1);
    cases.push({
      method: call.method,
      params,
      result,
      valid: resultProblem(call.method, result) === null,
    });
    for (let j = 0; j < 3; j++) {
      const mutated = applyEdits(result, mutations[k++ % mutations.length] ?? []);
      let text: string;
      try {
        text = JSON.stringify(mutated);
      } catch {
        continue;
      }
      if (text === undefined || text.length > MAX_CASE_BYTES) continue;
      const value = JSON.parse(text);
      // Deeper than the bridge ever answers (its params stop at 512 levels) and than
      // Python's json module reads by default: not a decoder case.
      if (exceedsJsonDepth(value, 400)) continue;
      cases.push({
        method: call.method,
        params,
        result: value,
        valid: resultProblem(call.method, value) === null,
      });
    }
  }
  // Class 3 of the issue at the edges: the largest position the schema allows, and two it
  // does not (a decoder may refuse those, with its typed error).
  const diag = (line: unknown) => ({
    schema: "turngate.parsed_diagnostics.v1",
    format: "tsc",
    diagnostics: [
      {
        path: "a.ts",
        line,
        column: 1,
        severity: "error",
        code: "TS1",
        message: "m",
        source: "tsc",
      },
    ],
    unparsed: [],
  });
  for (const line of [9007199254740991, 0, 1e20]) {
    const result = diag(line);
    const params = { format: "tsc", text: "a.ts(1,1): error TS1: m" };
    cases.push({
      method: "facts.parse_diagnostics",
      params,
      result,
      valid: resultProblem("facts.parse_diagnostics", result) === null,
    });
  }
  return cases;
}

test("decoder-cases.json is the fuzzed results of the fixed seed (regenerated, no drift)", () => {
  // A method that reads the clock when its params give no time (facts.hud_model without
  // now_ms) must answer the same every run: the clock is pinned while the cases are made.
  vi.useFakeTimers({ now: new Date("2026-01-01T00:00:00.000Z"), toFake: ["Date"] });
  let cases: ReturnType<typeof generate>;
  try {
    cases = generate();
  } finally {
    vi.useRealTimers();
  }
  const text = `[\n${cases.map((c) => JSON.stringify(c)).join(",\n")}\n]\n`;
  if (process.env.TURNGATE_UPDATE_FIXTURES === "1") writeFileSync(FILE, text);
  const methods = new Set(cases.map((c) => c.method));
  expect(methods.size).toBeGreaterThanOrEqual(11);
  expect(cases.filter((c) => c.valid).length).toBeGreaterThan(100);
  expect(cases.filter((c) => !c.valid).length).toBeGreaterThan(50);
  expect(readFileSync(FILE, "utf8")).toBe(text);
});
