/**
 * Issue #11 §5: exact-value tests for the ledger mutants Stryker found surviving
 * (stryker/incremental.json, CI subset): field escaping around surrogates and after a
 * special character (past the fast path), the exact errors of `unescapeLedgerField`,
 * code-point order at the surrogate boundaries, and harness paths behind `./` prefixes.
 * The mutants that stay alive are listed, with why they are equivalent, in
 * stryker/equivalent/ledger.md.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  type ContentHasher,
  canonicalLedgerText,
  compareCodePoints,
  compareRecords,
  contentDigest,
  effectDigest,
  escapeLedgerField,
  exceedsJsonDepth,
  isHarnessPath,
  MutationLedger,
  type MutationRecord,
  NOBLE_CONTENT_HASHER,
  observeToolResult,
  parseCanonicalLedgerText,
  sha256Hex,
  sortRecords,
  TurngateValidationError,
  toContentHasher,
  unescapeLedgerField,
} from "../../src/index.js";
import { digestOfLedgerRows } from "../../src/ledger/canonical.js";

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
    expect(rejection(() => unescapeLedgerField("\\q", "p"))).toEqual({
      message: "invalid canonical ledger text at p: bad escape at 0",
      path: "p",
    });
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

/** SHA-256 hex of the UTF-8 bytes of `text` by node:crypto (an independent implementation). */
function nodeSha(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The message of the TurngateValidationError `run` throws. */
function message(run: () => unknown): string {
  return rejection(run).message;
}

/** A deterministic pseudo-random source (LCG), so the sort inputs are the same every run. */
function lcg(seed: number): (n: number) => number {
  let x = seed >>> 0;
  return (n) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % n;
  };
}

describe("sortRecords: ledger order for every size", () => {
  // Units that stress the radix keys: ASCII, the chunk's top unit U+007E and above, BMP
  // private use (after astral in UTF-16, before it in code points) and astral characters.
  const UNITS = ["a", "b", "/", ".", "~", "\u007f", "é", "\ue000", "\u{1F600}", "z", "0"];
  const PREFIXES = ["", "src/", "src/components/very/long/shared/prefix/", "a", "a~", "~"];

  function rows(n: number, seed: number): MutationRecord[] {
    const next = lcg(seed);
    const out: MutationRecord[] = [];
    for (let i = 0; i < n; i++) {
      let path = PREFIXES[next(PREFIXES.length)] as string;
      const len = next(12);
      for (let k = 0; k < len; k++) path += UNITS[next(UNITS.length)] as string;
      out.push({
        tool: ["bash", "edit", "write"][next(3)] as string,
        path,
        content_digest: `${i}`,
      });
    }
    return out;
  }

  /** Reference: a stable sort with `compareRecords`; ids are the rows' original indices. */
  function expected(records: MutationRecord[]): string[] {
    return [...records].sort(compareRecords).map((r) => r.content_digest);
  }

  test.each([
    [9, 1],
    [24, 2],
    [25, 3],
    [40, 4],
    [200, 5],
    [1024, 6],
    [3000, 7],
  ])("%i rows (seed %i) sort as a stable compareRecords sort", (n, seed) => {
    const records = rows(n, seed);
    expect(sortRecords(records).map((r) => r.content_digest)).toEqual(expected(records));
  });

  test("long runs of equal paths and of paths the first chunk cannot split", () => {
    const records: MutationRecord[] = [];
    for (let i = 0; i < 60; i++) {
      const tool = ["write", "bash", "edit"][i % 3] as string;
      records.push({ tool, path: "same/path.ts", content_digest: `${i}` });
      records.push({ tool, path: `~x${i % 7}`, content_digest: `t${i}` });
      records.push({ tool, path: `p/${"q".repeat(i % 9)}~${i % 4}`, content_digest: `q${i}` });
    }
    expect(sortRecords(records).map((r) => r.content_digest)).toEqual(expected(records));
  });

  test("a fixed order: code points, then tool, then observation order", () => {
    const paths = ["b", "a~", "ab", "a", "\ue000", "\u{1F600}", "a/b", "a", "~", "aa"];
    const records: MutationRecord[] = [];
    for (let i = 0; i < 30; i++) {
      records.push({
        tool: i % 2 === 0 ? "write" : "bash",
        path: paths[i % paths.length] as string,
        content_digest: `${i}`,
      });
    }
    expect(
      sortRecords(records)
        .map((r) => r.content_digest)
        .join(" "),
    ).toBe("3 7 13 17 23 27 6 16 26 9 19 29 2 12 22 1 11 21 0 10 20 8 18 28 4 14 24 5 15 25");
  });
});

describe("ledgerOrder: radix keys that must not tie or invert", () => {
  /** `sortRecords` of rows with these paths (tool "t", ids = index), as `path#id`. */
  function order(paths: string[], tools?: string[]): string[] {
    const records = paths.map((path, i) => ({
      tool: tools?.[i] ?? "t",
      path,
      content_digest: `${i}`,
    }));
    return sortRecords(records).map((r) => `${r.path}#${r.content_digest}`);
  }

  test("a shorter path sorts before the same path followed by U+0000", () => {
    const paths = ["a\u0000", ...Array.from({ length: 24 }, (_, i) => `b${i}`), "a"];
    expect(order(paths).slice(0, 2)).toEqual(["a#25", "a\u0000#0"]);
  });

  test("the first differing unit decides, not a later one", () => {
    const paths = ["aXc", ...Array.from({ length: 24 }, () => "bXa")];
    expect(order(paths)[0]).toBe("aXc#0");
    expect(order(paths)[24]).toBe("bXa#24");
  });

  test("more than 24 rows of one path are ordered by tool, then observation", () => {
    const tools = Array.from({ length: 30 }, (_, i) => ["write", "bash", "edit"][i % 3] as string);
    const records = tools.map((tool, i) => ({ tool, path: "same", content_digest: `${i}` }));
    expect(sortRecords(records).map((r) => `${r.tool}#${r.content_digest}`)).toEqual([
      ...[1, 4, 7, 10, 13, 16, 19, 22, 25, 28].map((i) => `bash#${i}`),
      ...[2, 5, 8, 11, 14, 17, 20, 23, 26, 29].map((i) => `edit#${i}`),
      ...[0, 3, 6, 9, 12, 15, 18, 21, 24, 27].map((i) => `write#${i}`),
    ]);
  });
});

describe("sha256Hex and the ledger's text sink match node:crypto", () => {
  test.each([
    ["empty", ""],
    ["one ASCII unit", "a"],
    ["U+007F (last unit copied as a byte)", "\u007f"],
    ["U+0080 (first unit that is encoded)", "\u0080"],
    ["ASCII then U+0080", "abc\u0080"],
    ["256 ASCII units (the longest short text)", "x".repeat(256)],
    ["257 ASCII units", "y".repeat(257)],
    ["255 ASCII units and é", `${"z".repeat(255)}é`],
    ["a lone surrogate (U+FFFD)", "a\ud800b"],
    ["a long text in pieces", `${"é😀abc".repeat(30_000)}\ud800`],
    ["a long ASCII text (longer than the scratch buffer)", "abcdefgh".repeat(9000)],
  ])("%s", (_name, text) => {
    const want = nodeSha(text.replace(/[\ud800-\udfff]/gu, "\ufffd"));
    expect(sha256Hex(text)).toBe(want);
    // Twice: the reused hasher and scratch views give the same digest again.
    expect(sha256Hex(text)).toBe(want);
  });

  test("a digest after a longer text is not mixed with it", () => {
    sha256Hex("q".repeat(200));
    expect(sha256Hex("ab")).toBe(nodeSha("ab"));
  });

  test("a ledger of 400 rows (more pieces than one batch) hashes its canonical text", () => {
    const ledger = new MutationLedger();
    const paths: string[] = [];
    for (let i = 0; i < 400; i++) paths.push(`dir/file-${String(i).padStart(3, "0")}.ts`);
    ledger.observeUnseenPaths(paths);
    const text = paths.map((p) => `workspace|${p}|`).join("\n");
    expect(canonicalLedgerText(ledger.records)).toBe(text);
    expect(ledger.digest).toBe(nodeSha(text));
    expect(effectDigest(ledger.records)).toBe(nodeSha(text));
  });

  test("no rows hash to the empty digest", () => {
    expect(digestOfLedgerRows([])).toBe("");
  });

  test("a ledger of one row hashes exactly that row", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths(["only.ts"]);
    expect(ledger.digest).toBe(nodeSha("workspace|only.ts|"));
  });
});

describe("fields that need escaping are escaped in the effect digest", () => {
  test("a tool with a pipe (the plain-tool memo is per tool)", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("t|x", 0, { changed_paths: ["p"], after: "A" });
    ledger.observeTool("bash", 0, { changed_paths: ["q"], after: "A" });
    ledger.observeTool("t|x", 0, { changed_paths: ["r"], after: "A" });
    const a = nodeSha("A");
    const text = `t\\|x|p|${a}\nbash|q|${a}\nt\\|x|r|${a}`;
    expect(canonicalLedgerText(ledger.records)).toBe(text);
    expect(ledger.digest).toBe(nodeSha(text));
  });

  test("a tool and a path that both need escaping", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("t|x", 0, { changed_paths: ["p|q"], after: "A" });
    const text = `t\\|x|p\\|q|${nodeSha("A")}`;
    expect(ledger.digest).toBe(nodeSha(text));
  });

  test("a re-read digest that needs escaping on a plain path", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([{ path: "a", contentDigest: "x|y" }]);
    expect(ledger.digest).toBe(nodeSha("workspace|a|x\\|y"));
  });

  test("a path and a re-read digest with special characters", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([{ path: "a|b", contentDigest: "x\\y" }, "c\td"]);
    const text = "workspace|a\\|b|x\\\\y\nworkspace|c\\td|";
    expect(canonicalLedgerText(ledger.records)).toBe(text);
    expect(ledger.digest).toBe(nodeSha(text));
  });
});

describe("canonical text: exact errors", () => {
  test.each([
    [5, "invalid mutation records: expected an array"],
    [[null], "invalid mutation records at 0.tool: expected a string"],
    [[undefined], "invalid mutation records at 0.tool: expected a string"],
    [["row"], "invalid mutation records at 0.tool: expected a string"],
    [[{ tool: "t", path: "p" }], "invalid mutation records at 0.content_digest: expected a string"],
    [
      [
        { tool: "t", path: "p", content_digest: "" },
        { tool: "t", path: 1, content_digest: "" },
      ],
      "invalid mutation records at 1.path: expected a string",
    ],
  ])("%j", (records, text) => {
    expect(message(() => canonicalLedgerText(records as never))).toBe(text);
    expect(message(() => effectDigest(records as never))).toBe(text);
  });

  test.each([
    ["a|b", "invalid canonical ledger text at rows.0: expected 3 fields, found 2"],
    ["a|b|c\nd|e|f|g", "invalid canonical ledger text at rows.1: expected 3 fields, found 4"],
    ["\\q|b|c", "invalid canonical ledger text at rows.0.tool: bad escape at 0"],
    ["a|b|c\na|\\q|c", "invalid canonical ledger text at rows.1.path: bad escape at 0"],
    ["a|b|\\q", "invalid canonical ledger text at rows.0.content_digest: bad escape at 0"],
  ])("parseCanonicalLedgerText(%j)", (text, expectedMessage) => {
    expect(message(() => parseCanonicalLedgerText(text))).toBe(expectedMessage);
  });
});

describe("content digests: which metadata has a canonical JSON form", () => {
  test.each([
    ["booleans and numbers", { flag: true, off: false, n: 1 }, '{"flag":true,"n":1,"off":false}'],
    ["undefined values are dropped", { a: undefined, b: 1 }, '{"b":1}'],
    ["undefined array elements are null", { a: [1, undefined] }, '{"a":[1,null]}'],
    ["a surrogate pair", { a: "\u{1F600}" }, '{"a":"\u{1F600}"}'],
    ["U+DBFF U+DFFF", { a: "\udbff\udfff" }, '{"a":"\udbff\udfff"}'],
    ["U+D800 U+DFFF", { a: "\ud800\udfff" }, '{"a":"\ud800\udfff"}'],
    ["U+D800 U+DC00", { a: "\ud800\udc00" }, '{"a":"\ud800\udc00"}'],
    ["U+E000", { a: "\ue000" }, '{"a":"\ue000"}'],
    [
      "an array's own non-index property is not JSON",
      { a: Object.assign([1], { x: Number.NaN }) },
      '{"a":[1]}',
    ],
    ["toJSON stands for the object", { a: { toJSON: () => 2, bad: Number.NaN } }, '{"a":2}'],
  ])("%s", (_name, metadata, json) => {
    expect(contentDigest(metadata)).toBe(nodeSha(json));
  });

  test.each([
    [
      "a lone low surrogate",
      { a: "\udfff" },
      "invalid tool metadata at a: holds an unpaired UTF-16 surrogate",
    ],
    [
      "two low surrogates",
      { a: "\udc00\udc00" },
      "invalid tool metadata at a: holds an unpaired UTF-16 surrogate",
    ],
    [
      "a high surrogate before an ASCII unit",
      { a: "\ud800x" },
      "invalid tool metadata at a: holds an unpaired UTF-16 surrogate",
    ],
    [
      "a high surrogate before U+E000",
      { a: "\ud800\ue000" },
      "invalid tool metadata at a: holds an unpaired UTF-16 surrogate",
    ],
    [
      "a key with a lone surrogate",
      { "k\ud800": 1 },
      "invalid tool metadata at k\ud800: key holds an unpaired surrogate",
    ],
    [
      "a toJSON result",
      { a: { toJSON: () => Number.NaN } },
      "invalid tool metadata at a: is NaN, not a JSON number",
    ],
  ])("%s is refused", (_name, metadata, text) => {
    expect(message(() => contentDigest(metadata))).toBe(text);
  });

  test("a cycle is refused", () => {
    const a: Record<string, unknown> = { n: 1 };
    a.self = a;
    expect(message(() => contentDigest({ a }))).toBe(
      "invalid tool metadata at a.self: is a circular reference",
    );
  });

  test("each toJSON level counts towards the depth limit", () => {
    let value: unknown = 1;
    for (let i = 0; i < 600; i++) {
      const inner = value;
      value = { toJSON: () => inner };
    }
    expect(message(() => contentDigest(value))).toBe(
      "invalid tool metadata: nests deeper than 512 levels",
    );
  });
});

describe("exceedsJsonDepth on values that are not containers", () => {
  test.each([
    [null, 0, false],
    ["text", 0, false],
    [5, 0, false],
    [[], 0, true],
    [[[]], 1, true],
    [[[]], 2, false],
  ])("%j with max %i → %j", (value, max, deep) => {
    expect(exceedsJsonDepth(value, max)).toBe(deep);
  });
});

describe("toContentHasher", () => {
  test("null and undefined mean the default", () => {
    expect(toContentHasher(null)).toBe(NOBLE_CONTENT_HASHER);
    expect(toContentHasher(undefined)).toBe(NOBLE_CONTENT_HASHER);
    expect(new MutationLedger(null as never).hasher).toBe(NOBLE_CONTENT_HASHER);
  });

  test.each([[{ textSink: () => NOBLE_CONTENT_HASHER.textSink() }], [{ sha256Hex }]])(
    "a hasher without both functions is refused",
    (hasher) => {
      expect(rejection(() => toContentHasher(hasher))).toEqual({
        message:
          "invalid ledger options at hasher: expected an object with sha256Hex(text) and textSink() functions",
        path: "hasher",
      });
    },
  );
});

describe("MutationLedger: exact errors", () => {
  test.each([
    [
      "observeUnseenPaths, not an array",
      (l: MutationLedger) => l.observeUnseenPaths("a" as never),
      "invalid observed paths: expected an array",
    ],
    [
      "observeUnseenPaths, null element",
      (l: MutationLedger) => l.observeUnseenPaths(["a", null as never]),
      "invalid observed paths at 1: expected a string or {path, contentDigest}",
    ],
    [
      "observeUnseenPaths, bad path",
      (l: MutationLedger) => l.observeUnseenPaths([{ path: 1, contentDigest: "" } as never]),
      "invalid observed paths at 0.path: expected a string",
    ],
    [
      "observeUnseenPaths, bad digest",
      (l: MutationLedger) => l.observeUnseenPaths([{ path: "a" } as never]),
      "invalid observed paths at 0.contentDigest: expected a string",
    ],
    [
      "recordChildPaths, non-string id",
      (l: MutationLedger) => l.recordChildPaths(5 as never, []),
      "invalid child task at task_id: must not be blank",
    ],
    [
      "recordChildPaths, blank id",
      (l: MutationLedger) => l.recordChildPaths("  ", []),
      "invalid child task at task_id: must not be blank",
    ],
    [
      "recordChildPaths, not an array",
      (l: MutationLedger) => l.recordChildPaths("t", "a" as never),
      "invalid child paths: expected an array",
    ],
    [
      "recordEnvironmentPaths, null entry",
      (l: MutationLedger) => l.recordEnvironmentPaths([null as never]),
      "invalid environment paths at 0.path: expected a non-blank string",
    ],
    [
      "recordEnvironmentPaths, numeric path",
      (l: MutationLedger) => l.recordEnvironmentPaths([{ path: 5, contentDigest: "" } as never]),
      "invalid environment paths at 0.path: expected a non-blank string",
    ],
    [
      "recordEnvironmentPaths, bad digest",
      (l: MutationLedger) => l.recordEnvironmentPaths([{ path: "~/.npmrc" } as never]),
      "invalid environment paths at 0.contentDigest: expected a string",
    ],
    [
      "observationIncomplete",
      (l: MutationLedger) => {
        l.observationIncomplete = "yes" as never;
      },
      "invalid ledger at observation_incomplete: expected a boolean",
    ],
  ])("%s", (_name, run, text) => {
    const ledger = new MutationLedger();
    expect(message(() => run(ledger))).toBe(text);
    expect(ledger.records).toEqual([]);
  });

  test("fromJSON: a harness row from a tool, and a wrong digest", () => {
    expect(
      message(() =>
        MutationLedger.fromJSON({
          records: [{ tool: "write", path: ".git/x", content_digest: "" }],
          digest: "",
        }),
      ),
    ).toBe("invalid ledger snapshot at records.0.path: is blank, untrimmed or a harness path");
    expect(
      message(() =>
        MutationLedger.fromJSON({
          records: [{ tool: "workspace", path: "", content_digest: "" }],
          digest: "",
        }),
      ),
    ).toBe("invalid ledger snapshot at records.0.path: is blank, untrimmed or a harness path");
    expect(
      message(() =>
        MutationLedger.fromJSON({
          records: [{ tool: "t", path: "p", content_digest: "" }],
          digest: "x",
        }),
      ),
    ).toBe(
      `invalid ledger snapshot at digest: does not match the records (recomputed "${nodeSha("t|p|")}")`,
    );
  });
});

describe("MutationLedger: paths seen by re-reading the workspace", () => {
  test("plain strings: trimmed before ./ is stripped, repeated ones skipped", () => {
    const ledger = new MutationLedger();
    expect(ledger.observeUnseenPaths([" ./a ", " b ", "a", "b"])).toEqual(["a", "b"]);
    expect(ledger.paths).toEqual(["a", "b"]);
  });

  test("byte-exact paths: an empty path is dropped, a repeated path keeps its first digest", () => {
    const ledger = new MutationLedger();
    expect(
      ledger.observeUnseenPaths([
        { path: "", contentDigest: "d" },
        { path: "./", contentDigest: "d" },
        { path: "a", contentDigest: "d1" },
        { path: "a", contentDigest: "d2" },
      ]),
    ).toEqual(["a"]);
    expect(ledger.records).toEqual([{ tool: "workspace", path: "a", content_digest: "d1" }]);
  });

  test("a pending workspace row is replaced by a later re-read; other rows stay", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "a", after: "x" });
    ledger.observeUnseenPaths([
      { path: "b", contentDigest: "d1" },
      { path: "a", contentDigest: "d1" },
    ]);
    // No read in between: the rows are still pending.
    expect(ledger.observeUnseenPaths([{ path: "a", contentDigest: "d2" }])).toEqual(["a"]);
    expect(ledger.observeUnseenPaths([{ path: "a", contentDigest: "d2" }])).toEqual([]);
    expect(ledger.records).toEqual([
      { tool: "workspace", path: "a", content_digest: "d2" },
      { tool: "write", path: "a", content_digest: nodeSha("x") },
      { tool: "workspace", path: "b", content_digest: "d1" },
    ]);
  });

  test("a sorted workspace row is replaced; a tool row's digest does not stand for it", () => {
    const ledger = new MutationLedger();
    ledger.observeTool("write", 0, { file_path: "a", after: "x" });
    ledger.observeUnseenPaths([{ path: "b", contentDigest: nodeSha("x") }]);
    expect(ledger.size).toBe(2);
    expect(ledger.records.length).toBe(2);
    // The write row claims the same digest the re-read finds: the re-read still gets a row.
    expect(ledger.observeUnseenPaths([{ path: "a", contentDigest: nodeSha("x") }])).toEqual(["a"]);
    expect(ledger.size).toBe(3);
    expect(ledger.records.length).toBe(3);
    expect(ledger.observeUnseenPaths([{ path: "a", contentDigest: "d2" }])).toEqual(["a"]);
    expect(ledger.records).toEqual([
      { tool: "workspace", path: "a", content_digest: "d2" },
      { tool: "write", path: "a", content_digest: nodeSha("x") },
      { tool: "workspace", path: "b", content_digest: nodeSha("x") },
    ]);
  });

  test("contentDigestForPath: the last row of the path, also when it is the first row", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([
      { path: "a", contentDigest: "da" },
      { path: "b", contentDigest: "db" },
    ]);
    expect(ledger.contentDigestForPath("a")).toBe("da");
    expect(ledger.contentDigestForPath("b")).toBe("db");
    expect(ledger.contentDigestForPath("c")).toBe(undefined);
  });
});

describe("MutationLedger: background children", () => {
  test("ids are trimmed; each child is its own entry; settling one keeps the others", () => {
    const ledger = new MutationLedger();
    ledger.openChild({ task_id: " t1 " });
    ledger.openChild({ task_id: "t2" });
    ledger.openChild({ task_id: "t1" });
    expect(ledger.openChildren).toEqual([{ task_id: "t1" }, { task_id: "t2" }]);
    expect(ledger.recordChildPaths(" t1 ", ["./x", " y "])).toEqual([
      { tool: "task", path: "./x", content_digest: "" },
      { tool: "task", path: "y", content_digest: "" },
    ]);
    expect(ledger.openChildren).toEqual([{ task_id: "t2" }]);
  });
});

describe("MutationLedger: environment rows", () => {
  test("an environment row is kept apart from other tools, paths and digests", () => {
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths([{ path: "~/.npmrc", contentDigest: "d" }]);
    expect(ledger.recordEnvironmentPaths([{ path: "~/.npmrc", contentDigest: "d" }])).toEqual([
      { tool: "environment", path: "~/.npmrc", content_digest: "d" },
    ]);
    expect(
      ledger.recordEnvironmentPaths([
        { path: "~/.npmrc", contentDigest: "d" },
        { path: "~/.gitconfig", contentDigest: "d" },
        { path: "~/.npmrc", contentDigest: "e" },
      ]),
    ).toEqual([
      { tool: "environment", path: "~/.gitconfig", content_digest: "d" },
      { tool: "environment", path: "~/.npmrc", content_digest: "e" },
    ]);
  });

  test("within one call, an identical entry is added once; another path or digest is added", () => {
    const ledger = new MutationLedger();
    expect(
      ledger.recordEnvironmentPaths([
        { path: "~/a", contentDigest: "d" },
        { path: "~/a", contentDigest: "d" },
        { path: "~/b", contentDigest: "d" },
        { path: "~/a", contentDigest: "e" },
      ]),
    ).toEqual([
      { tool: "environment", path: "~/a", content_digest: "d" },
      { tool: "environment", path: "~/b", content_digest: "d" },
      { tool: "environment", path: "~/a", content_digest: "e" },
    ]);
    expect(ledger.size).toBe(3);
  });
});

describe("MutationLedger with a host hasher's ledgerDigest", () => {
  /** The default hasher plus a ledgerDigest that records the paths it is given. */
  function spyHasher(calls: string[][], digest = "native"): ContentHasher {
    return {
      sha256Hex,
      textSink: () => NOBLE_CONTENT_HASHER.textSink(),
      ledgerDigest(rows) {
        calls.push(rows.map((r) => r.path));
        const order = new Uint32Array(rows.length);
        const sorted = rows.map((r, i) => ({ r, i })).sort((x, y) => compareRecords(x.r, y.r));
        sorted.forEach((x, k) => {
          order[k] = x.i;
        });
        return { order, digest };
      },
    };
  }

  test("an empty ledger never calls it; the first rows reach it unsorted", () => {
    const calls: string[][] = [];
    const ledger = new MutationLedger({ hasher: spyHasher(calls) });
    expect(ledger.digest).toBe("");
    ledger.observeUnseenPaths(["b", "a"]);
    expect(ledger.digest).toBe("native");
    ledger.observeUnseenPaths(["c"]);
    expect(ledger.digest).toBe("native");
    expect(calls).toEqual([
      ["b", "a"],
      ["a", "b", "c"],
    ]);
    expect(ledger.paths).toEqual(["a", "b", "c"]);
  });

  test("a result without an order is refused", () => {
    const hasher: ContentHasher = { ...spyHasher([]), ledgerDigest: () => undefined as never };
    const ledger = new MutationLedger({ hasher });
    ledger.observeUnseenPaths(["a"]);
    expect(message(() => ledger.digest)).toBe(
      "invalid ledger hasher at hasher.ledgerDigest: expected order: a Uint32Array of 1 row indices",
    );
  });
});

describe("observeToolResult", () => {
  /** A successful nested call of `tool` with `metadata`. */
  const call = (tool: string, metadata: unknown) => ({
    tool,
    success: true,
    exit_code: 0,
    metadata,
  });

  test("exact errors for the tool and the exit code", () => {
    expect(rejection(() => observeToolResult(5 as never, 0, {}))).toEqual({
      message: "invalid tool result at tool: expected a string",
      path: "tool",
    });
    expect(rejection(() => observeToolResult("bash", 0.5, {}))).toEqual({
      message: "invalid tool result at exit_code: expected an integer",
      path: "exit_code",
    });
  });

  test("nothing observed is two empty lists", () => {
    expect(observeToolResult("bash", 0, {})).toEqual({ rows: [], workspaceChildren: [] });
  });

  test.each([
    ["A", "a"],
    ["Z", "z"],
    ["@[`{", "@[`{"],
    ["bAsH", "bash"],
  ])("tool %j is recorded as %j", (tool, key) => {
    expect(observeToolResult(tool, 0, { changed_paths: ["p"], after: "" }).rows).toEqual([
      { tool: key, path: "p", content_digest: nodeSha("") },
    ]);
  });

  test("nested calls: non-objects and empty names are skipped", () => {
    const metadata = {
      results: [
        null,
        "text",
        call("", { changed_paths: ["skipped"], after: "" }),
        call("bash", { changed_paths: ["kept"], after: "" }),
      ],
    };
    expect(observeToolResult("agent", 0, metadata).rows).toEqual([
      { tool: "bash", path: "kept", content_digest: nodeSha("") },
    ]);
  });

  test("a cycle through program.tool_calls names its path", () => {
    const inner: Record<string, unknown> = {};
    const metadata = {
      program: { tool_calls: [{ tool_name: "x", success: true, exit_code: 0, metadata: inner }] },
    };
    inner.results = [call("y", metadata)];
    expect(rejection(() => observeToolResult("agent", 0, metadata))).toEqual({
      message:
        "invalid tool result at metadata.program.tool_calls.0.metadata.results.0.metadata: nested tool calls form a cycle",
      path: "metadata.program.tool_calls.0.metadata.results.0.metadata",
    });
  });

  /** `levels` nested results, the innermost changing `deep.ts`. */
  function nested(levels: number): unknown {
    let metadata: unknown = { changed_paths: ["deep.ts"], after: "" };
    for (let i = 0; i < levels; i++) metadata = { results: [call("bash", metadata)] };
    return metadata;
  }

  test("64 nested levels are followed, 65 are refused", () => {
    expect(observeToolResult("agent", 0, nested(64)).rows).toEqual([
      { tool: "bash", path: "deep.ts", content_digest: nodeSha("") },
    ]);
    const path = `metadata${".results.0.metadata".repeat(65)}`;
    expect(rejection(() => observeToolResult("agent", 0, nested(65)))).toEqual({
      message: `invalid tool result at ${path}: nested tool calls deeper than 64 levels`,
      path,
    });
  });

  test("a toJSON that throws: a validation error gets the metadata's path, others pass through", () => {
    const withIssues = {
      changed_paths: ["a"],
      x: {
        toJSON: () => {
          throw new TurngateValidationError("inner", [{ path: "q", message: "no" }]);
        },
      },
    };
    expect(rejection(() => observeToolResult("bash", 0, withIssues))).toEqual({
      message: "invalid tool metadata at metadata.q: no",
      path: "metadata.q",
    });
    const noIssues = {
      changed_paths: ["a"],
      x: {
        toJSON: () => {
          throw new TurngateValidationError("inner", []);
        },
      },
    };
    expect(rejection(() => observeToolResult("bash", 0, noIssues))).toEqual({
      message: "invalid tool metadata at metadata: invalid",
      path: "metadata",
    });
    const boom = new Error("boom");
    const plain = {
      changed_paths: ["a"],
      x: {
        toJSON: () => {
          throw boom;
        },
      },
    };
    expect(() => observeToolResult("bash", 0, plain)).toThrow(boom);
  });
});
