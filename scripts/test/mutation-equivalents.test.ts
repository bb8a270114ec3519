import { describe, expect, test } from "vitest";
import { type EquivalentEntry, entryMatches, parseEquivalents } from "../mutation/equivalents.js";
import { auditSurvivors, formatAudit, groupScores } from "../mutation/groups.js";
import { mergeIncremental } from "../mutation/merge.js";

const LIST = [
  "# Equivalent mutants: example",
  "",
  "## packages/core/src/ledger/escape.ts — the fast paths",
  "",
  "| mutant | why equivalent |",
  "| --- | --- |",
  "| 25:7 ConditionalExpression `!MAYBE_SPECIAL.test(field)` → `false` | no fast path |",
  "| 27:10 EqualityOperator `i < n` → `i <= n` | one more step |",
  "| 100:7 LogicalOperator `a \\|\\| b` → `a && …` | prefix |",
  "| 30:1 BlockStatement | any replacement |",
  "",
  "## `packages/core/src/gate/fold.ts`",
  '| 5:10 StringLiteral `"\\\\"` → `""` (in `path.includes`) | prose after the span |',
].join("\n");

const at = (line: number, column: number) => ({ start: { line, column } });

describe("equivalent mutants list (scripts/mutation/equivalents.ts)", () => {
  test("rows are read under their file heading, with replacement, prefix and position", () => {
    const entries = parseEquivalents(LIST, "stryker/equivalent/x.md");
    expect(entries.map(({ where, ...e }) => [where, e])).toEqual([
      [
        "stryker/equivalent/x.md:7",
        {
          file: "packages/core/src/ledger/escape.ts",
          line: 25,
          column: 7,
          mutator: "ConditionalExpression",
          replacement: "false",
          prefix: false,
        },
      ],
      [
        "stryker/equivalent/x.md:8",
        {
          file: "packages/core/src/ledger/escape.ts",
          line: 27,
          column: 10,
          mutator: "EqualityOperator",
          replacement: "i <= n",
          prefix: false,
        },
      ],
      [
        "stryker/equivalent/x.md:9",
        {
          file: "packages/core/src/ledger/escape.ts",
          line: 100,
          column: 7,
          mutator: "LogicalOperator",
          replacement: "a &&",
          prefix: true,
        },
      ],
      [
        "stryker/equivalent/x.md:10",
        {
          file: "packages/core/src/ledger/escape.ts",
          line: 30,
          column: 1,
          mutator: "BlockStatement",
          replacement: null,
          prefix: false,
        },
      ],
      [
        "stryker/equivalent/x.md:13",
        {
          file: "packages/core/src/gate/fold.ts",
          line: 5,
          column: 10,
          mutator: "StringLiteral",
          replacement: '""',
          prefix: false,
        },
      ],
    ]);
  });

  test("a malformed row or a row under no file heading is refused with its place", () => {
    expect(() => parseEquivalents("## a.ts\n| 25 Conditional | x |", "l.md")).toThrow(
      'l.md:2: expected "line:column Mutator" in the first cell, got "25 Conditional"',
    );
    expect(() => parseEquivalents("| 1:2 BlockStatement | x |", "l.md")).toThrow(
      'l.md:1: a table row under no "## <source path>" heading',
    );
    expect(() => parseEquivalents("## a.ts\n| 1:2 BlockStatement → false | x |", "l.md")).toThrow(
      'l.md:2: expected the replacement in backticks after "→", got "false"',
    );
  });

  test("matching needs file, position and mutator; the replacement exactly, by prefix, or any", () => {
    const [exact, , prefix, any] = parseEquivalents(LIST, "x.md") as EquivalentEntry[];
    const file = "packages/core/src/ledger/escape.ts";
    const m = { mutatorName: "ConditionalExpression", replacement: "false", location: at(25, 7) };
    expect(entryMatches(exact as EquivalentEntry, file, m)).toBe(true);
    expect(
      entryMatches(exact as EquivalentEntry, "packages\\core\\src\\ledger\\escape.ts", m),
    ).toBe(true);
    expect(entryMatches(exact as EquivalentEntry, file, { ...m, replacement: "true" })).toBe(false);
    expect(entryMatches(exact as EquivalentEntry, file, { ...m, location: at(25, 8) })).toBe(false);
    expect(
      entryMatches(exact as EquivalentEntry, file, { ...m, mutatorName: "BooleanLiteral" }),
    ).toBe(false);
    expect(entryMatches(exact as EquivalentEntry, "packages/core/src/ledger/order.ts", m)).toBe(
      false,
    );
    const logical = { mutatorName: "LogicalOperator", location: at(100, 7) };
    expect(
      entryMatches(prefix as EquivalentEntry, file, { ...logical, replacement: "a &&\n   b" }),
    ).toBe(true);
    expect(
      entryMatches(prefix as EquivalentEntry, file, { ...logical, replacement: "a || b" }),
    ).toBe(false);
    const block = { mutatorName: "BlockStatement", location: at(30, 1) };
    expect(entryMatches(any as EquivalentEntry, file, { ...block, replacement: "{}" })).toBe(true);
    expect(entryMatches(any as EquivalentEntry, file, { ...block })).toBe(true);
  });

  test("listed survivors leave the score; unlisted ones are printed; unused entries are stale", () => {
    const equivalents = parseEquivalents(LIST, "x.md");
    const file = "packages/core/src/ledger/escape.ts";
    const report = {
      files: {
        [file]: {
          mutants: [
            {
              status: "Killed",
              mutatorName: "BlockStatement",
              replacement: "{}",
              location: at(1, 1),
            },
            {
              status: "Survived",
              mutatorName: "ConditionalExpression",
              replacement: "false",
              location: at(25, 7),
            },
            {
              status: "NoCoverage",
              mutatorName: "BlockStatement",
              replacement: "{}",
              location: at(30, 1),
            },
            {
              status: "Survived",
              mutatorName: "StringLiteral",
              replacement: '""',
              location: at(40, 3),
            },
            // A killed mutant an entry names does not make the entry used.
            {
              status: "Killed",
              mutatorName: "EqualityOperator",
              replacement: "i <= n",
              location: at(27, 10),
            },
          ],
        },
      },
    };
    const [score] = groupScores(
      report,
      [{ name: "ledger", prefixes: ["packages/core/src/ledger/"], break: 50 }],
      equivalents,
    );
    expect(score).toEqual({
      name: "ledger",
      killed: 2,
      timeout: 0,
      survived: 1,
      noCoverage: 0,
      equivalent: 2,
      other: 0,
      score: (2 / 3) * 100,
      break: 50,
      failed: false,
    });
    const audit = auditSurvivors(report, equivalents);
    expect(formatAudit(audit)).toBe(
      [
        "unlisted survivors (1): kill each with a test or list it in stryker/equivalent/",
        '  packages/core/src/ledger/escape.ts:40:3 StringLiteral → `""` (Survived)',
        "stale equivalents entries (2): they name no surviving mutant; remove or correct them",
        "  x.md:8: packages/core/src/ledger/escape.ts 27:10 EqualityOperator",
        "  x.md:9: packages/core/src/ledger/escape.ts 100:7 LogicalOperator",
      ].join("\n"),
    );
    // fold.ts is not in the report: its entry is not judged; --only leaves escape.ts out too.
    expect(auditSurvivors(report, equivalents, ["packages/core/src/gate/"])).toEqual({
      unlisted: [],
      stale: [],
    });
  });
});

describe("folding narrowed Stryker runs (scripts/mutation/merge.ts)", () => {
  const base = {
    schemaVersion: "2",
    files: {
      "a.ts": { source: "a1", mutants: [{ id: "0", status: "Survived", coveredBy: ["0", "1"] }] },
      "b.ts": {
        source: "b1",
        mutants: [{ id: "0", status: "Killed", killedBy: ["1"], coveredBy: ["1"] }],
      },
      "gone.ts": { source: "g", mutants: [] },
    },
    testFiles: {
      "t1.test.ts": {
        source: "t1",
        tests: [
          { id: "0", name: "one" },
          { id: "1", name: "two" },
        ],
      },
    },
  };
  const part = {
    files: {
      "a.ts": {
        source: "a2",
        mutants: [{ id: "0", status: "Killed", killedBy: ["0"], coveredBy: ["0", "2"] }],
      },
    },
    testFiles: {
      "t2.test.ts": { source: "t2", tests: [{ id: "0", name: "new" }] },
      "t1.test.ts": {
        source: "t1",
        tests: [
          { id: "1", name: "one" },
          { id: "2", name: "two" },
        ],
      },
    },
  };
  const disk: Record<string, string> = {
    "a.ts": "a2",
    "b.ts": "b1",
    "t1.test.ts": "t1",
    "t2.test.ts": "t2",
  };

  test("each file keeps the entry recorded against its text on disk; test ids are renumbered", () => {
    const { report, counts } = mergeIncremental(base, [part], (f) => disk[f], ["a.ts", "b.ts"]);
    expect(counts).toEqual({ current: 2, stale: 0, dropped: 1, droppedTests: 0 });
    expect(report.schemaVersion).toBe("2");
    expect(report.testFiles).toEqual({
      "t1.test.ts": {
        source: "t1",
        tests: [
          { id: "0", name: "one" },
          { id: "1", name: "two" },
        ],
      },
      "t2.test.ts": { source: "t2", tests: [{ id: "2", name: "new" }] },
    });
    // a.ts from the part: its test "0" was t2's "new", its "2" was t1's "two".
    expect(report.files["a.ts"]).toEqual({
      source: "a2",
      mutants: [{ id: "0", status: "Killed", killedBy: ["2"], coveredBy: ["2", "1"] }],
    });
    expect(report.files["b.ts"]?.mutants).toEqual([
      { id: "0", status: "Killed", killedBy: ["1"], coveredBy: ["1"] },
    ]);
    expect(Object.keys(report.files)).toEqual(["a.ts", "b.ts"]);
  });

  test("no entry matching the disk: the last one is kept and counted stale; vanished tests are dropped", () => {
    const { report, counts } = mergeIncremental(
      base,
      [part],
      (f) => (f === "t2.test.ts" ? undefined : f === "a.ts" ? "a3" : disk[f]),
      ["a.ts"],
    );
    expect(counts).toEqual({ current: 1, stale: 1, dropped: 1, droppedTests: 2 });
    expect(report.files["a.ts"]?.mutants).toEqual([
      { id: "0", status: "Killed", killedBy: [], coveredBy: ["1"] },
    ]);
  });

  test("a part's entries for files it did not measure are ignored, even with the same text", () => {
    const stale = {
      files: {
        "b.ts": { source: "b1", mutants: [{ id: "0", status: "Survived", coveredBy: [] }] },
      },
    };
    const { report } = mergeIncremental(base, [stale], (f) => disk[f], ["a.ts"]);
    expect(report.files["b.ts"]?.mutants).toEqual([
      { id: "0", status: "Killed", killedBy: ["1"], coveredBy: ["1"] },
    ]);
    const measured = mergeIncremental(base, [stale], (f) => disk[f], ["b.ts"]).report;
    expect(measured.files["b.ts"]?.mutants).toEqual([
      { id: "0", status: "Survived", coveredBy: [] },
    ]);
  });

  test("a report without files is refused by its place", () => {
    expect(() => mergeIncremental(base, [{} as never], () => "", ["a.ts"])).toThrow(
      'parts[0]: not a Stryker report (no "files" object)',
    );
  });
});

describe("folding: test identity", () => {
  test("a test recorded with a location in one report and without in another is the same test", () => {
    const base = {
      files: {
        "a.ts": {
          source: "a",
          mutants: [{ id: "0", status: "Killed", killedBy: ["0"], coveredBy: ["0"] }],
        },
      },
      testFiles: { "t.test.ts": { source: "t", tests: [{ id: "0", name: "one" }] } },
    };
    const part = {
      files: {},
      testFiles: {
        "t.test.ts": {
          source: "t",
          tests: [{ id: "5", name: "one", location: { start: { line: 1, column: 1 } } }],
        },
      },
    };
    const { report, counts } = mergeIncremental(
      base,
      [part],
      (f) => ({ "a.ts": "a", "t.test.ts": "t" })[f],
      ["b.ts"],
    );
    expect(counts.droppedTests).toBe(0);
    expect(report.files["a.ts"]?.mutants).toEqual([
      { id: "0", status: "Killed", killedBy: ["0"], coveredBy: ["0"] },
    ]);
    expect(report.testFiles?.["t.test.ts"]?.tests).toEqual([
      { id: "0", name: "one", location: { start: { line: 1, column: 1 } } },
    ]);
  });
});
