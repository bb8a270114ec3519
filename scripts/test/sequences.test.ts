import { describe, expect, test } from "vitest";
import { compareSequences } from "../capabilities/sequences.js";

describe("compareSequences", () => {
  test("equal lists have no differences", () => {
    expect(compareSequences(["a", "b"], ["a", "b"])).toEqual({
      duplicatesA: [],
      duplicatesB: [],
      onlyA: [],
      onlyB: [],
      moved: [],
    });
  });

  test("reports duplicates, one-sided names and the fewest moved names", () => {
    expect(compareSequences(["a", "b", "c", "d", "b"], ["d", "a", "b", "c", "e"])).toEqual({
      duplicatesA: [{ name: "b", count: 2 }],
      duplicatesB: [],
      onlyA: [],
      onlyB: ["e"],
      moved: [{ name: "d", positionA: 4, positionB: 1 }],
    });
    expect(compareSequences(["a", "x"], ["y", "a"]).onlyA).toEqual(["x"]);
  });
});
