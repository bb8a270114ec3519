import { describe, expect, test } from "vitest";
import {
  checkWithVanishedTests,
  type ParsedTest,
  type TestHistory,
  vanishedTests,
} from "../src/index.js";

const t = (
  id: string,
  status: ParsedTest["status"],
  suite: string | null = null,
  file: string | null = null,
): ParsedTest => ({
  id,
  name: id,
  suite,
  file,
  status,
  duration_ms: null,
  message: null,
});
const h = (
  status: ParsedTest["status"],
  suite: string | null = null,
  file: string | null = null,
) => ({
  status,
  suite,
  file,
});

describe("vanishedTests (issue #16 §3)", () => {
  const previous: TestHistory = {
    "tests/test_a.py::test_one": h("passed", "tests/test_a.py", "tests/test_a.py"),
    "tests/test_a.py::test_two": h("passed", "tests/test_a.py", "tests/test_a.py"),
    "pytest > tests.test_b::test_three": h("passed", "pytest > tests.test_b"),
    "example.com/m/pkg::TestX": h("passed", "example.com/m/pkg"),
    "/abs/src/c.test.ts::adds": h("passed", null, "/abs/src/c.test.ts"),
  };
  const all = Object.keys(previous).map((id) => t(id, "passed"));

  test("fewer ids, no deletion → the missing ids, sorted", () => {
    const now = all.filter(
      (x) => x.id !== "tests/test_a.py::test_two" && x.id !== "example.com/m/pkg::TestX",
    );
    expect(vanishedTests(previous, now, [])).toEqual({
      disappeared: ["example.com/m/pkg::TestX", "tests/test_a.py::test_two"],
      skipped: [],
    });
  });

  test("deleted files explain their tests: node id, JUnit classname, absolute file, Go package", () => {
    expect(
      vanishedTests(
        previous,
        [],
        ["tests/test_a.py", "tests/test_b.py", "src/c.test.ts", "pkg/x_test.go"],
      ),
    ).toEqual({ disappeared: [], skipped: [] });
    expect(vanishedTests(previous, [], ["pkg/helper.go"]).disappeared).toContain(
      "example.com/m/pkg::TestX",
    );
  });

  test("same count (one renamed test) is not a shrinking denominator; passed → skipped is flagged", () => {
    const now = [...all.slice(1), t("tests/test_a.py::test_renamed", "passed")];
    expect(vanishedTests(previous, now, []).disappeared).toEqual([]);
    const skipped = all.map((x) =>
      x.id === "/abs/src/c.test.ts::adds" ? { ...x, status: "skipped" as const } : x,
    );
    expect(vanishedTests(previous, skipped, [])).toEqual({
      disappeared: [],
      skipped: ["/abs/src/c.test.ts::adds"],
    });
  });

  test("checkWithVanishedTests: passed → needs_review, risks appended and capped at 20 ids", () => {
    const check = {
      id: "c",
      kind: "test",
      description: "d",
      status: "passed" as const,
      required: true,
    };
    const ids = Array.from({ length: 22 }, (_, i) => `t${String(i).padStart(2, "0")}`);
    const r = checkWithVanishedTests(check, { disappeared: ids, skipped: ["s"] });
    expect(r.status).toBe("needs_review");
    expect(r.residual_risk).toBe(
      `tests_disappeared: 22 tests of the last verified run are gone: ${ids.slice(0, 20).join(", ")}, … (+2 more); tests_skipped: 1 test that passed in the last verified run is skipped: s`,
    );
    const failed = checkWithVanishedTests(
      { ...check, status: "failed", residual_risk: "x" },
      { disappeared: ["a"], skipped: [] },
    );
    expect([failed.status, failed.residual_risk]).toEqual([
      "failed",
      "x; tests_disappeared: 1 test of the last verified run is gone: a",
    ]);
    expect(checkWithVanishedTests(check, { disappeared: [], skipped: [] })).toBe(check);
  });
});
