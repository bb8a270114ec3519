/**
 * Issue #11 §5: `ledgerOrder` (packages/core/src/ledger/row-order.ts), the permutation that
 * puts ledger rows in order (A3S §2.1: path, then tool, in code-point order; equal rows keep
 * their index order). Above 24 rows it is an MSD radix sort over packed 7-bit chunks of the
 * path; these tests give it inputs that take every branch of it — groups the chunk does not
 * split, runs refined over three rounds, code units from U+007E up in the middle of a chunk,
 * NUL, astral and U+E000–U+FFFF characters — and expect exactly the permutation of a stable
 * sort by `compareCodePoints`. The mutants that stay alive are listed, with why they are
 * equivalent, in stryker/equivalent/ledger-row-order.md.
 */
import { describe, expect, test } from "vitest";
import { compareCodePoints } from "../../src/ledger/order.js";
import { ledgerOrder } from "../../src/ledger/row-order.js";

/** Row indices in ledger order by a plain stable sort (the definition `ledgerOrder` meets). */
function stableOrder(paths: readonly string[], tools: readonly string[]): number[] {
  return paths
    .map((_, i) => i)
    .sort(
      (a, b) =>
        compareCodePoints(paths[a] as string, paths[b] as string) ||
        compareCodePoints(tools[a] as string, tools[b] as string),
    );
}

/** `ledgerOrder` as a plain array, every row with the tool `write` unless `tools` is given. */
function order(paths: readonly string[], tools?: readonly string[]): number[] {
  return Array.from(ledgerOrder(paths, tools ?? paths.map(() => "write")));
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` letters from `first` on: "a", "b", … */
function letters(count: number, first = "a"): string[] {
  return Array.from({ length: count }, (_, i) => String.fromCharCode(first.charCodeAt(0) + i));
}

describe("ledgerOrder: up to 24 rows (compared directly)", () => {
  test("two rows out of order are swapped", () => {
    expect(order(["b", "a"])).toEqual([1, 0]);
  });

  test("no rows give an empty order, one row stays", () => {
    expect(order([])).toEqual([]);
    expect(order(["only"])).toEqual([0]);
  });

  test("equal paths are ordered by tool, equal (path, tool) rows keep their index order", () => {
    expect(order(["x", "x", "x", "a", "x"], ["write", "edit", "write", "write", "edit"])).toEqual([
      3, 1, 4, 0, 2,
    ]);
  });
});

describe("ledgerOrder: more than 24 rows (packed chunks)", () => {
  test("30 rows of one path are ordered by tool, then by index", () => {
    const tools = Array.from({ length: 30 }, (_, i) => ["write", "edit", "apply"][i % 3] as string);
    const paths = tools.map(() => "src/same/file.ts");
    expect(order(paths, tools)).toEqual([
      2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 0, 3, 6, 9, 12, 15,
      18, 21, 24, 27,
    ]);
  });

  test("rows that share their first chunk but not their order by index are refined", () => {
    // Rows 0 and 1 share "bbbbbb" (one chunk) and come in reverse order; rows 2–26 sort
    // after them in index order.
    const paths = ["bbbbbbz", "bbbbbba", ...letters(25).map((c) => `c${c}`)];
    expect(order(paths)).toEqual([1, 0, ...Array.from({ length: 25 }, (_, i) => i + 2)]);
  });

  test("a run of more than 24 rows sharing a chunk is refined in the next round", () => {
    // 25 rows "aaaaaa" + a letter, in reverse letter order, then two rows after them.
    const run = letters(25)
      .reverse()
      .map((c) => `aaaaaa${c}`);
    const paths = [...run, "bbbbbbz", "bbbbbba"];
    expect(order(paths)).toEqual([...Array.from({ length: 25 }, (_, i) => 24 - i), 26, 25]);
  });

  test("a placed run right after a refined group keeps its own order", () => {
    // Round 1: "aaaaaa…" (25 rows, refined next round), then "bbbbbbz" before "bbbbbba" by
    // index, put in order by comparing.
    const paths = ["bbbbbbz", "bbbbbba", ...letters(25).map((c) => `aaaaaa${c}`)];
    expect(order(paths)).toEqual([...Array.from({ length: 25 }, (_, i) => i + 2), 1, 0]);
  });

  test("the last run of a refined group ends at the group's end, whatever follows it", () => {
    // Round 2 splits the "aaaaaa" group by its second chunk into "aaaaaa" and "bbbbbb" — the
    // same chunk as the rows placed after the group in round 1.
    const paths = [
      ...letters(13)
        .reverse()
        .map((c) => `aaaaaaaaaaaa${c}`),
      ...letters(13)
        .reverse()
        .map((c) => `aaaaaabbbbbb${c}`),
      "bbbbbbz",
      "bbbbbba",
    ];
    expect(order(paths)).toEqual([
      ...Array.from({ length: 26 }, (_, i) => (i < 13 ? 12 - i : 38 - i)),
      27,
      26,
    ]);
  });

  test("two neighbouring groups refined in the same round", () => {
    const a = letters(25)
      .reverse()
      .map((c) => `aaaaaa${c}`);
    const b = letters(25)
      .reverse()
      .map((c) => `aaaaab${c}`);
    const paths = [...a, ...b];
    expect(order(paths)).toEqual(Array.from({ length: 50 }, (_, i) => (i < 25 ? 24 - i : 74 - i)));
  });

  test("a group refined in the same round right after one keeps that group's last row", () => {
    // Round 2 refines "aaaaaa…" (row 0 "aaaaaab", then 25 rows "aaaaaazzzzzz" + a letter,
    // descending by index, which round 3 refines) and right after it "aaaaab…" (25 rows);
    // the last row, "z", keeps round 1 from skipping a shared "aaaaa".
    const paths = [
      "aaaaaab",
      ...letters(25)
        .reverse()
        .map((c) => `aaaaaazzzzzz${c}`),
      ...letters(25).map((c) => `aaaaab${c}`),
      "z",
    ];
    expect(order(paths)).toEqual([
      0,
      ...Array.from({ length: 25 }, (_, i) => 25 - i),
      ...Array.from({ length: 26 }, (_, i) => 26 + i),
    ]);
  });

  test("groups refined in round three start at their own shared prefix", () => {
    // Round 2 refines "aaaaaa…", "bbbbbb…" and "cccccc…". Its "bbbbbb…" rows share 26
    // units, its "cccccc…" rows 6; each has a run of 26 rows refined in round 3. The
    // "ccccccdddddd" rows differ at unit 12 (ascending by index) and at unit 26 (descending).
    const aRows = letters(25).map((c) => `aaaaaa${c}`);
    const bStem = `bbbbbb${"x".repeat(20)}`;
    const bRows = [...letters(26).map((c) => `${bStem}yyyyyy${c}`), `${bStem}z`];
    const cRows = [
      ...letters(26).map(
        (c, i) => `ccccccdddddd${c}${"q".repeat(13)}${String.fromCharCode(122 - i)}`,
      ),
      "cccccce",
    ];
    const paths = [...cRows, ...bRows, ...aRows];
    const expected = [
      ...Array.from({ length: 25 }, (_, i) => 54 + i),
      ...Array.from({ length: 27 }, (_, i) => 27 + i),
      ...Array.from({ length: 27 }, (_, i) => i),
    ];
    expect(order(paths)).toEqual(expected);
    expect(
      stableOrder(
        paths,
        paths.map(() => "write"),
      ),
    ).toEqual(expected);
  });

  test("a shared prefix stops where the group's first row differs, not past it", () => {
    // Row 0 "abc" is the group's first row; "abd" cuts the shared prefix to "ab", after
    // which "abcz" must still sort before "abd".
    const paths = ["abc", "abd", "abcz", "ba", "abx", ...letters(22).map((c) => `z${c}`)];
    expect(order(paths)).toEqual([0, 2, 1, 4, 3, ...Array.from({ length: 22 }, (_, i) => i + 5)]);
  });

  test("code units from U+007E up, NUL and the end of a path, inside one chunk", () => {
    // Each path is "d/" + a unit + "x", so the unit sits in the middle of the first chunk.
    const units = [
      "",
      "\u0000",
      "\u0001",
      "a",
      "}",
      "~",
      "~a",
      "\u007f",
      "\u0080",
      "é",
      "\u07ff",
      "\ud7ff",
      "\ue000",
      "\uffff",
      "😀",
      "😀a",
      "\u{10ffff}",
    ];
    const paths = units.flatMap((u) => [`d/${u}x`, `d/${u}`]).reverse();
    paths.push("d/~\ue000", "d/\u007f", "a\u0000", "a");
    const expected = stableOrder(
      paths,
      paths.map(() => "write"),
    );
    expect(paths.length).toBe(38);
    expect(order(paths)).toEqual(expected);
    // Spot checks of the code-point order itself.
    const sorted = expected.map((i) => paths[i]);
    expect(sorted.slice(0, 4)).toEqual(["a", "a\u0000", "d/", "d/\u0000"]);
    expect(sorted.indexOf("d/~\ue000")).toBeLessThan(sorted.indexOf("d/\u007f"));
    expect(sorted.indexOf("d/\uffffx")).toBeLessThan(sorted.indexOf("d/😀"));
    expect(sorted.slice(-2)).toEqual(["d/\u{10ffff}", "d/\u{10ffff}x"]);
  });

  test("equals a stable sort by (path, tool) on random ledgers of 25 to 3000 rows", () => {
    const next = random(0x5eed);
    const segments = [
      "src/",
      "src/lib/",
      "packages/core/src/ledger/",
      "a",
      "b",
      "ab",
      "aaaaaaaa",
      "/",
      "x/y/z/",
      "~",
      "\u007f",
      "é",
      "\ue000",
      "😀",
      "\u0000",
      "z",
      "file.ts",
    ];
    const toolNames = ["write", "edit", "w", ""];
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
    for (const n of [25, 26, 31, 32, 33, 64, 100, 257, 1000, 2048, 3000]) {
      const paths: string[] = [];
      const tools: string[] = [];
      for (let i = 0; i < n; i++) {
        const reuse = paths.length > 0 && next() < 0.15;
        let path = reuse ? pick(paths) : "";
        if (!reuse) for (let k = 1 + Math.floor(next() * 5); k > 0; k--) path += pick(segments);
        paths.push(path);
        tools.push(pick(toolNames));
      }
      expect(order(paths, tools), `n = ${n}`).toEqual(stableOrder(paths, tools));
    }
  });
});
