import { describe, expect, test } from "vitest";
import { parseTestReference, parseTestsCell } from "../capabilities/test-references.js";

describe("test references", () => {
  test("parses vitest, pytest and go references", () => {
    expect(parseTestReference("vitest:a/b.test.ts > outer > inner > case > with arrow")).toEqual({
      runner: "vitest",
      text: "vitest:a/b.test.ts > outer > inner > case > with arrow",
      file: "a/b.test.ts",
      name: "outer > inner > case > with arrow",
    });
    expect(parseTestReference("pytest:t/test_a.py::TestK::test_m[a::b]")).toEqual({
      runner: "pytest",
      text: "pytest:t/test_a.py::TestK::test_m[a::b]",
      file: "t/test_a.py",
      nodeId: "t/test_a.py::TestK::test_m[a::b]",
    });
    expect(parseTestReference("go:example.com/m/pkg TestX/sub_one")).toEqual({
      runner: "go",
      text: "go:example.com/m/pkg TestX/sub_one",
      importPath: "example.com/m/pkg",
      test: "TestX/sub_one",
    });
  });

  test("explains malformed references", () => {
    expect(parseTestReference("vitest:a.test.ts")).toBe(
      'vitest reference "vitest:a.test.ts" needs "<file> > <test name>"',
    );
    expect(parseTestReference("pytest:t/test_a.py")).toBe(
      'pytest reference "pytest:t/test_a.py" needs a node id "<path>.py::<test name>"',
    );
    expect(parseTestReference("go:TestX")).toBe(
      'go reference "go:TestX" needs "<import path> <TestName>"',
    );
    expect(parseTestReference("vitest:../x.test.ts > t")).toBe(
      'test reference "vitest:../x.test.ts > t" must name its file by a plain path from the repository root',
    );
    expect(parseTestReference("cargo:x")).toBe(
      '"cargo:x" is not a test reference (vitest:…, pytest:…, go:… or matrix:…)',
    );
  });

  test("splits a cell on every <br> spelling and ignores empty items", () => {
    const cell = "`go:m TestA`<br>`go:m TestB`<br/>`go:m TestC`<BR />plain<br>";
    const parsed = parseTestsCell(cell);
    expect(parsed.refs.map((r) => r.text)).toEqual(["go:m TestA", "go:m TestB", "go:m TestC"]);
    expect(parsed.malformed).toEqual(['"plain" is not a test reference in backticks']);
    expect(parseTestsCell("")).toEqual({ refs: [], malformed: [] });
  });
});
