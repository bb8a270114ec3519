import { describe, expect, test } from "vitest";
import { splitRow, tableAfterHeading } from "../capabilities/markdown-table.js";

describe("markdown table", () => {
  test("splits cells, trims them and keeps escaped pipes", () => {
    expect(splitRow("| a | `x \\| y` |  |")).toEqual(["a", "`x | y`", ""]);
    expect(splitRow("| a | b")).toBeUndefined();
    expect(splitRow("| a \\|")).toBeUndefined();
  });

  test("takes the table inside the heading's own section only", () => {
    const text =
      "## A\n\ntext\n\n| H | I |\n| - | :-: |\n| 1 | 2 |\n\n## B\n\n| X |\n| --- |\n| 3 |\n";
    expect(tableAfterHeading(text, "## A", "f.md")).toEqual({
      table: { header: ["H", "I"], rows: [{ line: 7, cells: ["1", "2"] }] },
      problems: [],
    });
    expect(tableAfterHeading("## A\n\n## B\n| X |\n| --- |\n", "## A", "f.md")).toEqual({
      table: undefined,
      problems: ['f.md: no table under "## A"'],
    });
    expect(tableAfterHeading("## AB\n", "## A", "f.md").problems).toEqual([
      'f.md: missing heading "## A"',
    ]);
  });

  test("reports a bad separator and malformed rows with line numbers, keeping good rows", () => {
    expect(tableAfterHeading("## A\n| H | I |\n| - | x |\n", "## A", "f.md")).toEqual({
      table: undefined,
      problems: ['f.md:3: invalid separator row under "## A"'],
    });
    const text = "## A\n| H | I |\n| --- | --- |\n| 1 | 2 | 3 |\n| 4 | 5\n| 6 | 7 |\n";
    expect(tableAfterHeading(text, "## A", "f.md")).toEqual({
      table: { header: ["H", "I"], rows: [{ line: 6, cells: ["6", "7"] }] },
      problems: [
        "f.md:4: table row has 3 cells; expected 2",
        'f.md:5: table row does not start and end with "|"',
      ],
    });
  });
});
