/**
 * Issue #11 §5: exact-value tests for the canonical ledger text (packages/core/src/ledger/
 * canonical.ts) where Stryker found mutants surviving: which fields count as plain, how
 * stored rows compare (natively only when both are flagged plain), the digest of no rows,
 * the exact errors for malformed records and for a malformed canonical text. The mutants
 * that stay alive are listed, with why they are equivalent, in
 * stryker/equivalent/ledger-canonical.md.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  canonicalLedgerText,
  effectDigest,
  MutationLedger,
  type MutationRecord,
  parseCanonicalLedgerText,
  TurngateValidationError,
} from "../../src/index.js";
import {
  compareLedgerRows,
  digestOfLedgerRows,
  digestOfSortedRecords,
  isPlainField,
  toLedgerRow,
} from "../../src/ledger/canonical.js";

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const HEX = "a".repeat(64);

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

describe("isPlainField: printable ASCII other than \\ and |", () => {
  test.each([
    ["", true],
    ["src/a b.ts", true],
    [" ~", true],
    ["[]{}", true],
    ["a|b", false],
    ["a\\b", false],
    ["a\tb", false],
    ["\x1f", false],
    ["\x7f", false],
    ["é", false],
    ["\u{1F600}", false],
  ])("%j → %s", (field, plain) => {
    expect(isPlainField(field)).toBe(plain);
  });
});

describe("a ledger's digest escapes the fields that are not plain", () => {
  test("a path with | and a content digest with \\ are escaped in the hashed text", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([{ path: "a|b", contentDigest: "x\\y" }, "c\td"]);
    const text = "workspace|a\\|b|x\\\\y\nworkspace|c\\td|";
    expect(canonicalLedgerText(ledger.records)).toBe(text);
    expect(ledger.digest).toBe(sha(text));
  });

  test("a tool name with | is escaped in the hashed text", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("ed|it", 0, { changed_paths: ["p"] });
    const [row] = ledger.records;
    const text = `ed\\|it|p|${row?.content_digest}`;
    expect(canonicalLedgerText(ledger.records)).toBe(text);
    expect(ledger.digest).toBe(sha(text));
  });
});

describe("stored rows in ledger order", () => {
  test("rows added after a flush merge in code-point order (U+FFFF before U+10000)", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([{ path: "\u{10000}", contentDigest: HEX }]);
    expect(ledger.paths).toEqual(["\u{10000}"]);
    ledger.observeUnseenPaths([{ path: "\uffff", contentDigest: HEX }]);
    expect(ledger.paths).toEqual(["\uffff", "\u{10000}"]);
    expect(ledger.digest).toBe(sha(`workspace|\uffff|${HEX}\nworkspace|\u{10000}|${HEX}`));
  });

  const row = (path: string, plain: boolean, tool = "t") =>
    toLedgerRow({ tool, path, content_digest: "" }, plain);

  test("rows not both flagged plain compare in code-point order", () => {
    // U+10000 is the surrogate pair D800 DC00: below U+FFFF in UTF-16 units, above it in code points.
    expect(compareLedgerRows(row("\u{10000}", false), row("\uffff", false))).toBe(1);
    expect(compareLedgerRows(row("\u{10000}", true), row("\uffff", false))).toBe(1);
    expect(compareLedgerRows(row("\u{10000}", false), row("\uffff", true))).toBe(1);
    expect(compareLedgerRows(row("\uffff", false), row("\u{10000}", false))).toBe(-1);
  });

  test("two rows flagged plain compare by UTF-16 units (the flag vouches for ASCII)", () => {
    expect(compareLedgerRows(row("\u{10000}", true), row("\uffff", true))).toBe(-1);
    expect(compareLedgerRows(row("b", true), row("a", true))).toBe(1);
    expect(compareLedgerRows(row("a", true), row("b", true))).toBe(-1);
    expect(compareLedgerRows(row("a", true, "x"), row("a", true, "y"))).toBe(-1);
    expect(compareLedgerRows(row("a", true, "y"), row("a", true, "x"))).toBe(1);
    expect(compareLedgerRows(row("a", true, "x"), row("a", true, "x"))).toBe(0);
  });

  test("toLedgerRow copies the three fields and the flag", () => {
    const record = { tool: "t", path: "p", content_digest: "d", extra: 1 } as MutationRecord;
    expect(toLedgerRow(record, true)).toEqual({
      tool: "t",
      path: "p",
      content_digest: "d",
      plain: true,
    });
  });
});

describe("the digest of no rows is the empty string", () => {
  test('digestOfLedgerRows and digestOfSortedRecords give "" for no rows', () => {
    expect(digestOfLedgerRows([])).toBe("");
    expect(digestOfSortedRecords([])).toBe("");
    expect(effectDigest([])).toBe("");
    expect(canonicalLedgerText([])).toBe("");
  });

  test("one plain and one escaped stored row hash their canonical text", () => {
    const rows = [
      toLedgerRow({ tool: "t", path: "a", content_digest: "d" }, true),
      toLedgerRow({ tool: "t", path: "b|c", content_digest: "" }, false),
    ];
    expect(digestOfLedgerRows(rows)).toBe(sha("t|a|d\nt|b\\|c|"));
  });
});

describe("malformed records: exact errors", () => {
  test.each([
    ["not an array", "abc", "invalid mutation records: expected an array"],
    ["null row", [null], "invalid mutation records at 0.tool: expected a string"],
    ["number row", [5], "invalid mutation records at 0.tool: expected a string"],
    ["undefined row", [undefined], "invalid mutation records at 0.tool: expected a string"],
    [
      "no content digest",
      [{ tool: "t", path: "p" }],
      "invalid mutation records at 0.content_digest: expected a string",
    ],
    [
      "numeric path in the second row",
      [
        { tool: "t", path: "p", content_digest: "" },
        { tool: "t", path: 1, content_digest: "" },
      ],
      "invalid mutation records at 1.path: expected a string",
    ],
  ])("%s", (_name, records, text) => {
    expect(message(() => canonicalLedgerText(records as never))).toBe(text);
    expect(message(() => effectDigest(records as never))).toBe(text);
  });
});

describe("parseCanonicalLedgerText: exact errors", () => {
  test.each([
    ["a|b", "invalid canonical ledger text at rows.0: expected 3 fields, found 2"],
    ["a|b|c\nd|e|f|g", "invalid canonical ledger text at rows.1: expected 3 fields, found 4"],
    ["a\\|b|c", "invalid canonical ledger text at rows.0: expected 3 fields, found 2"],
    ["\\q|b|c", "invalid canonical ledger text at rows.0.tool: bad escape at 0"],
    ["a|b|c\na|\\q|c", "invalid canonical ledger text at rows.1.path: bad escape at 0"],
    ["a|b|x\\q", "invalid canonical ledger text at rows.0.content_digest: bad escape at 1"],
  ])("%j", (text, expected) => {
    expect(message(() => parseCanonicalLedgerText(text))).toBe(expected);
  });

  test("a field ending in an escaped character splits at the next bar", () => {
    expect(parseCanonicalLedgerText("a\\\\|b\\||c")).toEqual([
      { tool: "a\\", path: "b|", content_digest: "c" },
    ]);
  });
});
