import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { ParsedDiagnosticsSchema } from "../../src/facts/schemas.js";
import { type DiagnosticFormat, parseDiagnostics } from "../../src/index.js";

const fixture = (name: string) =>
  readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");
const parse = (format: DiagnosticFormat, name: string) => {
  const r = parseDiagnostics(format, fixture(name));
  expect(ParsedDiagnosticsSchema.parse(r)).toEqual(r);
  return r;
};

describe("parseDiagnostics: tsc --pretty false (real tsc 5.9.3 output)", () => {
  test("keeps chained messages as one diagnostic", () => {
    const r = parse("tsc", "tsc/before.txt");
    expect(r.unparsed).toEqual([]);
    expect(r.diagnostics.map((d) => [d.path, d.line, d.column, d.code])).toEqual([
      ["src/cli.ts", 4, 9, "TS2322"],
      ["src/handlers.ts", 3, 14, "TS2322"],
      ["src/shapes.ts", 15, 37, "TS2322"],
      ["src/shapes.ts", 16, 37, "TS2345"],
      ["src/shapes.ts", 17, 39, "TS2304"],
    ]);
    expect(r.diagnostics[1]).toEqual({
      path: "src/handlers.ts",
      line: 3,
      column: 14,
      severity: "error",
      code: "TS2322",
      message: [
        "Type '(event: { id: string; tags: string[]; }) => void' is not assignable to type 'Handler'.",
        "  Types of parameters 'event' and 'event' are incompatible.",
        "    Type '{ id: number; tags: string[]; }' is not assignable to type '{ id: string; tags: string[]; }'.",
        "      Types of property 'id' are incompatible.",
        "        Type 'number' is not assignable to type 'string'.",
      ].join("\n"),
      source: "tsc",
    });
  });

  test("reads location-less errors and reports foreign lines as unparsed", () => {
    const r = parse("tsc", "tsc/global.txt");
    expect(r.diagnostics).toEqual([
      {
        path: null,
        line: null,
        column: null,
        severity: "error",
        code: "TS6053",
        message:
          "File 'does-not-exist.ts' not found.\n  The file is in the program because:\n    Root file specified for compilation",
        source: "tsc",
      },
    ]);
    const mixed = parseDiagnostics(
      "tsc",
      "Found 2 errors.\nsrc/a.ts(1,2): warning TS6133: 'x' is declared but never read.\r\n",
    );
    expect(mixed.unparsed).toEqual([
      {
        line: 1,
        pointer: null,
        text: "Found 2 errors.",
        reason: "not a tsc --pretty false diagnostic line",
      },
    ]);
    expect(mixed.diagnostics[0]).toMatchObject({
      severity: "warning",
      code: "TS6133",
      message: "'x' is declared but never read.",
    });
    expect(parse("tsc", "tsc/clean.txt").diagnostics).toEqual([]);
  });
});

describe("parseDiagnostics: ESLint JSON (real eslint 10.15.0 output)", () => {
  test("maps severity 2/1 to error/warning and keeps parser errors with a null code", () => {
    const r = parse("eslint", "eslint/eslint.json");
    expect(r.unparsed).toEqual([]);
    expect(
      r.diagnostics.map((d) => [d.path?.split("/").pop(), d.line, d.column, d.severity, d.code]),
    ).toEqual([
      ["app.js", 1, 7, "error", "no-unused-vars"],
      ["app.js", 3, 9, "error", "eqeqeq"],
      ["app.js", 4, 5, "error", "no-undef"],
      ["app.js", 4, 5, "warning", "no-console"],
      ["app.js", 4, 17, "error", "no-undef"],
      ["broken.js", 2, 1, "error", null],
    ]);
    expect(r.diagnostics[5]?.message).toBe("Parsing error: Unexpected token");
  });

  test("a message of the wrong shape is unparsed, not thrown", () => {
    const r = parseDiagnostics(
      "eslint",
      JSON.stringify([{ filePath: "a.js", messages: [{ severity: 5, message: "x" }] }]),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.unparsed[0]).toMatchObject({ line: null, pointer: "/0/messages/0" });
  });
});

describe("parseDiagnostics: SARIF 2.1.0", () => {
  test("reads real ruff SARIF output", () => {
    const r = parse("sarif", "sarif/ruff.sarif");
    expect(r.unparsed).toEqual([]);
    expect(
      r.diagnostics.map((d) => [
        d.path?.split("/").pop(),
        d.line,
        d.column,
        d.severity,
        d.code,
        d.source,
      ]),
    ).toEqual([
      ["app.py", 1, 8, "error", "F401", "ruff"],
      ["app.py", 2, 8, "error", "F401", "ruff"],
      ["app.py", 6, 5, "error", "F841", "ruff"],
      ["app.py", 11, 5, "error", "F841", "ruff"],
      ["app.py", 14, 26, "error", "F821", "ruff"],
      ["bad_syntax.py", 1, 12, "error", "invalid-syntax", "ruff"],
      ["bad_syntax.py", 1, 13, "error", "invalid-syntax", "ruff"],
    ]);
    expect(r.diagnostics[0]?.path).toBe("/tmp/tg-py/app.py");
  });

  test("resolves rule index, message strings, artifacts, default levels and partialFingerprints (hand-written)", () => {
    const r = parse("sarif", "sarif/hand-written.sarif");
    expect(r.diagnostics).toEqual([
      {
        path: "src/handlers/user%20input.ts",
        line: 14,
        column: 9,
        severity: "error",
        code: "EX1001",
        message: "Value 'name' flows into sink exec.",
        source: "ExampleScanner",
        fingerprints: { primaryLocationLineHash: "4b1c6f0e2a9d7c11:1" },
      },
      {
        path: "/repo/src/auth.ts",
        line: 3,
        column: null,
        severity: "info",
        code: "EX2002",
        message: "Consider a constant-time comparison.",
        source: "ExampleScanner",
      },
      {
        path: null,
        line: null,
        column: null,
        severity: "warning",
        code: "EX2002",
        message: "Default level applies.",
        source: "ExampleScanner",
      },
    ]);
    expect(r.unparsed).toHaveLength(1);
    expect(r.unparsed[0]).toMatchObject({ pointer: "/runs/0/results/4" });
  });

  test("a document that is not SARIF 2.1.0 is a typed parse error", () => {
    expect(() => parseDiagnostics("sarif", '{"version":"2.0.0","runs":[]}')).toThrow(
      expect.objectContaining({ code: "diagnostic_parse_error", path: "/version" }),
    );
    expect(() => parseDiagnostics("sarif", "{not json")).toThrow(
      expect.objectContaining({ code: "diagnostic_parse_error", path: "" }),
    );
    expect(() => parseDiagnostics("eslint", "")).toThrow(
      expect.objectContaining({ code: "diagnostic_parse_error" }),
    );
  });
});

describe("parseDiagnostics: cargo --message-format=json (real cargo 1.95 output)", () => {
  test("reads compiler errors at their primary span and skips failure notes", () => {
    const r = parse("cargo", "cargo/check-errors.jsonl");
    expect(r.unparsed).toEqual([]);
    expect(r.diagnostics).toEqual([
      {
        path: "src/lib.rs",
        line: 12,
        column: 34,
        severity: "error",
        code: "E0425",
        message: "cannot find value `missing` in this scope",
        source: "rustc",
      },
      {
        path: "src/lib.rs",
        line: 3,
        column: 21,
        severity: "error",
        code: "E0308",
        message: "mismatched types",
        source: "rustc",
      },
    ]);
  });

  test("ignores cargo's non-JSON progress lines in mixed output", () => {
    const r = parse("cargo", "cargo/check-combined.txt");
    expect(r.unparsed).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["E0425", "E0308"]);
  });

  test("reads clippy lints with the clippy source", () => {
    const r = parse("cargo", "cargo/clippy-warnings.jsonl");
    expect(r.diagnostics.map((d) => [d.line, d.column, d.severity, d.code, d.source])).toEqual([
      [2, 9, "warning", "unused_variables", "rustc"],
      [8, 5, "warning", "clippy::needless_return", "clippy"],
      [12, 5, "warning", "clippy::identity_op", "clippy"],
    ]);
  });

  test("a broken JSON line is unparsed with its line number", () => {
    const r = parseDiagnostics("cargo", '   Compiling x\n{"reason":"compiler-message",\n');
    expect(r.diagnostics).toEqual([]);
    expect(r.unparsed).toMatchObject([{ line: 2, pointer: null }]);
  });
});

describe("parseDiagnostics: ruff JSON (real ruff 0.17.6 output)", () => {
  test("reads violations including syntax errors", () => {
    const r = parse("ruff", "ruff/ruff.json");
    expect(r.unparsed).toEqual([]);
    expect(
      r.diagnostics.map((d) => [d.path?.split("/").pop(), d.line, d.column, d.severity, d.code]),
    ).toEqual([
      ["app.py", 1, 8, "error", "F401"],
      ["app.py", 2, 8, "error", "F401"],
      ["app.py", 6, 5, "error", "F841"],
      ["app.py", 11, 5, "error", "F841"],
      ["app.py", 14, 26, "error", "F821"],
      ["bad_syntax.py", 1, 12, "error", "invalid-syntax"],
      ["bad_syntax.py", 1, 13, "error", "invalid-syntax"],
    ]);
    expect(r.diagnostics[4]?.message).toBe("Undefined name `undefined_name`");
  });
});

describe("parseDiagnostics: pyright --outputjson (real pyright 1.1.414 output)", () => {
  test("converts 0-based positions to 1-based and maps information to info", () => {
    const r = parse("pyright", "pyright/pyright.json");
    expect(r.unparsed).toEqual([]);
    expect(r.diagnostics.map((d) => [d.line, d.column, d.severity, d.code])).toEqual([
      [1, 8, "warning", "reportUnusedImport"],
      [2, 8, "warning", "reportUnusedImport"],
      [6, 5, "info", "reportUnusedVariable"],
      [11, 5, "info", "reportUnusedVariable"],
      [11, 18, "error", "reportAssignmentType"],
      [14, 26, "error", "reportUndefinedVariable"],
      [17, 13, "error", "reportArgumentType"],
    ]);
    expect(r.diagnostics[5]).toEqual({
      path: "/tmp/tg-py/app.py",
      line: 14,
      column: 26,
      severity: "error",
      code: "reportUndefinedVariable",
      message: '"undefined_name" is not defined',
      source: "pyright",
    });
  });
});

describe("parseDiagnostics: go vet -json (real go 1.26.8 output)", () => {
  test("reads every analyzer finding with its position", () => {
    const r = parse("go_vet", "go-vet/vet.json");
    expect(r.unparsed).toEqual([]);
    expect(
      r.diagnostics.map((d) => [
        d.path?.split("/tg-go/").pop(),
        d.line,
        d.column,
        d.code,
        d.message,
      ]),
    ).toEqual([
      ["sub/sub.go", 6, 22, "printf", "fmt.Sprintf format %s has arg v of wrong type int"],
      ["main.go", 23, 2, "assign", "self-assignment of x"],
      [
        "main.go",
        13,
        13,
        "copylocks",
        "show passes lock by value: example.com/tgvet.counter contains sync.Mutex",
      ],
      [
        "main.go",
        21,
        7,
        "copylocks",
        "call of show copies lock value: example.com/tgvet.counter contains sync.Mutex",
      ],
      ["main.go", 14, 2, "printf", "fmt.Printf call needs 1 arg but has 2 args"],
      ["main.go", 19, 20, "printf", "fmt.Printf format %d has arg name of wrong type string"],
    ]);
  });

  test("reads type-check failures from mixed stderr and skips package headers", () => {
    const r = parse("go_vet", "go-vet/vet-combined.txt");
    expect(r.unparsed).toEqual([]);
    expect(r.diagnostics).toHaveLength(7);
    expect(r.diagnostics.find((d) => d.code === "typecheck")).toEqual({
      path: "broken/broken.go",
      line: 4,
      column: 9,
      severity: "error",
      code: "typecheck",
      message: 'cannot use "not an int" (untyped string constant) as int value in return statement',
      source: "go vet",
    });
  });

  test("an analyzer error and garbage lines are handled without throwing", () => {
    const r = parseDiagnostics(
      "go_vet",
      '{"p/q": {"lostcancel": {"error": "analysis failed"}}}\nboom\n{"x": ',
    );
    expect(r.diagnostics).toEqual([
      {
        path: null,
        line: null,
        column: null,
        severity: "error",
        code: "lostcancel",
        message: "analysis failed",
        source: "go vet",
      },
    ]);
    expect(r.unparsed.map((u) => [u.line, u.reason])).toEqual([
      [2, "not go vet -json output"],
      [3, "unterminated JSON object"],
    ]);
  });
});

describe("parseDiagnostics: reviewdog rdjson / rdjsonl (hand-written)", () => {
  test("rdjson applies the result's severity and source as defaults", () => {
    const r = parse("rdjson", "rdjson/result.rdjson");
    expect(r.diagnostics).toEqual([
      {
        path: "cmd/main.go",
        line: 42,
        column: 11,
        severity: "warning",
        code: "errcheck",
        message: "Error return value of `f.Close` is not checked",
        source: "golangci-lint",
      },
      {
        path: "internal/store.go",
        line: 7,
        column: null,
        severity: "error",
        code: "ineffassign",
        message: "ineffectual assignment to err",
        source: "ineffassign",
      },
      {
        path: "internal/store.go",
        line: null,
        column: null,
        severity: "info",
        code: null,
        message: 'package comment should be of the form "Package store ..."',
        source: "golangci-lint",
      },
    ]);
    expect(r.unparsed).toMatchObject([{ pointer: "/diagnostics/3" }]);
  });

  test("rdjsonl reads one diagnostic per line and reports bad lines", () => {
    const r = parse("rdjsonl", "rdjson/lines.rdjsonl");
    expect(
      r.diagnostics.map((d) => [d.path, d.line, d.column, d.severity, d.code, d.source]),
    ).toEqual([
      ["a.py", 3, 5, "warning", "F841", "pyflakes"],
      ["a.py", 9, null, "info", null, "reviewdog"],
    ]);
    expect(r.unparsed.map((u) => u.line)).toEqual([4, 5]);
  });
});

describe("parseDiagnostics: bad requests", () => {
  test("an unknown format or non-string text is a typed validation error", () => {
    expect(() => parseDiagnostics("junit" as DiagnosticFormat, "")).toThrow(
      expect.objectContaining({ code: "invalid_input", path: "format" }),
    );
    expect(() => parseDiagnostics("tsc", 42 as unknown as string)).toThrow(
      expect.objectContaining({ code: "invalid_input", path: "text" }),
    );
  });
});
