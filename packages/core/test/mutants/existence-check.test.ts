/**
 * existenceCheckPaths, exactly (issue #11 §5: the survivors Stryker left in
 * evidence/existence-check.ts): the words that may stand before a test, the exact shape of
 * each test form, an empty path, and the refusal of a non-string.
 */
import { describe, expect, test } from "vitest";
import { existenceCheckPaths, TurngateValidationError } from "../../src/index.js";

describe("existenceCheckPaths: words before the test", () => {
  test("a test after if, while, then or { is an existence check of its path", () => {
    expect(existenceCheckPaths("if test -f b")).toEqual(["b"]);
    expect(existenceCheckPaths("while [ -e c ]")).toEqual(["c"]);
    expect(existenceCheckPaths("if then [[ -f d ]]")).toEqual(["d"]);
    expect(existenceCheckPaths("{ test -e e")).toEqual(["e"]);
  });

  test("a ! among the words before the test negates it, wherever it stands", () => {
    expect(existenceCheckPaths("if ! test -f b")).toEqual([]);
    expect(existenceCheckPaths("! if test -f b")).toEqual([]);
    expect(existenceCheckPaths("if test -f b; ! test -f c; test -f c")).toEqual(["b", "c"]);
  });

  test("a computed first word is not a leading word, nor a test", () => {
    expect(existenceCheckPaths("$t -f a")).toEqual([]);
    expect(existenceCheckPaths("$(pick) test -f a")).toEqual([]);
  });
});

describe("existenceCheckPaths: the exact shape of each form", () => {
  test("test takes exactly an operator and a path", () => {
    expect(existenceCheckPaths("test -f m")).toEqual(["m"]);
    expect(existenceCheckPaths("test -f m n")).toEqual([]);
    expect(existenceCheckPaths("test -e m ]")).toEqual([]);
    expect(existenceCheckPaths("test -f m ]]")).toEqual([]);
  });

  test("[ needs its closing ] as the fourth and last word", () => {
    expect(existenceCheckPaths("[ -f c ]")).toEqual(["c"]);
    expect(existenceCheckPaths("[ -f c d")).toEqual([]);
    expect(existenceCheckPaths("[ -f c ]]")).toEqual([]);
    expect(existenceCheckPaths("[ -f g ] h")).toEqual([]);
    expect(existenceCheckPaths("x -f k ]")).toEqual([]);
  });

  test("[[ needs its closing ]] as the fourth and last word", () => {
    expect(existenceCheckPaths("[[ -e e ]]")).toEqual(["e"]);
    expect(existenceCheckPaths("[[ -f e f")).toEqual([]);
    expect(existenceCheckPaths("[[ -f e ]")).toEqual([]);
    expect(existenceCheckPaths("[[ -f i ]] j")).toEqual([]);
    expect(existenceCheckPaths("x -f l ]]")).toEqual([]);
  });

  test("an empty path (quotes around nothing) is not listed", () => {
    expect(existenceCheckPaths('test -f ""')).toEqual([]);
    expect(existenceCheckPaths("[ -e '' ]")).toEqual([]);
    expect(existenceCheckPaths('[[ -f "" ]]; test -f ok')).toEqual(["ok"]);
  });
});

describe("existenceCheckPaths: input", () => {
  test("a non-string command is a typed error at path command", () => {
    for (const command of [5, null, undefined, ["test -f a"]]) {
      expect(() => existenceCheckPaths(command as never)).toThrow(
        new TurngateValidationError("existence check", [
          { path: "command", message: "expected a string" },
        ]),
      );
    }
    let caught: unknown;
    try {
      existenceCheckPaths(5 as never);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TurngateValidationError);
    const e = caught as TurngateValidationError;
    expect({ message: e.message, path: e.path }).toEqual({
      message: "invalid existence check at command: expected a string",
      path: "command",
    });
  });
});
