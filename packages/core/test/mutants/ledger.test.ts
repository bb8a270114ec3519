/**
 * Issue #11 §5: exact-value tests for the ledger mutants Stryker found surviving
 * (stryker/incremental.json, CI subset): field escaping around surrogates and after a
 * special character (past the fast path), the exact errors of `unescapeLedgerField`,
 * code-point order at the surrogate boundaries, and harness paths behind `./` prefixes.
 * The mutants that stay alive are listed, with why they are equivalent, in
 * stryker/equivalent/ledger.md.
 */
import { describe, expect, test } from "vitest";
import {
  compareCodePoints,
  escapeLedgerField,
  isHarnessPath,
  TurngateValidationError,
  unescapeLedgerField,
} from "../../src/index.js";

/** `{message, path}` of the TurngateValidationError `run` throws. */
function rejection(run: () => unknown): { message: string; path: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof TurngateValidationError)) throw error;
    return { message: error.message, path: error.path };
  }
  throw new Error("did not throw");
}

describe("escapeLedgerField: surrogates", () => {
  test.each([
    // [input, escaped]: well-formed pairs stay as they are, lone halves are \u escapes.
    ["\u{1F600}", "\u{1F600}"],
    ["\ud800\udc00", "\ud800\udc00"],
    ["\udbff\udfff", "\udbff\udfff"],
    ["\ud800\udfff", "\ud800\udfff"],
    ["\udfff", "\\udfff"],
    ["\udc00\udc00", "\\udc00\\udc00"],
    ["a\udc00", "a\\udc00"],
    ["\ud800\udc00\udc00", "\ud800\udc00\\udc00"],
    ["\ud800\ue000", "\\ud800\ue000"],
    // After a character that needs escaping (past the fast path and the first scan).
    ["|\u{1F600}", "\\|\u{1F600}"],
    ["|\ud800\udc00", "\\|\ud800\udc00"],
    ["|\udbff\udfff", "\\|\udbff\udfff"],
    ["|\udc00\udc00", "\\|\\udc00\\udc00"],
    ["|\udfff", "\\|\\udfff"],
    ["|\ud800", "\\|\\ud800"],
    ["|\uff71\ue000", "\\|\uff71\ue000"],
  ])("%j → %j", (input, escaped) => {
    expect(escapeLedgerField(input)).toBe(escaped);
    expect(unescapeLedgerField(escaped)).toBe(input);
  });
});

describe("unescapeLedgerField: exact errors", () => {
  test.each([
    ["a|b", 'invalid canonical ledger text at field: raw "|" at 1'],
    ["ab\n", 'invalid canonical ledger text at field: raw "\\n" at 2'],
    ["\\q", "invalid canonical ledger text at field: bad escape at 0"],
    ["a\\", "invalid canonical ledger text at field: bad escape at 1"],
    ["\\xg1", "invalid canonical ledger text at field: bad \\x escape at 0"],
    ["\\x1g", "invalid canonical ledger text at field: bad \\x escape at 0"],
    ["\\x1", "invalid canonical ledger text at field: bad \\x escape at 0"],
    ["\\u12345".slice(0, 5), "invalid canonical ledger text at field: bad \\u escape at 0"],
    ["\\uD800", "invalid canonical ledger text at field: bad \\u escape at 0"],
  ])("%j", (field, message) => {
    expect(rejection(() => unescapeLedgerField(field))).toEqual({ message, path: "field" });
  });

  test("the path argument names the field", () => {
    expect(rejection(() => unescapeLedgerField("a|b", "rows.2.path"))).toEqual({
      message: 'invalid canonical ledger text at rows.2.path: raw "|" at 1',
      path: "rows.2.path",
    });
    try {
      unescapeLedgerField("\\q", "p");
    } catch (error) {
      expect((error as TurngateValidationError).issues).toEqual([
        { path: "p", message: "bad escape at 0" },
      ]);
    }
  });

  test("every escape decodes", () => {
    expect(unescapeLedgerField("\\\\\\|\\n\\r\\t\\x01\\x7f\\ud800")).toBe(
      "\\|\n\r\t\u0001\u007f\ud800",
    );
  });
});

describe("compareCodePoints at the surrogate boundaries", () => {
  test.each([
    // [a, b, sign]: astral characters (surrogates) sort after U+E000–U+FFFF.
    ["\u{10000}", "\ue000", 1],
    ["\ue000", "\u{10000}", -1],
    ["\uffff", "\u{10000}", -1],
    ["\ud7ff", "\ue000", -1],
    ["\ue000", "\ud7ff", 1],
    ["\ud7ff", "\u{10000}", -1],
    ["\u{10000}", "\ud7ff", 1],
    ["a", "ab", -1],
    ["ab", "a", 1],
    ["abc", "abd", -1],
    ["\u{10000}x", "\u{10000}y", -1],
  ])("%j vs %j", (a, b, sign) => {
    expect(Math.sign(compareCodePoints(a, b))).toBe(sign);
  });

  test("exact differences", () => {
    expect(compareCodePoints("same", "same")).toBe(0);
    expect(compareCodePoints("", "")).toBe(0);
    // Longer strings: the shorter length bounds the scan, then the lengths decide.
    expect(compareCodePoints("abc", "ab")).toBe(1);
    expect(compareCodePoints("ab", "abcd")).toBe(-2);
    // U+E000 (shifted down by 0x800) vs U+D800 (a high surrogate, shifted up by 0x2000).
    expect(compareCodePoints("\ue000", "\ud800\udc00")).toBe(0xe000 - 0x800 - (0xd800 + 0x2000));
    expect(compareCodePoints("\ue001", "\ue000")).toBe(1);
  });
});

describe("isHarnessPath behind prefixes", () => {
  test.each([
    ["./.git/config", true],
    ["././.turngate/state.json", true],
    [".\\.git\\HEAD", true],
    ["sub/./.git/x", true],
    ["undefined/.x", false],
    ["a./.git", false],
    [".gitignore", false],
    ["./src/a.ts", false],
    ["src/.git/config", true],
    [".turngate", true],
    [".a3s-code/x", true],
    [".a3s-codex", false],
  ])("%j → %j", (path, harness) => {
    expect(isHarnessPath(path)).toBe(harness);
  });
});
