import { RE2JS } from "re2js";
import { describe, expect, test } from "vitest";
import {
  compileRustRegex,
  MAX_REGEX_NESTING,
  MAX_REGEX_PATTERN_LENGTH,
  MAX_REGEX_PROGRAM_SIZE,
  rustIsMatch,
  rustReplaceAll,
} from "../../src/facts/rust-regex.js";
import { diagnosticDelta, InvalidRegexError } from "../../src/index.js";

const side = (message: string) => ({ diagnostics: [message] });

// A backtracking engine needs minutes for each of these (63 s, 21 s and 30 s measured with
// the previous RegExp translation at these sizes; the vitest timeout is 5 s); an automaton
// needs a few milliseconds. The assertions are on the results.
describe("host patterns run on a linear-time engine", () => {
  test("every compiled pattern is an re2js automaton, never a backtracking RegExp", () => {
    const re = compileRustRegex("(a+)+$");
    expect(re.direct).toBeInstanceOf(RE2JS);
    expect(re.marked).toBeNull();
    expect(compileRustRegex("\\bx\\b").marked?.inside).toBeInstanceOf(RE2JS);
  });

  test("strip_patterns (x+x+)+y on 30 x gives the exact delta", () => {
    const d = diagnosticDelta(side("x".repeat(30)), side("b"), { strip_patterns: ["(x+x+)+y"] });
    expect([d.status, d.reason, d.removed, d.added, d.count_delta]).toEqual([
      "advanced",
      "diagnostic_signature_set_changed",
      ["x".repeat(30)],
      ["b"],
      0,
    ]);
  });

  test("strip_patterns (x+x+)+y strips a 100000-character match down to nothing", () => {
    const d = diagnosticDelta(side(`${"x".repeat(100_000)}y tail`), side("b"), {
      strip_patterns: ["(x+x+)+y"],
    });
    expect(d.previous.signatures).toEqual(["tail"]);
  });

  test("ignore_patterns ^(a|a)*$ on 28 a and a bang ignores nothing", () => {
    const d = diagnosticDelta(side(`${"a".repeat(28)}!`), side("b"), {
      ignore_patterns: ["^(a|a)*$"],
    });
    expect([d.status, d.removed, d.added]).toEqual(["advanced", [`${"a".repeat(28)}!`], ["b"]]);
  });

  test("ignore_patterns (a+)+$ ignores the all-a signature and keeps the one ending in a bang", () => {
    const d = diagnosticDelta(side(`${"a".repeat(28)}!`), side("a".repeat(3000)), {
      ignore_patterns: ["(a+)+$"],
    });
    expect([d.status, d.reason, d.removed, d.added, d.current.count]).toEqual([
      "cleared",
      "current_result_is_passing",
      [`${"a".repeat(28)}!`],
      [],
      0,
    ]);
  });

  test("a pattern of 100000 nested parentheses is invalid_regex at its option path", () => {
    expect(() =>
      diagnosticDelta(side("a"), side("b"), { strip_patterns: ["(".repeat(100_000)] }),
    ).toThrow(
      expect.objectContaining({
        name: "InvalidRegexError",
        code: "invalid_regex",
        path: "strip_patterns.0",
        detail: `pattern longer than ${MAX_REGEX_PATTERN_LENGTH} UTF-16 code units`,
      }),
    );
  });

  test("nesting is limited to 250 groups, as Rust's default nest_limit", () => {
    expect(MAX_REGEX_NESTING).toBe(250);
    const nested = (n: number) => `${"(".repeat(n)}a${")".repeat(n)}`;
    expect(rustReplaceAll(compileRustRegex(nested(250)), "bab", "-")).toBe("b-b");
    expect(() =>
      diagnosticDelta(side("a"), side("b"), { ignore_patterns: ["x", nested(251)] }),
    ).toThrow(
      expect.objectContaining({
        code: "invalid_regex",
        path: "ignore_patterns.1",
        detail: "exceeds the nesting limit of 250 groups",
      }),
    );
    expect(() => compileRustRegex(`${"[".repeat(300)}a${"]".repeat(300)}`)).toThrow(
      expect.objectContaining({ detail: "exceeds the nesting limit of 250 classes" }),
    );
  });

  test("a pattern compiling past the program size limit is invalid_regex", () => {
    expect(MAX_REGEX_PROGRAM_SIZE).toBe(200_000);
    const big = "(?:[ab]{1000})".repeat(201);
    expect(() => compileRustRegex(big, "replacements.0.pattern")).toThrow(
      expect.objectContaining({
        code: "invalid_regex",
        path: "replacements.0.pattern",
        detail: "compiled pattern exceeds the size limit of 200000 instructions",
      }),
    );
  });
});

describe("constructs the linear translation spells differently", () => {
  test("case-insensitivity for part of a pattern, as in Rust", () => {
    expect(rustReplaceAll(compileRustRegex("a(?i)b"), "aB AB ab Ab", "-")).toBe("- AB - Ab");
    expect(rustReplaceAll(compileRustRegex("(?i:k)x"), "\u212ax Kx kX", "-")).toBe("- - kX");
  });

  test("Unicode word boundaries next to non-ASCII letters, digits and marks", () => {
    expect(rustReplaceAll(compileRustRegex("\\bcafé\\b"), "un café, cafés, écafé", "X")).toBe(
      "un X, cafés, écafé",
    );
    expect(rustReplaceAll(compileRustRegex("\\b"), "aé ٣!", "|")).toBe("|aé| |٣|!");
    expect(rustReplaceAll(compileRustRegex("\\B"), "aé ٣!", "|")).toBe("a|é ٣!|");
    expect(rustReplaceAll(compileRustRegex("\\b{end-half}"), "éa b", "|")).toBe("éa| b|");
    expect(rustReplaceAll(compileRustRegex("\\<\\w"), "😀x ñy", "<$0>")).toBe("😀<x> <ñ>y");
    expect(rustIsMatch(compileRustRegex("\\bfoo\\b"), "éfoo")).toBe(false);
    expect(rustIsMatch(compileRustRegex("\\bfoo\\b"), "—foo")).toBe(true);
  });

  test("class set operations under case-insensitivity", () => {
    expect(rustReplaceAll(compileRustRegex("(?i)[a-z&&[^aeiou]]+"), "AbCdE", "-")).toBe("A-E");
    expect(rustReplaceAll(compileRustRegex("[\\w--\\p{Greek}]+"), "aβc", "-")).toBe("-β-");
    expect(rustReplaceAll(compileRustRegex("[^\\W\\d]+"), "ab1 ç", "-")).toBe("-1 -");
  });

  test("known differences are rejected with a typed error, never matched differently", () => {
    const detail = (pattern: string) => {
      try {
        compileRustRegex(pattern, "strip_patterns.0");
      } catch (err) {
        if (err instanceof InvalidRegexError) return [err.path, err.detail];
      }
      return null;
    };
    expect(detail("a{1001}")).toEqual([
      "strip_patterns.0",
      "error parsing regexp: invalid repeat count: `{1001}`",
    ]);
    expect(detail("(?mR)^a")).toEqual([
      "strip_patterns.0",
      "multi-line anchors in CRLF mode (?mR) are not supported here",
    ]);
    expect(detail("\\bx(?-u:\\b)")).toEqual([
      "strip_patterns.0",
      "Unicode and ASCII ((?-u)) word boundaries in one pattern are not supported here",
    ]);
  });
});
