import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { RUST_WHITESPACE_CLASS } from "../../src/facts/harn-values.js";
import { stripLocationSpans } from "../../src/facts/normalization.js";

// The single-pattern form of the §3.7 location pattern (Rust `[^\s:]+:[0-9]+(?::[0-9]+)?`),
// as the JS engine runs it: the reference the linear two-step scan must agree with.
const SINGLE = new RegExp(`[^${RUST_WHITESPACE_CLASS}:]+:[0-9]+(?::[0-9]+)?`, "gu");

describe("strip_locations scan", () => {
  test("replaces path:line[:col] spans with one space", () => {
    expect(stripLocationSpans("at src/a.ts:12:3 and b.rs:9, c:x d:1:y e:")).toBe(
      "at   and  , c:x  :y e:",
    );
    expect(stripLocationSpans("a:b:1 x1:2:3:4 😀é:7")).toBe("a:   :4  ");
    expect(stripLocationSpans("no location")).toBe("no location");
  });

  test("finds the same spans as the single pattern on arbitrary texts", () => {
    const char = fc.constantFrom("a", "1", "2", ":", " ", "\u00a0", "é", "😀", "\n");
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), (chars) => {
        const text = chars.join("");
        expect(stripLocationSpans(text)).toBe(text.replace(SINGLE, " "));
      }),
      { numRuns: 2000, seed: 1 },
    );
  });

  test("a 200000-character run without a location is left as it is", () => {
    const text = `${"x".repeat(200_000)} y:1`;
    expect(stripLocationSpans(text)).toBe(`${"x".repeat(200_000)}  `);
  });
});
