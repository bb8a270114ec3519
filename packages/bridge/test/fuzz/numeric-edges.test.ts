/**
 * Numbers at the edges, at every numeric field (issue 36): for every stateless method and
 * every test-matrix vector, each field the params schema of protocol.json types as a
 * number (declared or opaque: every number the vector holds) is set in turn to each edge —
 * ±(2^53−1), 2^53 + 2, ±1e20, ±1.7e308, 1.5, -1, the year-9999 millisecond and integer
 * strings past 2^53 or i64. Invariant, as in methods.fuzz.test.ts: a success validates
 * against the method's result schema; a refusal is a BridgeError with a documented code
 * whose path names a field of the params sent. Before issue 36, `options.exit: -1e20` gave
 * a success its own schema rejected (and eight more fields did the same). Deterministic:
 * no seed, about a second.
 */
import { dispatchStateless, isBridgeError, statelessMethodNames } from "@turngate/bridge/pure";
import { describe, expect, test } from "vitest";
import { cloneJson, matrixSeeds } from "./lib/arbitraries.js";
import { errorProblem, PROTOCOL, resultProblem } from "./lib/protocol-schema.js";

type Path = Array<string | number>;

/** The edges each numeric field gets. */
const EDGES: unknown[] = [
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1e20,
  -1e20,
  1.7e308,
  -1.7e308,
  1.5,
  -1,
  253_402_300_800_000,
  "9007199254740993",
  "-9223372036854775808",
  "99999999999999999999",
];

/** Every path the JSON schema `schema` types as a number or integer (arrays at index 0). */
function schemaNumberPaths(schema: unknown, prefix: Path, out: Path[], depth = 0): void {
  if (depth > 12 || typeof schema !== "object" || schema === null) return;
  const s = schema as Record<string, unknown>;
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
  if (types.includes("number") || types.includes("integer")) out.push(prefix);
  for (const k of ["anyOf", "oneOf", "allOf"])
    if (Array.isArray(s[k]))
      for (const x of s[k] as unknown[]) schemaNumberPaths(x, prefix, out, depth + 1);
  if (typeof s.properties === "object" && s.properties !== null)
    for (const [k, v] of Object.entries(s.properties))
      schemaNumberPaths(v, [...prefix, k], out, depth + 1);
  if (typeof s.items === "object" && s.items !== null)
    schemaNumberPaths(s.items, [...prefix, 0], out, depth + 1);
}

/** Every path of a number inside `value` (fields under opaque members included). */
function valueNumberPaths(value: unknown, prefix: Path, out: Path[], depth = 0): void {
  if (depth > 12) return;
  if (typeof value === "number") out.push(prefix);
  else if (Array.isArray(value))
    value.forEach((x, i) => {
      valueNumberPaths(x, [...prefix, i], out, depth + 1);
    });
  else if (typeof value === "object" && value !== null)
    for (const [k, x] of Object.entries(value)) valueNumberPaths(x, [...prefix, k], out, depth + 1);
}

/** A copy of `root` with `value` at `path` (missing objects and arrays created). */
function setAt(root: unknown, path: Path, value: unknown): unknown {
  const holder: Record<string | number, unknown> = { v: cloneJson(root) };
  let node = holder;
  let key: string | number = "v";
  for (const step of path) {
    let next = node[key];
    if (typeof next !== "object" || next === null) {
      next = typeof step === "number" ? [] : {};
      node[key] = next;
    }
    node = next as Record<string | number, unknown>;
    key = step;
  }
  node[key] = value;
  return holder.v;
}

/** The invariant violated by one call, or null. */
function problem(method: string, params: unknown): string | null {
  let result: unknown;
  try {
    result = dispatchStateless(method, params);
  } catch (error) {
    if (!isBridgeError(error)) return `threw a non-BridgeError: ${String(error)}`;
    return errorProblem(method, params, error.toWire());
  }
  return resultProblem(method, JSON.parse(JSON.stringify(result)));
}

describe("fuzz: numbers at the edges at every numeric field", () => {
  const methods = new Set(statelessMethodNames().filter((m) => m !== "shutdown"));
  const seeds = matrixSeeds().filter((s) => methods.has(s.method));

  test("the fields tried include the ones issue 36 found", () => {
    const paths = new Set<string>();
    for (const seed of seeds) {
      const found: Path[] = [];
      schemaNumberPaths(PROTOCOL.methods[seed.method]?.params, [], found);
      valueNumberPaths(seed.params, [], found);
      for (const p of found) paths.add(`${seed.method} ${p.join(".")}`);
    }
    for (const expected of [
      "facts.observation_from_command_result options.exit",
      "facts.observation_from_command_result result.exit_code",
      "facts.observation_from_command_result result.duration_ms",
      "facts.record_check_result options.duration_ms",
      "facts.hud_model options.now_ms",
      "facts.hud_model options.next_limit",
      "facts.hud_model state.started_ms",
      "facts.ladder_plan options.profiles.rows.0.timings.warmMs.p95",
    ])
      expect([expected, paths.has(expected)]).toEqual([expected, true]);
    expect(paths.size).toBeGreaterThan(150);
  });

  test("each edge at each numeric field: a valid success or a typed refusal at a real field", () => {
    const problems = new Set<string>();
    for (const seed of seeds) {
      const paths: Path[] = [];
      schemaNumberPaths(PROTOCOL.methods[seed.method]?.params, [], paths);
      valueNumberPaths(seed.params, [], paths);
      for (const path of paths)
        for (const edge of EDGES) {
          const p = problem(seed.method, setAt(seed.params, path, edge));
          if (p !== null)
            problems.add(`${seed.method} ${path.join(".")}=${JSON.stringify(edge)}: ${p}`);
        }
    }
    expect([...problems].slice(0, 20)).toEqual([]);
  });

  test("issue 36's counterexample is refused at options.exit", () => {
    let wire: unknown;
    try {
      dispatchStateless("facts.observation_from_command_result", {
        result: { ok: true, stderr: "warning" },
        options: { exit: -1e20 },
      });
    } catch (error) {
      wire = isBridgeError(error) ? error.toWire() : error;
    }
    const message =
      "options.exit: Out of range: expected an integer from -9007199254740991 to 9007199254740991";
    expect(wire).toEqual({
      code: -32602,
      message,
      data: { code: "invalid_params", message, path: "options.exit" },
    });
  });
});
