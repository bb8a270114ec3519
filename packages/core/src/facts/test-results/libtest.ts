import type {
  ParsedTest,
  TestResultParser,
  TestStatus,
  TestSuiteError,
  UnparsedTestInput,
} from "./types.js";
import { capMessage, eachLine } from "./util.js";

const RUNNING = /^running (\d+) tests?$/;
const TEST_LINE = /^test (.+?)(?: - should panic)? \.\.\. (ok|FAILED|ignored(?:, (.*))?|bench:.*)$/;
const RESULT =
  /^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; (\d+) filtered out/;
const CARGO_RUNNING = /^\s*Running (.+?)(?: \([^()]*\))?$/;
const DOC_TESTS = /^\s*Doc-tests (.+)$/;
const FAILURE_HEADER = /^---- (.+?) (?:stdout|stderr) ----$/;
const COMPILE_ERROR = /^error: could not compile /;
// Cargo's status lines and the summary lines that only restate what the test lines said.
const NOISE =
  /^\s*(Compiling|Finished|Blocking|Downloading|Downloaded|Updating|Locking|Adding|Fresh|Checking|Building|Documenting)\b|^error: test failed, to rerun pass|^error: \d+ targets? failed:$|^\s+`--[a-z].*`$|^failures:$|^\s{4}\S+$/;

interface Block {
  suite: string | null;
  planned: number;
  tests: ParsedTest[];
  result: boolean;
  startLine: number;
}

/**
 * cargo test / libtest stable text output (`libtest`; stdout and stderr together, as a
 * check's log holds them). `running N tests` opens a block whose suite is the preceding
 * cargo `Running unittests src/lib.rs` (the binary path in parentheses dropped: it holds
 * a build hash) or `Doc-tests crate` line; each `test path ... ok|FAILED|ignored[, reason]`
 * is a test (`id` = `suite::path`; `should panic` tests included; no durations: libtest
 * prints none); the `---- path stdout ----` sections become the failures' messages. Suite
 * errors: a block's `test result:` line whose counts differ from its test lines, a block
 * that never printed `test result:` (the binary crashed or was killed), a `running N`
 * count the test lines do not reach, and `error: could not compile`. Cargo's status lines
 * are skipped; other lines outside the failure sections are `unparsed`.
 */
export const parseLibtest: TestResultParser = (text) => {
  const unparsed: UnparsedTestInput[] = [];
  const errors: TestSuiteError[] = [];
  const blocks: Block[] = [];
  let pendingSuite: string | null = null;
  let block: Block | null = null;
  let section: { name: string; lines: string[] } | null = null;
  const messages = new Map<string, string[]>();

  // Every test binary and doctest run is announced once on stderr (`Running …`,
  // `Doc-tests …`) and prints one `running N tests` block on stdout, in the same order. The
  // two streams can interleave either way in one log, so blocks are matched to the
  // announcements by their order when the counts agree (issue 34: `--no-fail-fast`).
  const announced: string[] = [];
  const closeSection = () => {
    if (section === null || block === null) return;
    const key = `${blocks.indexOf(block)}\u0000${section.name}`;
    messages.set(key, [...(messages.get(key) ?? []), ...section.lines]);
    section = null;
  };

  eachLine(text.replace(/^\uFEFF/, ""), (line, lineNo) => {
    const running = RUNNING.exec(line);
    if (running) {
      closeSection();
      block = {
        suite: pendingSuite,
        planned: Number(running[1]),
        tests: [],
        result: false,
        startLine: lineNo,
      };
      blocks.push(block);
      pendingSuite = null;
      return;
    }
    const cargoRunning = CARGO_RUNNING.exec(line);
    const doc = DOC_TESTS.exec(line);
    if (cargoRunning || doc) {
      closeSection();
      pendingSuite = (cargoRunning?.[1] ?? doc?.[0] ?? "").trim();
      announced.push(pendingSuite);
      return;
    }
    const header = FAILURE_HEADER.exec(line);
    if (header && block !== null) {
      closeSection();
      section = { name: header[1] as string, lines: [] };
      return;
    }
    const result = RESULT.exec(line);
    if (result && block !== null) {
      closeSection();
      const b: Block = block;
      b.result = true;
      const count = (s: TestStatus) => b.tests.filter((t) => t.status === s).length;
      const said = [Number(result[2]), Number(result[3]), Number(result[4])];
      const seen = [count("passed"), count("failed"), count("skipped")];
      if (said.some((n, i) => n !== seen[i]))
        errors.push({
          suite: b.suite,
          file: null,
          message: `test result line says ${said[0]} passed, ${said[1]} failed, ${said[2]} ignored but the test lines show ${seen[0]}, ${seen[1]}, ${seen[2]}`,
        });
      return;
    }
    if (section !== null) {
      if (line === "failures:" || line === "successes:") closeSection();
      else {
        (section as { lines: string[] }).lines.push(line);
        return;
      }
    }
    const t = TEST_LINE.exec(line);
    if (t && block !== null) {
      const word = t[2] as string;
      if (word.startsWith("bench:")) return;
      const name = t[1] as string;
      const status: TestStatus =
        word === "ok" ? "passed" : word === "FAILED" ? "failed" : "skipped";
      const b: Block = block;
      b.tests.push({
        id: b.suite === null ? name : `${b.suite}::${name}`,
        name,
        suite: b.suite,
        file: null,
        status,
        duration_ms: null,
        message: status === "skipped" ? (t[3] ?? null) : null,
      });
      return;
    }
    if (COMPILE_ERROR.test(line)) {
      errors.push({ suite: null, file: null, message: line });
      return;
    }
    if (line.trim() === "" || NOISE.test(line)) return;
    unparsed.push({ line: lineNo, pointer: null, text: line, reason: "not libtest output" });
  });
  closeSection();
  if (announced.length === blocks.length) {
    blocks.forEach((b, i) => {
      const suite = announced[i] as string;
      if (b.suite === suite) return;
      for (const e of errors) if (e.suite === b.suite && e.suite !== null) e.suite = suite;
      b.suite = suite;
      b.tests = b.tests.map((t) => ({ ...t, suite, id: `${suite}::${t.name}` }));
    });
  }
  const tests: ParsedTest[] = [];
  for (const [index, b] of blocks.entries()) {
    if (!b.result)
      errors.push({
        suite: b.suite,
        file: null,
        message: `no "test result:" line after running ${b.planned} tests (line ${b.startLine}): the test binary crashed or was killed`,
      });
    else if (b.tests.length < b.planned)
      errors.push({
        suite: b.suite,
        file: null,
        message: `running ${b.planned} tests but ${b.tests.length} test lines were read`,
      });
    for (const t of b.tests) {
      const lines = messages.get(`${index}\u0000${t.name}`);
      tests.push(
        t.status === "failed" && lines
          ? { ...t, message: capMessage(lines.join("\n").replace(/^\n+/, "")) }
          : t,
      );
    }
  }
  return { tests, errors, unparsed };
};
