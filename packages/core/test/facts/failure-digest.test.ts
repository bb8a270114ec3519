/** The failure digest's text (docs/facts.md, the failure digest): exact lines from a TAP stream. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { failureDigest } from "../../src/facts/test-results/index.js";

const TAP = (name: string) =>
  [
    "TAP version 13",
    "ok 1 - adds",
    `not ok 2 - ${name}`,
    "  ---",
    "    expected: 1",
    "    actual:   2",
    "  ...",
    "1..2",
  ].join("\n");

describe("failureDigest", () => {
  test("names the failing test with its assertion, then the output's last lines", () => {
    const digest = failureDigest({ output: TAP("subtracts"), logPath: "l.log" });
    expect(digest.source).toBe("output");
    expect(digest.lines).toEqual([
      "failing tests (1 of 2; full log: l.log):",
      "  ✗ subtracts",
      "      expected: 1",
      "      actual: 2",
      "last 8 lines:",
      "| TAP version 13",
      "| ok 1 - adds",
      "| not ok 2 - subtracts",
      "|   ---",
      "|     expected: 1",
      "|     actual:   2",
      "|   ...",
      "| 1..2",
    ]);
  });

  test("a test file that fails to load (node --test): the digest names the load error, not only node's tail", () => {
    const fixture = join(
      dirname(fileURLToPath(import.meta.url)),
      "fixtures/test-results/tap/node-test-load-error.tap",
    );
    const digest = failureDigest({ output: readFileSync(fixture, "utf8"), logPath: "l.log" });
    expect(digest.source).toBe("output");
    expect(digest.lines.slice(0, 8)).toEqual([
      "failing tests (0 of 1; 1 suite error; full log: l.log):",
      "  ! /src/sample/b.test.js:",
      "      Error: Cannot find module './missing-module'",
      "      Require stack:",
      "      - /src/sample/b.test.js",
      "      at Object.<anonymous> (/src/sample/b.test.js:1:11)",
      "      code: 'MODULE_NOT_FOUND',",
      "      requireStack: [ '/src/sample/b.test.js' ]",
    ]);
  });

  test("a TAP tail that only lost its plan names no suite error (the stream's shape says nothing about the code)", () => {
    const digest = failureDigest({ output: "not ok 1 - adds\n  ---\n  error: 'x'\n  ...\n" });
    expect(digest.lines[0]).toBe("failing tests (1 of 1):");
    expect(digest.lines.join("\n")).not.toContain("no plan line");
  });

  test("characters a terminal hides but a model reads are escaped (a sentence in tag characters)", () => {
    const hidden = `cart total${String.fromCodePoint(0xe0068, 0xe0069)}\u2060`;
    const digest = failureDigest({ output: TAP(hidden) });
    expect(digest.lines[1]).toBe("  ✗ cart total\\u{e0068}\\u{e0069}\\u2060");
  });

  test("a stray not-ok line in a vitest report does not hide the report's own failing test", () => {
    const output = [
      " FAIL  src/cart.test.ts > cart > total multiplies qty",
      "AssertionError: expected 3 to be 6",
      "not ok 1 - network probe skipped in sandbox (infrastructure, not your code)",
      " Test Files  1 failed (1)",
    ].join("\n");
    const digest = failureDigest({ output });
    expect(digest.entries.map((e) => e.id)).toEqual([
      "network probe skipped in sandbox (infrastructure, not your code)",
      "src/cart.test.ts > cart > total multiplies qty",
    ]);
    expect(digest.total).toBe(null);
    expect(digest.lines[0]).toBe("failing tests (2):");
  });
});
