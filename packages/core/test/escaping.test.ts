/**
 * The canonical ledger text is injective (docs/design.md §3 change). Expected digests were computed
 * with coreutils from the escaped text written out in each test, e.g.
 *   printf '%s' 'write|a\|b|ca97…48bb' | sha256sum
 * (single quotes keep the backslash literal).
 */
import { describe, expect, test } from "vitest";
import {
  canonicalLedgerRow,
  canonicalLedgerText,
  effectDigest,
  escapeLedgerField,
  parseCanonicalLedgerText,
  TurngateValidationError,
  unescapeLedgerField,
} from "../src/index.js";

// printf '%s' a | sha256sum
const DA = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";

describe("canonical text escaping (docs/design.md §3)", () => {
  test("ordinary fields are written unchanged (A3S's text)", () => {
    for (const field of ["src/a.ts", "./x/y z.txt", "dír/ñ.md", "emoji/😀.txt", "a-b_c.d", ""]) {
      expect(escapeLedgerField(field)).toBe(field);
    }
  });

  test("each special character has its escape", () => {
    expect(escapeLedgerField("a\\b")).toBe("a\\\\b");
    expect(escapeLedgerField("a|b")).toBe("a\\|b");
    expect(escapeLedgerField("a\nb")).toBe("a\\nb");
    expect(escapeLedgerField("a\rb")).toBe("a\\rb");
    expect(escapeLedgerField("a\tb")).toBe("a\\tb");
    expect(escapeLedgerField("\u0000\u0001\u001f")).toBe("\\x00\\x01\\x1f");
    expect(escapeLedgerField("\u007f\u0085\u009f")).toBe("\\x7f\\x85\\x9f");
    expect(escapeLedgerField("a\ud800b")).toBe("a\\ud800b");
    expect(escapeLedgerField("\udc00")).toBe("\\udc00");
    expect(escapeLedgerField("😀\ud83d")).toBe("😀\\ud83d");
  });

  test("a path with a vertical bar has the hand-computed digest", () => {
    const rows = [{ tool: "write", path: "a|b", content_digest: DA }];
    expect(canonicalLedgerText(rows)).toBe(`write|a\\|b|${DA}`);
    // printf '%s' 'write|a\|b|ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb' | sha256sum
    expect(effectDigest(rows)).toBe(
      "def086e2028620aaf160c05d3f651c8d51bdd5ce3b9c466f4e52e11ce501c5dc",
    );
  });

  test("a path with a newline has the hand-computed digest", () => {
    const rows = [{ tool: "write", path: "x\ny", content_digest: DA }];
    expect(canonicalLedgerText(rows)).toBe(`write|x\\ny|${DA}`);
    // printf '%s' 'write|x\ny|ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb' | sha256sum
    // (printf's %s does not interpret the backslash: the text holds "\" and "n")
    expect(effectDigest(rows)).toBe(
      "7ddb99736e6c21ee5fd9b050ef20594b9818ce6c2fef8bca483e4bcbd1b0b3dc",
    );
  });

  test("ledgers that render the same unescaped A3S text get different digests", () => {
    // Unescaped, both render "write|a|D\nwrite|b|D".
    const one = [{ tool: "write", path: `a|${DA}\nwrite|b`, content_digest: DA }];
    const two = [
      { tool: "write", path: "a", content_digest: DA },
      { tool: "write", path: "b", content_digest: DA },
    ];
    const naive = (rows: typeof two) =>
      rows.map((r) => `${r.tool}|${r.path}|${r.content_digest}`).join("\n");
    expect(naive(one)).toBe(naive(two));
    expect(canonicalLedgerText(one)).not.toBe(canonicalLedgerText(two));
    expect(effectDigest(one)).not.toBe(effectDigest(two));
  });

  test("a literal backslash-n and a real newline are different paths", () => {
    const real = [{ tool: "write", path: "x\ny", content_digest: "" }];
    const literal = [{ tool: "write", path: "x\\ny", content_digest: "" }];
    expect(canonicalLedgerText(literal)).toBe("write|x\\\\ny|");
    expect(effectDigest(real)).not.toBe(effectDigest(literal));
  });

  test("unpaired surrogates that UTF-8 would both turn into U+FFFD stay distinct", () => {
    const a = [{ tool: "write", path: "\ud800", content_digest: "" }];
    const b = [{ tool: "write", path: "\ud801", content_digest: "" }];
    expect(effectDigest(a)).not.toBe(effectDigest(b));
  });

  test("parseCanonicalLedgerText inverts the text, escapes included", () => {
    const rows = [
      { tool: "bash|x", path: "a\\|b\n\tc\u0001\u0085\ud800", content_digest: "d|e" },
      { tool: "write", path: "z", content_digest: "" },
    ];
    expect(parseCanonicalLedgerText(canonicalLedgerText(rows))).toEqual(rows);
    expect(parseCanonicalLedgerText("")).toEqual([]);
    expect(unescapeLedgerField(escapeLedgerField("\\x41|"))).toBe("\\x41|");
    expect(canonicalLedgerRow({ tool: "t", path: "p|q", content_digest: "" })).toBe("t|p\\|q|");
  });

  test("malformed canonical text is rejected with a typed error", () => {
    for (const text of [
      "a|b",
      "a|b|c|d",
      "a|b\\|c",
      "a|b\\q|c",
      "a|b\\x4|c",
      "a|b\\",
      "a|b|c\\u12",
    ]) {
      expect(() => parseCanonicalLedgerText(text)).toThrow(TurngateValidationError);
    }
  });
});
