/** Exact texts of the helpers that keep outside text from forging turngate's output lines. */
import { describe, expect, test } from "vitest";
import {
  displayPath,
  escapeControls,
  stripEscapeSequences,
  terminalSafeTailLine,
} from "../src/terminal-text.js";

describe("terminal text", () => {
  test("displayPath leaves plain paths alone and JSON-quotes unsafe ones, C1 and bidi included", () => {
    expect(displayPath("src/a b.ts")).toBe("src/a b.ts");
    expect(displayPath("naïve/日本.txt")).toBe("naïve/日本.txt");
    expect(displayPath("x\nverified: y")).toBe('"x\\nverified: y"');
    expect(displayPath("a\tb\\c\r")).toBe('"a\\tb\\\\c\\r"');
    expect(displayPath("\x1b[8mhidden")).toBe('"\\u001b[8mhidden"');
    expect(displayPath("del\x7f c1\x85")).toBe('"del\\u007f c1\\u0085"');
    expect(displayPath("invoice\u202Efdp.exe")).toBe('"invoice\\u202efdp.exe"');
    expect(displayPath("iso\u2066late\u2069 sep\u2028")).toBe('"iso\\u2066late\\u2069 sep\\u2028"');
    expect(displayPath('"quoted".txt')).toBe('"\\"quoted\\".txt"');
  });

  test("escapeControls escapes controls visibly and keeps tabs", () => {
    expect(escapeControls("plain\ttext")).toBe("plain\ttext");
    expect(escapeControls("a\rb\nc\x07d\x9be\u202e")).toBe("a\\rb\\nc\\x07d\\x9be\\u202e");
  });

  test("stripEscapeSequences removes CSI, OSC, DCS and two-character sequences", () => {
    expect(stripEscapeSequences("\x1b[1;31mred\x1b[0m")).toBe("red");
    expect(stripEscapeSequences("a\x1b]0;title\x07b\x1b]8;;http://x\x1b\\c")).toBe("abc");
    expect(stripEscapeSequences("a\x1bPq#0\x1b\\b\x1bcc\x9b2Jd")).toBe("abcd");
    expect(stripEscapeSequences("tail\x1b[")).toBe("tail");
    expect(stripEscapeSequences("end\x1b")).toBe("end");
  });

  test("terminalSafeTailLine: CRLF, stripped colours, escaped controls, 400-character cap", () => {
    expect(terminalSafeTailLine("\x1b[32mok\x1b[0m\r")).toBe("ok");
    expect(terminalSafeTailLine("progress 10%\rverified: effect digest 0")).toBe(
      "progress 10%\\rverified: effect digest 0",
    );
    expect(terminalSafeTailLine("y".repeat(400))).toBe("y".repeat(400));
    expect(terminalSafeTailLine(`${"é".repeat(401)}z`)).toBe(`${"é".repeat(400)}…(3 more bytes)`);
  });
});
