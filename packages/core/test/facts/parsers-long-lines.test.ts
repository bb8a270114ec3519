import { describe, expect, test } from "vitest";
import { parseGoVet, parseTsc } from "../../src/facts/parsers/index.js";

// A line with a character `.` does not match (\r, U+2028, U+2029) after many candidate
// prefixes: the single patterns retried `(.*)$` at every candidate (152 KB took 3.9 s).
describe("diagnostic line patterns on long adversarial lines", () => {
  test("a 380000-character tsc line that cannot match is one unparsed line", () => {
    const line = `${"a(1,1): error TS1: ".repeat(20_000)}\u2028`;
    const r = parseTsc(`${line}\nsrc/x.ts(2,3): error TS2304: Cannot find name 'y'.`);
    expect(r.unparsed).toEqual([
      { line: 1, pointer: null, text: line, reason: "not a tsc --pretty false diagnostic line" },
    ]);
    expect(r.diagnostics.map((d) => [d.path, d.line, d.column, d.code, d.message])).toEqual([
      ["src/x.ts", 2, 3, "TS2304", "Cannot find name 'y'."],
    ]);
  });

  test("a long tsc line that can match still parses at its first location", () => {
    const r = parseTsc("a(1,1): error TS1: ".repeat(20_000));
    expect(r.diagnostics).toHaveLength(1);
    expect([r.diagnostics[0]?.path, r.diagnostics[0]?.code]).toEqual(["a", "TS1"]);
  });

  test("a 300000-character vet line that cannot match is not a typecheck diagnostic", () => {
    const line = `vet: ${"a:1:1: x".repeat(37_500)}\r tail`;
    const r = parseGoVet(line);
    expect(r.diagnostics).toEqual([]);
    expect(r.unparsed).toHaveLength(1);
    expect(r.unparsed[0]?.line).toBe(1);
  });
});
