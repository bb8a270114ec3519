/**
 * Fuzz, in process (issue #11 §1): every stateless method of protocol.json called with
 * every test-matrix vector, mutations of them and random params. Invariants: a success
 * validates against the method's result schema in protocol.json (ajv) and survives
 * JSON.stringify; a refusal is a BridgeError with a documented data.code (never
 * internal_error) whose path names a field of the params as sent; the response line of
 * handleStatelessLine is one JSON-RPC message with the same id.
 */
import {
  dispatchStateless,
  handleStatelessLine,
  isBridgeError,
  statelessMethodNames,
} from "@turngate/bridge/pure";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { type Call, callArbitrary, matrixSeeds } from "./lib/arbitraries.js";
import { fcRuns, fuzzTimeout } from "./lib/config.js";
import { errorProblem, PROTOCOL, resultProblem } from "./lib/protocol-schema.js";

const methods = statelessMethodNames().filter((m) => m !== "shutdown");
const seeds = matrixSeeds().filter((s) => methods.includes(s.method) || s.method.endsWith(".nope"));

/** The invariant violated by one call, or null. */
function problem(call: Call): string | null {
  let result: unknown;
  try {
    result = dispatchStateless(call.method, call.params);
  } catch (error) {
    if (!isBridgeError(error)) return `threw a non-BridgeError: ${String(error)}`;
    return errorProblem(call.method, call.params, error.toWire());
  }
  let line: string;
  try {
    line = JSON.stringify(result);
  } catch (error) {
    return `result is not JSON-serialisable: ${String(error)}`;
  }
  return resultProblem(call.method, JSON.parse(line));
}

describe("fuzz: stateless methods in process", () => {
  test("every method of protocol.json is fuzzed and has a seed", () => {
    for (const m of methods) expect(Object.hasOwn(PROTOCOL.methods, m)).toBe(true);
    const seeded = new Set(seeds.map((s) => s.method));
    expect(methods.filter((m) => !seeded.has(m) && m !== "shutdown")).toEqual([]);
  });

  test("every test-matrix vector: a success validates against protocol.json, a refusal is typed at a real field", () => {
    const problems = seeds
      .map((s) => ({ s, p: problem(s) }))
      .filter((x) => x.p !== null)
      .map((x) => `${x.s.method}: ${x.p}`);
    expect(problems).toEqual([]);
  });

  test(
    "mutated and random params: a success validates against protocol.json, a refusal is typed at a real field",
    () => {
      for (const params of fcRuns(1500, 0.3))
        fc.assert(
          fc.property(callArbitrary(seeds, methods), (call) => {
            const p = problem(call);
            if (p !== null) throw new Error(`${call.method}: ${p}`);
          }),
          params,
        );
    },
    fuzzTimeout(60_000, 0.3),
  );

  test(
    "handleStatelessLine answers one JSON-RPC line with the id as sent",
    () => {
      const id = fc.oneof(
        fc.integer().map(String),
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
        fc.constantFrom("1.0", "1e3", "-0", "0.1000000000000000055511151231257827", "1E+400"),
        fc.string().map((s) => JSON.stringify(s)),
      );
      for (const params of fcRuns(400, 0.1))
        fc.assert(
          fc.property(callArbitrary(seeds, methods), id, (call, idText) => {
            const line = `{"jsonrpc":"2.0","id":${idText},"method":${JSON.stringify(call.method)},"params":${JSON.stringify(call.params)}}`;
            const out = handleStatelessLine(line);
            if (typeof out !== "string") throw new Error("no answer");
            const prefix = `{"jsonrpc":"2.0","id":${idText},`;
            if (!out.startsWith(prefix))
              throw new Error(`answer does not echo id ${idText}: ${out.slice(0, 120)}`);
            const reply = JSON.parse(out) as {
              result?: unknown;
              error?: { data: { code: string } };
            };
            if (reply.error?.data.code === "internal_error") throw new Error(out.slice(0, 300));
          }),
          params,
        );
    },
    fuzzTimeout(60_000, 0.1),
  );
});
