/**
 * `sortRecords` (ledger order, A3S §2.1) on both of its paths — insertion for up to 8 rows,
 * packed keys above — equals a stable `Array.prototype.sort` with `compareRecords`, for
 * rows with equal paths, equal (path, tool) pairs, astral and U+E000–U+FFFF characters.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { compareRecords, sortRecords } from "../src/ledger/canonical.js";

const text = fc.string({ unit: fc.constantFrom("a", "b", "/", "\ue000", "😀", "\ud800", "é") });
const record = fc.record({
  tool: fc.constantFrom("write", "edit", "w"),
  path: text,
  content_digest: fc.nat().map(String),
});

describe("sortRecords", () => {
  test("equals a stable sort by compareRecords, at every size from 0 to 24", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 24 }), (records) => {
        const expected = records.slice().sort(compareRecords);
        expect(sortRecords(records)).toEqual(expected);
        // Same objects, in a stable order (equal keys keep their input order).
        const sorted = sortRecords(records);
        for (let i = 1; i < sorted.length; i++) {
          const a = sorted[i - 1] as (typeof records)[number];
          const b = sorted[i] as (typeof records)[number];
          if (compareRecords(a, b) === 0)
            expect(records.indexOf(a)).toBeLessThan(records.indexOf(b));
        }
      }),
      { numRuns: 2000 },
    );
  });

  test("does not change its input", () => {
    const records = [
      { tool: "write", path: "b", content_digest: "1" },
      { tool: "write", path: "a", content_digest: "2" },
    ];
    expect(sortRecords(records).map((r) => r.path)).toEqual(["a", "b"]);
    expect(records.map((r) => r.path)).toEqual(["b", "a"]);
  });
});
