import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { rustTrim } from "../../src/facts/harn-values.js";
import {
  compileRustRegex,
  InvalidRegexError,
  rustIsMatch,
  rustReplaceAll,
} from "../../src/facts/rust-regex.js";

// Each line: a case and the value Rust's regex 1.12.2 / str gave for it (fixtures/rust-regex/README).
interface Case {
  op: "replace_all" | "is_match" | "lowercase" | "trim";
  pattern?: string;
  replacement?: string;
  text: string;
  expected: { ok?: string | boolean; error?: string };
}
const cases: Case[] = readFileSync(
  new URL("fixtures/rust-regex/vectors.jsonl", import.meta.url),
  "utf8",
)
  .split("\n")
  .filter((l) => l !== "")
  .map((l) => JSON.parse(l) as Case);

function run(c: Case): { ok?: unknown; error?: string } {
  try {
    switch (c.op) {
      case "replace_all":
        return {
          ok: rustReplaceAll(compileRustRegex(c.pattern ?? ""), c.text, c.replacement ?? ""),
        };
      case "is_match":
        return { ok: rustIsMatch(compileRustRegex(c.pattern ?? ""), c.text) };
      case "lowercase":
        return { ok: c.text.toLowerCase() };
      case "trim":
        return { ok: rustTrim(c.text) };
    }
  } catch (err) {
    if (err instanceof InvalidRegexError) return { error: err.message };
    throw err;
  }
}

// Patterns Rust accepts that the linear-time translation rejects with InvalidRegexError
// (the known differences listed in fixtures/README.md and src/facts/rust-regex.ts).
const KNOWN_REJECTED = ["a{1001}", "(?:a{100}){11}", "(?mR)^a", "\\bx(?-u:\\b)"];

describe("Rust regex semantics", () => {
  test("replace_all, is_match, lowercase and trim agree with Rust on every recorded vector but the known rejected differences", () => {
    expect(cases.length).toBe(931);
    const mismatches = cases
      .map((c) => ({ c, got: run(c) }))
      .filter(({ c, got }) =>
        c.expected.error !== undefined ? got.error === undefined : got.ok !== c.expected.ok,
      )
      .map(({ c, got }) => ({
        op: c.op,
        pattern: c.pattern,
        text: c.text,
        expected: c.expected,
        got,
      }));
    expect(mismatches.filter((m) => !KNOWN_REJECTED.includes(m.pattern ?? ""))).toEqual([]);
    expect(mismatches.map((m) => [m.pattern, m.got.error?.startsWith("Invalid regex: ")])).toEqual(
      KNOWN_REJECTED.map((p) => [p, true]),
    );
  });

  test("patterns Rust rejects are InvalidRegexError with code invalid_regex and the field path", () => {
    expect(() => compileRustRegex("(?<=a)b", "ignore_patterns.0")).toThrow(
      expect.objectContaining({
        code: "invalid_regex",
        path: "ignore_patterns.0",
        message:
          'Invalid regex at ignore_patterns.0: look-around, including look-ahead and look-behind, is not supported (pattern "(?<=a)b")',
      }),
    );
    expect(() => compileRustRegex("(a)\\1")).toThrow(
      expect.objectContaining({
        code: "invalid_regex",
        detail: "backreferences are not supported",
      }),
    );
  });

  test("empty matches right after a match are skipped, as in Rust", () => {
    expect(rustReplaceAll(compileRustRegex("a*"), "baaab", "-")).toBe("-b-b-");
    expect("baaab".replace(/a*/g, "-")).toBe("-b--b-");
  });
});
