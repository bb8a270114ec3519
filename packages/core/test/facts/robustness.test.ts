/**
 * Regressions of the four defect classes of issue #11 at their root, with exact values:
 * deep nesting (one depth limit for parser documents, iterative display / equality),
 * linear line indexing, positions in the schema's range, and typed errors only.
 */
import { describe, expect, test } from "vitest";
import { ParsedDiagnosticsSchema } from "../../src/facts/schemas.js";
import { diagnosticDelta, gateInput, MAX_JSON_DEPTH, parseDiagnostics } from "../../src/index.js";
import { exceedsJsonDepth } from "../../src/ledger/json.js";

const nestedArrays = (levels: number, inner = "") =>
  `${"[".repeat(levels)}${inner}${"]".repeat(levels)}`;
const deepValue = (levels: number): unknown => {
  let v: unknown = "x";
  for (let i = 0; i < levels; i++) v = [v];
  return v;
};

describe("issue #11 class 1: deep nesting never reaches a stack overflow", () => {
  test("exceedsJsonDepth counts the root container as level 1 and stops at MAX_JSON_DEPTH", () => {
    expect(MAX_JSON_DEPTH).toBe(512);
    expect(exceedsJsonDepth(deepValue(512))).toBe(false);
    expect(exceedsJsonDepth(deepValue(513))).toBe(true);
    expect(exceedsJsonDepth(deepValue(200_000))).toBe(true);
    expect(exceedsJsonDepth("x")).toBe(false);
    const cycle: unknown[] = [];
    cycle.push(cycle);
    expect(exceedsJsonDepth(cycle)).toBe(true);
  });

  test("eslint, ruff, sarif, pyright and rdjson documents deeper than 512 levels are a typed diagnostic_parse_error", () => {
    for (const format of ["eslint", "ruff", "sarif", "pyright", "rdjson"] as const) {
      let thrown: unknown;
      try {
        parseDiagnostics(format, nestedArrays(20_000));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({
        code: "diagnostic_parse_error",
        path: "",
        message: `cannot parse ${format} output: nests deeper than 512 levels`,
      });
    }
  });

  test("an eslint document exactly 512 levels deep is read: the element is unparsed with its JSON text", () => {
    const r = parseDiagnostics("eslint", `[${nestedArrays(511)}]`);
    expect(r.diagnostics).toEqual([]);
    expect(r.unparsed).toEqual([
      {
        line: null,
        pointer: "/0",
        text: nestedArrays(511),
        reason: "Invalid input: expected object, received array",
      },
    ]);
  });

  test("go_vet, cargo and rdjsonl records deeper than 512 levels are unparsed lines, not errors", () => {
    const record = `{"a":${nestedArrays(20_000)}}`;
    for (const format of ["go_vet", "cargo", "rdjsonl"] as const) {
      const r = parseDiagnostics(format, `\n${record}\n`);
      expect(ParsedDiagnosticsSchema.parse(r)).toEqual(r);
      expect(r.unparsed).toEqual([
        { line: 2, pointer: null, text: record, reason: "nests deeper than 512 levels" },
      ]);
    }
  });

  test("diagnosticDelta and gateInput display a 50,000-level value (iterative display)", () => {
    const deep = deepValue(50_000);
    const shown = `${"[".repeat(50_000)}x${"]".repeat(50_000)}`;
    const g = gateInput(deep, { ok: true }, undefined);
    expect(g.previous.value.failureSignature).toBe(shown);
    const d = diagnosticDelta(deep, deep);
    expect(d.status).toBe("unchanged");
    expect(d.reason).toBe("same_diagnostic_signature_set");
  });

  test("gateInput compares 50,000-level snapshot hashes (iterative equality)", () => {
    const envelope = { rung: "R1", at: 1, snapshot: { "a.ts": deepValue(50_000) } };
    const fresh = gateInput(envelope, envelope, { "a.ts": deepValue(50_000) });
    expect(fresh.current.classification.status).toBe("bound_fresh");
    const stale = gateInput(envelope, envelope, { "a.ts": deepValue(49_999) });
    expect(stale.current.classification.status).toBe("bound_stale");
  });
});

describe("issue #11 class 3: line and column are an integer from 1 to 2^53−1, or null", () => {
  test("tsc: 0 and 1e20 become null, a valid pair is kept", () => {
    const r = parseDiagnostics(
      "tsc",
      [
        "a.ts(0,0): error TS1: zero",
        "b.ts(100000000000000000000,3): error TS2: huge",
        "c.ts(9007199254740991,1): error TS3: max",
        "d.ts(9007199254740992,1): error TS4: past max",
      ].join("\n"),
    );
    expect(ParsedDiagnosticsSchema.parse(r)).toEqual(r);
    expect(r.diagnostics.map((d) => [d.path, d.line, d.column])).toEqual([
      ["a.ts", null, null],
      ["b.ts", null, 3],
      ["c.ts", 9007199254740991, 1],
      ["d.ts", null, 1],
    ]);
  });

  test("go_vet: posn and typecheck positions 0 or beyond 2^53−1 become null", () => {
    const text = [
      '{"p": {"printf": [{"posn": "a.go:0:0", "message": "m"}, {"posn": "b.go:100000000000000000000:2", "message": "n"}]}}',
      "vet: c.go:0:99999999999999999999: bad",
    ].join("\n");
    const r = parseDiagnostics("go_vet", text);
    expect(ParsedDiagnosticsSchema.parse(r)).toEqual(r);
    expect(r.diagnostics.map((d) => [d.path, d.line, d.column])).toEqual([
      ["a.go", null, null],
      ["b.go", null, 2],
      ["c.go", null, null],
    ]);
  });

  test("pyright: a 0-based line of 2^53−1 would be 2^53 and becomes null", () => {
    const doc = {
      generalDiagnostics: [
        {
          file: "a.py",
          severity: "error",
          message: "m",
          range: { start: { line: 9007199254740991, character: 0 } },
        },
      ],
    };
    const r = parseDiagnostics("pyright", JSON.stringify(doc));
    expect(r.diagnostics.map((d) => [d.line, d.column])).toEqual([[null, 1]]);
  });

  test("cargo: a span line of 0 is null; eslint: 0 and -3 are null (zod refuses 1e20 there: unparsed)", () => {
    const cargo = parseDiagnostics(
      "cargo",
      JSON.stringify({
        reason: "compiler-message",
        message: {
          message: "m",
          level: "error",
          spans: [{ file_name: "a.rs", line_start: 0, column_start: 2, is_primary: true }],
        },
      }),
    );
    expect(cargo.diagnostics.map((d) => [d.line, d.column])).toEqual([[null, 2]]);
    const eslint = parseDiagnostics(
      "eslint",
      JSON.stringify([
        { filePath: "a.js", messages: [{ severity: 2, message: "m", line: 0, column: -3 }] },
      ]),
    );
    expect(eslint.diagnostics.map((d) => [d.line, d.column])).toEqual([[null, null]]);
  });
});

describe("issue #11 class 3 (found by the fuzz suite): counts stay within ±(2^53−1)", () => {
  test("an error_count of 1.5e47 is clamped, and so is count_delta", () => {
    const d = diagnosticDelta(
      { error_count: 1.5e47, diagnostics: ["boom"] },
      { error_count: -1e300, diagnostics: ["boom"] },
    );
    expect(d.previous.count).toBe(9007199254740991);
    expect(d.current.count).toBe(-9007199254740991);
    expect(d.count_delta).toBe(-9007199254740991);
  });
});

describe("issue #11 class 3 (found by the fuzz suite): a row's max_chars must be a safe integer", () => {
  test.each([1.5, -1e20, 2 ** 53])(
    "max_chars %s in a profile row is invalid_input at its path",
    (max) => {
      let thrown: unknown;
      try {
        diagnosticDelta(null, "x", { row: { diagnostic_delta: { max_chars: max } } });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({
        code: "invalid_input",
        path: "row.diagnostic_delta.max_chars",
      });
    },
  );
});

describe("issue #11 class 2: go_vet indexes lines in one pass", () => {
  test("line numbers after many blank lines and a multi-line object are exact", () => {
    const obj = '{\n  "p": {\n    "printf": [{"posn": "a.go:3:4", "message": "m"}]\n  }\n}';
    const text = `${"\n".repeat(1000)}# p\n${obj}\nnoise\n\r\nvet: b.go:1:2: t\nmore noise`;
    const r = parseDiagnostics("go_vet", text);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["printf", "typecheck"]);
    expect(r.unparsed.map((u) => [u.line, u.text])).toEqual([
      [1007, "noise"],
      [1010, "more noise"],
    ]);
  });
});
