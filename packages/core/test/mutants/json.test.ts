/**
 * Issue #11 §5: exact-value tests for the JSON rules of tool metadata (packages/core/src/
 * ledger/json.ts, reached through `contentDigest`) where Stryker found mutants surviving:
 * booleans, `undefined` in arrays and objects, array properties JSON drops, `toJSON`
 * results and their depth, cycles, unpaired surrogates in strings and keys at every
 * boundary, and `exceedsJsonDepth` on values that are not containers. The mutants that stay
 * alive are listed, with why they are equivalent, in stryker/equivalent/ledger-json.md.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { contentDigest, exceedsJsonDepth, TurngateValidationError } from "../../src/index.js";

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The message of the TurngateValidationError `run` throws. */
function message(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (!(error instanceof TurngateValidationError)) throw error;
    return error.message;
  }
  throw new Error("did not throw");
}

/** `levels` objects, each with a `toJSON` returning the next, around the number 1. */
function toJsonChain(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) {
    const inner = value;
    value = { toJSON: () => inner };
  }
  return value;
}

describe("metadata with a canonical JSON form hashes it", () => {
  test.each([
    ["booleans", { a: true, b: false }, '{"a":true,"b":false}'],
    ["undefined array elements as null", { a: [1, undefined] }, '{"a":[1,null]}'],
    ["undefined object values dropped", { a: undefined, b: 1 }, '{"b":1}'],
    ["array properties that JSON drops", { a: Object.assign([1], { x: Number.NaN }) }, '{"a":[1]}'],
    ["a toJSON result", { d: new Date(0) }, '{"d":"1970-01-01T00:00:00.000Z"}'],
  ])("%s", (_name, metadata, json) => {
    expect(contentDigest(metadata)).toBe(sha(json));
  });

  test.each([
    ["U+D7FF", "\ud7ff"],
    ["U+E000", "\ue000"],
    ["U+FFFF", "\uffff"],
    ["D800 DC00", "\ud800\udc00"],
    ["D800 DFFF", "\ud800\udfff"],
    ["DBFF DC00", "\udbff\udc00"],
    ["DBFF DFFF", "\udbff\udfff"],
    ["a pair between letters", "a\u{1F600}b"],
  ])("a string with %s is well formed", (_name, s) => {
    expect(contentDigest({ s })).toBe(sha(`{"s":"${s}"}`));
  });

  test("512 nested toJSON results are within the depth limit", () => {
    expect(contentDigest(toJsonChain(512))).toBe(sha("1"));
  });
});

describe("metadata without a canonical JSON form: exact errors", () => {
  test.each([
    ["D800 alone", "\ud800"],
    ["DBFF alone", "\udbff"],
    ["DC00 alone", "\udc00"],
    ["DFFF alone", "\udfff"],
    ["D800 before a letter", "\ud800a"],
    ["D800 before U+E000", "\ud800\ue000"],
    ["two low surrogates", "\udc00\udc00"],
    ["a low surrogate after a pair", "\ud800\udc00\udc00"],
  ])("a string with %s", (_name, s) => {
    expect(message(() => contentDigest({ s }))).toBe(
      "invalid tool metadata at s: holds an unpaired UTF-16 surrogate",
    );
  });

  test("a key with an unpaired surrogate", () => {
    expect(message(() => contentDigest({ a: { "k\ud800": 1 } }))).toBe(
      "invalid tool metadata at a.k\ud800: key holds an unpaired surrogate",
    );
  });

  // Issue 36 (fuzz seed 1563118123, path 20254): an empty key's segment was dropped, so
  // {"": [x, bad]} named `1`, a field that does not exist.
  test("an empty key is a segment of the path below the root", () => {
    expect(message(() => contentDigest({ "": ["a", "x\udfffy"] }))).toBe(
      "invalid tool metadata at .1: holds an unpaired UTF-16 surrogate",
    );
    expect(message(() => contentDigest({ a: { "": "x\udfffy" } }))).toBe(
      "invalid tool metadata at a.: holds an unpaired UTF-16 surrogate",
    );
    expect(message(() => contentDigest({ a: { "": { "": [Number.NaN] } } }))).toBe(
      "invalid tool metadata at a...0: is NaN, not a JSON number",
    );
    // …and so below an array element (an element is never at the base).
    expect(message(() => contentDigest({ a: [{ "": "x\udfffy" }] }))).toBe(
      "invalid tool metadata at a.0.: holds an unpaired UTF-16 surrogate",
    );
  });

  test("a circular reference", () => {
    const a: Record<string, unknown> = { n: 1 };
    a.self = a;
    expect(message(() => contentDigest({ a }))).toBe(
      "invalid tool metadata at a.self: is a circular reference",
    );
  });

  test("a toJSON result that is not JSON is checked, not the object's keys", () => {
    expect(message(() => contentDigest({ a: { toJSON: () => Number.NaN } }))).toBe(
      "invalid tool metadata at a: is NaN, not a JSON number",
    );
  });

  test("each toJSON result counts one level: 513 of them nest too deep", () => {
    expect(message(() => contentDigest(toJsonChain(513)))).toBe(
      "invalid tool metadata: nests deeper than 512 levels",
    );
  });
});

describe("exceedsJsonDepth: values that are not containers never exceed", () => {
  test.each([
    [null, 0],
    [null, 512],
    [5, 0],
    ["x", 0],
    [undefined, 0],
  ])("%j with max %d", (value, max) => {
    expect(exceedsJsonDepth(value, max)).toBe(false);
  });

  test("a container exceeds max 0", () => {
    expect(exceedsJsonDepth({}, 0)).toBe(true);
    expect(exceedsJsonDepth(null)).toBe(false);
  });
});
