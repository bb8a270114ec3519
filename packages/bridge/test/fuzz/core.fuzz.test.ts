/**
 * Fuzz of @turngate/core (issue #11 §1): every exported function, and every method of the
 * exported classes, called with random arguments (hostile JSON values, deep nesting,
 * undefined). Invariant: it returns, or throws a `TurngateError` (the typed errors with a
 * stable `code`) — never a TypeError, RangeError or another untyped error. Arguments
 * include values nested 2,000–100,000 levels deep (class 1 of the issue: a recursive
 * helper meeting such a value overflows the stack).
 */
import * as core from "@turngate/core";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { deepRecipe, fuzzValue, materialize, weirdString } from "./lib/arbitraries.js";
import { fcRuns, fuzzTimeout } from "./lib/config.js";

type Fn = (...args: unknown[]) => unknown;
const isClass = (f: unknown): boolean =>
  typeof f === "function" && /^class\b/.test(Function.prototype.toString.call(f));
// Every exported function, none left out (the last 23 that threw untyped errors on hostile
// input — checkExit, shellWords, nearestRank, … — validate their arguments since issue #11).
const functions = Object.entries(core)
  .filter(([, v]) => typeof v === "function" && !isClass(v))
  .sort(([a], [b]) => (a < b ? -1 : 1)) as Array<[string, Fn]>;

const argument = fc.oneof(
  { weight: 8, arbitrary: fuzzValue },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: deepRecipe },
);
const args = fc.array(argument, { maxLength: 4 });

/**
 * Functions whose TypeScript signature takes strings, records or numbers (not `unknown`):
 * they are fuzzed with hostile values OF THOSE TYPES. Every other export accepts `unknown`
 * and gets any value in any position.
 */
const str = weirdString;
const strs = fc.array(weirdString, { maxLength: 4 });
const record = fc.record({ tool: str, path: str, content_digest: str });
const observation = fc.record({
  required_action: fc.oneof(fc.constantFrom("workspace_change", "none"), str),
});
const ledgerText = fc
  .array(fc.tuple(str, str, str), { maxLength: 3 })
  .map((rows) => rows.map((r) => r.join("|")).join("\n"));
const TYPED: Record<string, fc.Arbitrary<unknown[]>> = {
  acceptLedgerPath: fc.tuple(str),
  canonicalLedgerRow: fc.tuple(record),
  compareCodePoints: fc.tuple(str, str),
  compareRecords: fc.tuple(record, record),
  escapeLedgerField: fc.tuple(str),
  exitStatusMasked: fc.tuple(str),
  exitStatusMaskedBy: fc.tuple(str),
  externalObservationMessage: fc.tuple(strs),
  fnv1a64: fc.tuple(fc.oneof(str, fc.uint8Array({ maxLength: 64 }))),
  isHarnessPath: fc.tuple(str),
  normalizeShellCommand: fc.tuple(str),
  observationsBlockSuccess: fc.tuple(fc.array(observation, { maxLength: 3 })),
  openChildrenMessage: fc.tuple(strs),
  parseCanonicalLedgerText: fc.tuple(fc.oneof(str, ledgerText)),
  parseCargo: fc.tuple(str),
  parseEslint: fc.tuple(str),
  parseGoVet: fc.tuple(str),
  parsePyright: fc.tuple(str),
  parseRdjson: fc.tuple(str),
  parseRdjsonl: fc.tuple(str),
  parseRuff: fc.tuple(str),
  parseSarif: fc.tuple(str),
  parseTsc: fc.tuple(str),
  parseDiagnostics: fc.tuple(fc.oneof(fc.constantFrom(...core.DIAGNOSTIC_FORMATS), str), str),
  sha256Hex: fc.tuple(str),
  shellCommandCoversPreset: fc.tuple(str, str),
  sortRecords: fc.tuple(fc.array(record, { maxLength: 5 })),
  splitShellCommand: fc.tuple(str),
  truncateChars: fc.tuple(str, fc.integer({ min: -5, max: 10_000 })),
  unescapeLedgerField: fc.tuple(str),
  unverifiedMutationMessage: fc.tuple(str),
  exceedsJsonDepth: fc.tuple(argument, fc.integer({ min: -1, max: 2000 })),
  // The failure digest's text readers (found by fuzz rounds 552538367 and 10891511 after the
  // failure-digest merge): typed string and record arguments, fuzzed with hostile values of
  // those types.
  failureDigest: fc.tuple(
    fc.record(
      {
        output: fc.oneof(str, ledgerText),
        maxChars: fc.integer({ min: -5, max: 20_000 }),
        logPath: fc.option(str, { nil: null }),
      },
      { requiredKeys: ["output"] },
    ),
  ),
  messageLines: fc.tuple(fc.option(str, { nil: null }), fc.integer({ min: -5, max: 50 })),
  plainOutput: fc.tuple(
    fc.option(fc.constantFrom(...core.TEST_RESULT_FORMATS), { nil: null }),
    str,
  ),
  sniffFailures: fc.tuple(str),
  parseMochaSpec: fc.tuple(str),
  parseRunnerReport: fc.tuple(str),
};
// The record validators take (value: unknown, basePath?: string).
for (const name of Object.keys(core)) {
  if (/^parse[A-Z]/.test(name) && !(name in TYPED)) {
    TYPED[name] = fc.oneof(fc.tuple(argument), fc.tuple(argument, str));
  }
}
const SHARE = 0.2 / (functions.length + 2);

/** Untyped rejections of async core functions, collected by `typed` (checked by a test). */
const untypedRejections: string[] = [];
/** The settling of every promise a core function returned (awaited by the last test). */
const settling: Promise<void>[] = [];

function typed(name: string, run: () => unknown): void {
  try {
    const result = run();
    // An async function's rejection is judged like a throw (and never left unhandled).
    if (result instanceof Promise) {
      settling.push(
        result.then(
          () => undefined,
          (error: unknown) => {
            if (error instanceof core.TurngateError) return;
            const e = error as Error;
            untypedRejections.push(`${name} rejected with untyped ${e?.name}: ${e?.message}`);
          },
        ),
      );
    }
  } catch (error) {
    if (error instanceof core.TurngateError) return;
    const e = error as Error;
    throw new Error(`${name} threw untyped ${e?.name}: ${e?.message}`);
  }
}

describe("fuzz: @turngate/core functions", () => {
  test("the export list is what this suite fuzzes", () => {
    expect(functions.length).toBeGreaterThan(60);
  });

  test.each(functions.map(([name]) => name))(
    "%s returns or throws a TurngateError",
    (name) => {
      const fn = functions.find(([n]) => n === name)?.[1] as Fn;
      for (const params of fcRuns(40, SHARE))
        fc.assert(
          fc.property(TYPED[name] ?? args, (xs) => typed(name, () => fn(...xs.map(materialize)))),
          params,
        );
    },
    fuzzTimeout(30_000, SHARE),
  );

  test(
    "MutationLedger methods return or throw a TurngateError",
    () => {
      const methods = Object.getOwnPropertyNames(core.MutationLedger.prototype).filter(
        (m) => m !== "constructor",
      );
      expect(methods.length).toBeGreaterThan(3);
      for (const params of fcRuns(300, SHARE))
        fc.assert(
          fc.property(
            fc.array(fc.tuple(fc.constantFrom(...methods), args), { maxLength: 6 }),
            (steps) => {
              const ledger = new core.MutationLedger();
              for (const [m, xs] of steps) {
                const member = (ledger as unknown as Record<string, unknown>)[m];
                if (typeof member === "function")
                  typed(`MutationLedger.${m}`, () =>
                    (member as Fn).apply(ledger, xs.map(materialize)),
                  );
              }
            },
          ),
          params,
        );
    },
    fuzzTimeout(30_000, SHARE),
  );

  // Last in the file: waits until every promise returned above has settled.
  test("async core functions reject only with a TurngateError", async () => {
    expect(settling.length).toBeGreaterThan(0);
    await Promise.all(settling);
    expect(untypedRejections.slice(0, 10)).toEqual([]);
  });
});
