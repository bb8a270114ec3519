/**
 * Shell evidence, read closely (issue #11 §5: tests for the surviving mutants of
 * packages/core/src/reports/shell-evidence.ts): how splitShellCommand reads quotes,
 * backslashes, comments, parentheses and doubled operators; which `set` commands change
 * the options; where exitStatusMaskedBy reports an `exit`, a nested `{ …; }` group or an
 * `a && b` list; an empty preset; nested assignment substitutions; and the exact
 * validation errors and `executionError: null` of shellEvidenceReport.
 */
import { describe, expect, test } from "vitest";
import {
  exitStatusMasked,
  exitStatusMaskedBy,
  shellCommandCoversPreset,
  shellEvidenceReport,
  splitShellCommand,
  TurngateValidationError,
} from "../../src/index.js";

const rustTest = {
  id: "rust:test",
  kind: "test",
  description: "Run Rust tests",
  command: "cargo test",
  required: true,
};

describe("shellCommandCoversPreset: empty texts", () => {
  test("an empty command does not cover an empty preset", () => {
    expect(shellCommandCoversPreset("", "")).toBe(false);
    expect(shellCommandCoversPreset("  ", " \n")).toBe(false);
  });
});

describe("splitShellCommand: quotes and backslashes", () => {
  test("a backslash inside single quotes is literal, so the quote closes there", () => {
    expect(splitShellCommand("echo 'a\\'; b")).toEqual([
      { text: "echo 'a\\'", op: ";" },
      { text: "b", op: null },
    ]);
  });

  test("a backslash-newline joins the lines with a space", () => {
    expect(splitShellCommand("cargo\\\ntest")).toEqual([{ text: "cargo test", op: null }]);
    expect(splitShellCommand("cargo \\\ntest")).toEqual([{ text: "cargo test", op: null }]);
  });

  test("a backslash before another character keeps both", () => {
    expect(splitShellCommand("echo a\\;b")).toEqual([{ text: "echo a\\;b", op: null }]);
  });

  test("operators inside backquotes are not top level", () => {
    expect(splitShellCommand("echo `a; b` && c")).toEqual([
      { text: "echo `a; b`", op: "&&" },
      { text: "c", op: null },
    ]);
  });
});

describe("splitShellCommand: comments", () => {
  test("a # at the very start begins a comment", () => {
    expect(splitShellCommand("# x; y\nz")).toEqual([
      { text: "", op: "\n" },
      { text: "z", op: null },
    ]);
  });

  test("a # after a space begins a comment that runs to the end of the line", () => {
    expect(splitShellCommand("make #x; y")).toEqual([{ text: "make", op: null }]);
    expect(splitShellCommand("make #x; y\nmake test")).toEqual([
      { text: "make", op: "\n" },
      { text: "make test", op: null },
    ]);
  });

  test("a # inside a word is a plain character, wherever else the command has spaces", () => {
    expect(splitShellCommand("a#b; c")).toEqual([
      { text: "a#b", op: ";" },
      { text: "c", op: null },
    ]);
    expect(splitShellCommand("a#b")).toEqual([{ text: "a#b", op: null }]);
  });
});

describe("splitShellCommand: parentheses, redirections and doubled operators", () => {
  test("an inner ) does not close the outer (", () => {
    expect(splitShellCommand("((a); b) && c")).toEqual([
      { text: "((a); b)", op: "&&" },
      { text: "c", op: null },
    ]);
  });

  test("an unbalanced ) is a plain character", () => {
    expect(splitShellCommand("a) && b")).toEqual([
      { text: "a)", op: "&&" },
      { text: "b", op: null },
    ]);
  });

  test("<& duplicates an input descriptor: not a background &", () => {
    expect(splitShellCommand("cargo test <&0")).toEqual([{ text: "cargo test <&0", op: null }]);
  });

  test("a pipe or ; without spaces splits without eating the next character", () => {
    expect(splitShellCommand("a|b")).toEqual([
      { text: "a", op: "|" },
      { text: "b", op: null },
    ]);
    expect(splitShellCommand("a|&b")).toEqual([
      { text: "a", op: "|" },
      { text: "b", op: null },
    ]);
    expect(splitShellCommand("a;b")).toEqual([
      { text: "a", op: ";" },
      { text: "b", op: null },
    ]);
  });

  test(";; is one separator", () => {
    expect(splitShellCommand("a;;b")).toEqual([
      { text: "a", op: ";" },
      { text: "b", op: null },
    ]);
  });
});

describe("set options", () => {
  test("-o pipefail counts only in a set command", () => {
    expect(exitStatusMaskedBy("echo -o pipefail && a | b")).toEqual({
      operator: "|",
      command: "a",
    });
    expect(exitStatusMasked("echo -o pipefail; cargo test | tee log", "cargo test")).toBe(true);
  });

  test("set -e does not turn pipefail on", () => {
    expect(exitStatusMaskedBy("set -e; a | b")).toEqual({ operator: "|", command: "a" });
    expect(exitStatusMasked("set -e; cargo test | tee log", "cargo test")).toBe(true);
  });

  test("set +o pipefail turns it off again", () => {
    expect(exitStatusMaskedBy("set -o pipefail; set +o pipefail; a | b")).toEqual({
      operator: "|",
      command: "a",
    });
    expect(
      exitStatusMasked("set -o pipefail; set +o pipefail; cargo test | tee log", "cargo test"),
    ).toBe(true);
    expect(exitStatusMaskedBy("bash -o pipefail -c 'set +o pipefail; a | b'")).toEqual({
      operator: "|",
      command: "a",
    });
  });

  test("a set command piped into another is reported as the piped command", () => {
    expect(exitStatusMaskedBy("set -e | cat")).toEqual({ operator: "|", command: "set -e" });
  });
});

describe("exitStatusMaskedBy: exit and return", () => {
  test("an exit that is the last command (but for an empty segment or a closing }) masks nothing", () => {
    expect(exitStatusMaskedBy("exit 0;")).toBeNull();
    expect(exitStatusMaskedBy("make && exit 0;")).toBeNull();
    expect(exitStatusMaskedBy("set -e; { make; exit 0; }")).toBeNull();
  });

  test("an exit after `set … ||` never runs", () => {
    expect(exitStatusMaskedBy("set -e || exit 0; node test.js")).toBeNull();
  });

  test("a piped exit is reported as a pipe, an exit before || as the || list", () => {
    expect(exitStatusMaskedBy("exit 0 | cat")).toEqual({ operator: "|", command: "exit 0" });
    expect(exitStatusMaskedBy("exit 0 || node test.js")).toEqual({
      operator: "||",
      command: "exit 0",
      fallback: "node test.js",
    });
  });

  test("an exit in the middle of an && list skips the rest", () => {
    expect(exitStatusMaskedBy("a && exit 0 && node test.js")).toEqual({
      operator: "exit",
      command: "exit 0",
      skipped: "node test.js",
    });
  });

  test("only a leading `{ ` is dropped from the exit command", () => {
    expect(exitStatusMaskedBy('return "{ x"; node test.js')).toEqual({
      operator: "exit",
      command: 'return "{ x"',
      skipped: "node test.js",
    });
  });

  test("relative to a preset, an exit preset does not end the script before itself", () => {
    expect(exitStatusMasked("exit 0", "exit 0")).toBe(false);
    expect(exitStatusMasked("make && exit 0", "exit 0")).toBe(false);
  });
});

describe("exitStatusMaskedBy: the command reported for a list or a group", () => {
  test("a group joined back across newlines uses `; `", () => {
    expect(exitStatusMaskedBy("{ a && b\n}; true")).toEqual({
      operator: ";",
      command: "{ a && b; }",
    });
  });

  test("a nested group is reported whole", () => {
    expect(exitStatusMaskedBy("{ a && { b && c\n}\n}; true")).toEqual({
      operator: ";",
      command: "{ a && { b && c; }; }",
    });
  });

  test("an && list keeps a `{ ` that is not its start", () => {
    expect(exitStatusMaskedBy("a && echo { x || true")).toEqual({
      operator: "||",
      command: "a && echo { x",
      fallback: "true",
    });
    expect(exitStatusMaskedBy("a && echo { x; true")).toEqual({
      operator: ";",
      command: "a && echo { x",
    });
    expect(exitStatusMaskedBy("set -e; a && echo { x; true")).toEqual({
      operator: ";",
      command: "a && echo { x",
      andList: true,
    });
  });

  test("an && list that opens a group drops the group's `{ `", () => {
    expect(exitStatusMaskedBy("{ a && b || c; }")).toEqual({
      operator: "||",
      command: "a && b",
      fallback: "c",
    });
    expect(exitStatusMaskedBy("{ a && b; c; }")).toEqual({ operator: ";", command: "a && b" });
    expect(exitStatusMaskedBy("set -e; { a && b; c; }")).toEqual({
      operator: ";",
      command: "a && b",
      andList: true,
    });
  });
});

describe("exitStatusMaskedBy: substitutions in assignments", () => {
  test("an assignment before a command does not make it assignment-only", () => {
    expect(exitStatusMaskedBy("V=1 echo $(make)")).toEqual({
      operator: "substitution",
      command: "V=1 echo $(make)",
      word: "$(make)",
    });
  });

  test("the single substitution of an assignment is read without pipefail or set -e", () => {
    expect(exitStatusMaskedBy("V=$(a | b)")).toEqual({ operator: "|", command: "a" });
    expect(exitStatusMaskedBy("V=$(a; b)")).toEqual({ operator: ";", command: "a" });
  });

  test("assignment substitutions nested deeper than 32 levels count as masked", () => {
    const nested = (n: number): string => `${"V=$(".repeat(n)}make${")".repeat(n)}`;
    expect(exitStatusMaskedBy(nested(40))).toEqual({ operator: "nesting", command: nested(8) });
    expect(exitStatusMaskedBy(nested(32))).toBeNull();
    expect(exitStatusMaskedBy(nested(33))).toEqual({ operator: "nesting", command: nested(1) });
  });
});

describe("exitStatusMasked: an empty preset", () => {
  test("an empty preset never runs, so its status counts as masked", () => {
    expect(exitStatusMasked("", "")).toBe(true);
    expect(exitStatusMasked("cargo test;", " ")).toBe(true);
  });
});

describe("shellEvidenceReport: input errors and executionError null", () => {
  function refusal(run: () => unknown): { message: string; path: string; issues: unknown } {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(TurngateValidationError);
      const e = error as TurngateValidationError;
      return { message: e.message, path: e.path, issues: e.issues };
    }
    throw new Error("expected a TurngateValidationError");
  }

  test("a non-string command", () => {
    expect(refusal(() => shellEvidenceReport(1 as never, 0, [rustTest]))).toEqual({
      message: "invalid shell evidence at command: expected a string",
      path: "command",
      issues: [{ path: "command", message: "expected a string" }],
    });
  });

  test("candidates that are not an array", () => {
    expect(refusal(() => shellEvidenceReport("cargo test", 0, "x" as never))).toEqual({
      message: "invalid shell evidence at candidates: expected an array",
      path: "candidates",
      issues: [{ path: "candidates", message: "expected an array" }],
    });
  });

  test("executionError null means the command ran: a masked status still needs review", () => {
    expect(shellEvidenceReport("cargo test || true", 0, [rustTest], {}, null)).toEqual({
      schema: "verification_report.v1",
      subject: "shell:rust:test",
      status: "needs_review",
      checks: [
        {
          id: "rust:test",
          kind: "test",
          description: "Run Rust tests",
          status: "needs_review",
          required: true,
          suggested_tools: ["bash"],
          residual_risk: "exit status masked",
        },
      ],
    });
  });
});
