/**
 * Failing tests read from a JavaScript runner's human report (issue 34 item 2), for the
 * failure digest only: the verdict never depends on them. Used when a check has no
 * structured results, so a project whose `npm test` runs mocha, vitest or jest behind
 * another script still gets its failing tests named.
 */
import type { ParsedTest } from "./types.js";
import { capMessage } from "./util.js";

/** What a human report names: the failing tests with their messages. */
export interface RunnerTextFailures {
  format: "mocha_spec" | "runner_report";
  tests: ParsedTest[];
}

// CSI sequences (colours, cursor moves) and OSC hyperlinks.
// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are removed
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** `text` without terminal escape sequences, split into lines (`\r\n` and `\r` too). */
function plainLines(text: string): string[] {
  return text.replace(ANSI, "").replace(/\r\n?/g, "\n").split("\n");
}

// A code frame line of jest / vitest (`  3 | code`, `> 3 | code`, `    |   ^`) and vitest's
// `❯ file:line:col` location line: where, not what.
const FRAME = /^\s*(>\s*)?\d*\s*\|(\s|$)|^\s*❯\s+\S+:\d+:\d+\s*$/;

function failed(id: string, message: string[]): ParsedTest {
  const parts = id.split(" > ");
  return {
    id,
    name: parts[parts.length - 1] ?? id,
    suite: parts.length > 1 ? parts.slice(0, -1).join(" > ") : null,
    file: null,
    status: "failed",
    duration_ms: null,
    message: capMessage(message.filter((l) => !FRAME.test(l)).join("\n")),
  };
}

/**
 * Mocha's default (spec) report: after `N failing`, each failure is `  N) title` with the
 * rest of its title path on the following lines (the last one ends with `:`), then its
 * error and stack up to the next `  N) `. Test id: the title path joined by `" > "`.
 * Null when the output has no `N failing` line. Pure.
 */
export function parseMochaSpec(output: string): RunnerTextFailures | null {
  const lines = plainLines(output);
  const start = lines.findIndex((l) => /^\s*\d+ failing\s*$/.test(l));
  if (start < 0) return null;
  const tests: ParsedTest[] = [];
  let title: string[] | null = null;
  let titleDone = false;
  let message: string[] = [];
  const flush = () => {
    if (title !== null) tests.push(failed(title.join(" > "), message));
    title = null;
    message = [];
  };
  for (const line of lines.slice(start + 1)) {
    const head = /^ {2}(\d+)\) (.*)$/.exec(line);
    if (head) {
      flush();
      title = [];
      titleDone = false;
      const text = (head[2] as string).trim();
      if (text.endsWith(":")) {
        title.push(text.slice(0, -1));
        titleDone = true;
      } else title.push(text);
      continue;
    }
    if (title === null) continue;
    if (!titleDone) {
      const text = line.trim();
      if (text === "") continue;
      if (text.endsWith(":")) {
        (title as string[]).push(text.slice(0, -1));
        titleDone = true;
      } else (title as string[]).push(text);
      continue;
    }
    // Mocha indents a failure's error by six spaces; its diff lines by none.
    message.push(line.replace(/^ {1,6}/, ""));
  }
  flush();
  return { format: "mocha_spec", tests };
}

/**
 * Vitest's and jest's default reports. Vitest: each `FAIL  file > suite > test` line of its
 * "Failed Tests" section opens a failure whose message runs to the next `⎯` rule or `FAIL`
 * line. Jest: each `● suite › test` line opens one, up to the next `●`, a `FAIL`/`PASS`
 * file line or the `Test Suites:` summary (`● Test suite failed to run` included: the file
 * is its id). Code frames and `❯ file:line:col` lines are left out of the messages. Test
 * ids: the path joined by `" > "`. Null when neither report's failure lines occur. Pure.
 */
export function parseRunnerReport(output: string): RunnerTextFailures | null {
  const lines = plainLines(output);
  const tests: ParsedTest[] = [];
  let current: { id: string; message: string[] } | null = null;
  let file: string | null = null;
  const flush = () => {
    if (current !== null) tests.push(failed(current.id, current.message));
    current = null;
  };
  for (const line of lines) {
    // Matched on the trimmed line with patterns that cannot backtrack: a lazy group before
    // optional trailing space took quadratic time on a long line of spaces.
    const trimmed = line.trim();
    const head = /^(FAIL|PASS)\s+(\S.*)$/.exec(trimmed);
    const rest = head?.[2] ?? "";
    const arrow = rest.indexOf(" > ");
    if (head?.[1] === "FAIL" && arrow > 0 && arrow + 3 < rest.length) {
      flush();
      current = { id: rest, message: [] };
      continue;
    }
    if (head) {
      flush();
      // A jest file line: `FAIL  src/a.test.ts (5.2 s)`; the duration is not part of the name.
      const paren = rest.lastIndexOf(" (");
      const name =
        paren > 0 && /^\(\d/.test(rest.slice(paren + 1)) && rest.endsWith(")")
          ? rest.slice(0, paren).trimEnd()
          : rest;
      file = name.replace(/^\.\//, "");
      continue;
    }
    const jest = /^\s*● (.+?)\s*$/.exec(line);
    if (jest) {
      flush();
      const title = jest[1] as string;
      const id =
        title === "Test suite failed to run" && file !== null
          ? file
          : title.split(" › ").join(" > ");
      current = { id, message: [] };
      continue;
    }
    if (
      /^\s*⎯{3,}/.test(line) ||
      /^\s*(Test Suites|Test Files|Tests):\s/.test(line) ||
      /^\s*Test Files\s/.test(line)
    ) {
      flush();
      continue;
    }
    if (current !== null) (current as { message: string[] }).message.push(line);
  }
  flush();
  return tests.length === 0 ? null : { format: "runner_report", tests };
}
