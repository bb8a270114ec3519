import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  compileGlob,
  matchName,
  profileMatches,
  TurngateValidationError,
} from "../../../src/index.js";

describe("scope.dir glob (§3.5)", () => {
  test("* matches everything, a pattern without * ? [ is equality", () => {
    expect(matchName("*", "")).toBe(true);
    expect(matchName("*", "a/b")).toBe(true);
    expect(matchName("src/a.tx", "src/a.tx")).toBe(true);
    expect(matchName("src/a.tx", "src/a.txt")).toBe(false);
    expect(matchName("{a,b}", "a")).toBe(false);
    expect(matchName("{a,b}", "{a,b}")).toBe(true);
  });
  test("fast paths: prefix*, *infix*, *suffix", () => {
    expect(matchName("src/*", "src/deep/x.tx")).toBe(true);
    expect(matchName("src/*", "lib/src/x")).toBe(false);
    expect(matchName("*test*", "a/test/b")).toBe(true);
    expect(matchName("*test*", "a/tst/b")).toBe(false);
    expect(matchName("*.tx", "a/b.tx")).toBe(true);
    expect(matchName("*.tx", "a/b.ty")).toBe(false);
  });
  test("full globs: ** and * cross /, ? one char, classes, alternates", () => {
    expect(matchName("src/**", "src/a.tx")).toBe(true);
    expect(matchName("src/**", "src/x/y.tx")).toBe(true);
    expect(matchName("src/**", "docs/a.tx")).toBe(false);
    expect(matchName("tool/*", "tool/a/b")).toBe(true);
    expect(matchName("file[12]", "file1")).toBe(true);
    expect(matchName("file[12]", "file3")).toBe(false);
    expect(matchName("file[!12]", "file3")).toBe(true);
    expect(matchName("file[a-c]x", "filebx")).toBe(true);
    expect(matchName("src/*.{ts,js}", "src/a/b.js")).toBe(true);
    expect(matchName("src/*.{ts,js}", "src/a/b.py")).toBe(false);
    expect(matchName("a?c", "abc")).toBe(true);
    expect(matchName("a?c", "a/c")).toBe(true);
    expect(matchName("a?c", "ac")).toBe(false);
    expect(matchName("pkg/*/src/*.tx", "pkg/core/src/a.tx")).toBe(true);
    expect(matchName("pkg/*/src/*.tx", "pkg/core/lib/a.tx")).toBe(false);
  });
  test("an unparsable glob falls back to prefix / suffix / equality", () => {
    expect(matchName("[ab*", "[abz")).toBe(true);
    expect(matchName("[ab*", "abz")).toBe(false);
    expect(matchName("*x[", "ax[")).toBe(true);
    expect(matchName("a{b*c", "a{bxc")).toBe(false);
    expect(matchName("[z-a]", "[z-a]")).toBe(true);
  });

  // Issue 36: `-` outside a class was escaped as `\-`, a SyntaxError in unicode mode.
  test('a dash outside a class is a literal (issue 36: compileGlob("-B") threw a SyntaxError)', () => {
    expect(compileGlob("-B")?.source).toBe("^(?:-B)$");
    expect(compileGlob("-B")?.test("-B")).toBe(true);
    expect(matchName("src-*?", "src-ab")).toBe(true);
    expect(matchName("src-*?", "src_ab")).toBe(false);
    expect(matchName("a\\-?", "a-b")).toBe(true);
    expect(matchName("{-x,y}?", "-xz")).toBe(true);
    expect(matchName("x[-a]", "x-")).toBe(true);
    expect(matchName("x[a-]", "x-")).toBe(true);
    expect(matchName("x[!-]", "x-")).toBe(false);
    expect(matchName("x[+--]?", "x,q")).toBe(true);
  });

  test("every escaped ASCII character matches itself, inside and outside a class", () => {
    for (let code = 0x20; code < 0x7f; code++) {
      const c = String.fromCharCode(code);
      expect([c, compileGlob(`\\${c}`)?.test(c)]).toEqual([c, true]);
      if (c !== "]" && c !== "!" && c !== "^")
        expect([c, matchName(`?[${c}]`, `x${c}`)]).toEqual([c, true]);
    }
  });

  test("any glob compiles to a RegExp or falls back (null); none throws", () => {
    const glob = fc.string({
      unit: fc.oneof(
        fc.constantFrom(..."*?[]{},!^-\\/.$+()|"),
        fc.constantFrom("a", "B", "ü", "\u{1F600}", "\ud800"),
        fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
      ),
      maxLength: 12,
    });
    fc.assert(
      fc.property(glob, fc.string({ maxLength: 8 }), (g, name) => {
        const re = compileGlob(g);
        expect(re === null || re instanceof RegExp).toBe(true);
        expect(typeof matchName(g, name)).toBe("boolean");
      }),
      { seed: 36, numRuns: 5000 },
    );
  });
});

describe("profileMatches (§1.5)", () => {
  const rows = [
    { id: "any" },
    { id: "repo", scope: { repo: "r1" } },
    { id: "dir", scope: { dir: "src/**" } },
    { id: "lang", scope: { language: "ToolchainX" } },
    { id: "task", scope: { task: "test" } },
    { id: "all", scope: { repo: "r1", dir: "src/*", language: "toolchainx", task: "test" } },
    { id: "other-lang", scope: { language: "toolchainy" } },
    { id: "empty-scope", scope: { dir: " ", language: null } },
  ];
  const profiles = { schemaVersion: 1, rows };
  const ids = (q: unknown) =>
    profileMatches(q, { profiles }).map((m) => [m.row.id, m.specificity, m.index]);

  test("most specific first, then earlier row; bits repo 1, dir 2, language 4, task 8", () => {
    expect(ids({ repo: "r1", path: "src/a.tx", language: "TOOLCHAINX", task: "test" })).toEqual([
      ["all", 15, 5],
      ["task", 8, 4],
      ["lang", 4, 3],
      ["dir", 2, 2],
      ["repo", 1, 1],
      ["any", 0, 0],
      ["empty-scope", 0, 7],
    ]);
  });

  test("a declared selector without its query value excludes the row", () => {
    expect(ids({ path: "docs/a.tx" })).toEqual([
      ["any", 0, 0],
      ["empty-scope", 0, 7],
    ]);
    expect(ids(null)).toEqual([
      ["any", 0, 0],
      ["empty-scope", 0, 7],
    ]);
    expect(ids({ task: 3 }).length).toBe(2);
  });

  test("no store or no rows → []", () => {
    expect(profileMatches({}, {})).toEqual([]);
    expect(profileMatches({}, { profiles: { schemaVersion: 1 } })).toEqual([]);
  });

  test("malformed query or rows → typed error naming the field", () => {
    const path = (q: unknown, p: unknown) => {
      try {
        profileMatches(q, { profiles: p });
      } catch (error) {
        expect(error).toBeInstanceOf(TurngateValidationError);
        return (error as TurngateValidationError).path;
      }
      return "no error";
    };
    expect(path({ path: ["a"] }, profiles)).toBe("query.path");
    expect(path("src", profiles)).toBe("query");
    expect(path({}, { rows: [{ id: "x", scope: { dir: 5 } }] })).toBe(
      "options.profiles.rows.0.scope.dir",
    );
    expect(path({}, { rows: [{ id: "x", scope: "src" }] })).toBe("options.profiles.rows.0.scope");
    expect(path({}, "rows")).toBe("options.profiles");
  });
});
