/**
 * JUnit parsing benchmark (issue #16): `parseTestResults("junit", text)` on a 50,000-test
 * JUnit file, against fast-xml-parser alone on the same file, measured in the same run.
 * Target: ≤ 1.5× the reference.
 *
 * The reference is the library's own work for this input: `XMLValidator.validate` plus
 * `XMLParser.parse` with the options `parseTestResults` uses (a validating parse — the
 * parser alone accepts a truncated document, which must not count as fewer tests). The
 * ratio against the bare `XMLParser.parse` (no validation) is printed beside it. Every run
 * checks that both read the same 50,000 test cases and the same failures.
 *
 * Input: 50 `<testsuite>`s of 1,000 `<testcase>`s (pytest-style classnames, `time`), one in
 * 25 failing with a message and a traceback body, one in 40 skipped. Each run times the
 * parser and the references back to back (order alternating); the ratio is per run, the
 * median over runs is reported, so a machine shared with other work skews both alike.
 *
 * Run: pnpm --filter @turngate/core exec tsx bench/test-results.bench.ts (not a test);
 * TURNGATE_BENCH_N overrides the number of tests.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { parseTestResults } from "../src/index.js";

const N = Number(process.env.TURNGATE_BENCH_N ?? 50_000);
const PER_SUITE = 1000;
const RUNS = 7;
const TARGET = 1.5;

function junit(n: number): string {
  const out: string[] = ['<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'];
  for (let s = 0; s * PER_SUITE < n; s++) {
    const count = Math.min(PER_SUITE, n - s * PER_SUITE);
    out.push(`<testsuite name="pytest" tests="${count}" failures="0" errors="0" time="12.5">`);
    for (let i = 0; i < count; i++) {
      const k = s * PER_SUITE + i;
      const head = `<testcase classname="tests.pkg${s}.test_module${Math.floor(i / 50)}" name="test_case_${k}[param-${k % 7}]" time="0.00${k % 10}"`;
      if (k % 25 === 0)
        out.push(
          `${head}><failure message="AssertionError: expected ${k} == ${k + 1}">def test_case_${k}():\n&gt;       assert ${k} == ${k + 1}\nE       AssertionError\n\ntests/pkg${s}/test_module.py:${i}: AssertionError</failure></testcase>`,
        );
      else if (k % 40 === 0)
        out.push(`${head}><skipped type="pytest.skip" message="slow"/></testcase>`);
      else out.push(`${head}/>`);
    }
    out.push("</testsuite>");
  }
  out.push("</testsuites>");
  return out.join("");
}

const OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  textNodeName: "#text",
  commentPropName: "#comment",
  alwaysCreateTextNode: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  htmlEntities: true,
  isArray: (name: string) =>
    ["testsuite", "testcase", "failure", "error", "skipped", "#comment"].includes(name),
};

type Counts = { tests: number; failed: number };

function reference(text: string, validate: boolean): Counts {
  if (validate && XMLValidator.validate(text) !== true) throw new Error("reference: invalid");
  const doc = new XMLParser(OPTIONS).parse(text) as {
    testsuites: { testsuite: { testcase: { failure?: unknown[] }[] }[] };
  };
  let tests = 0;
  let failed = 0;
  for (const s of doc.testsuites.testsuite)
    for (const c of s.testcase) {
      tests++;
      if (c.failure) failed++;
    }
  return { tests, failed };
}

function ours(text: string): Counts {
  const r = parseTestResults("junit", text);
  return { tests: r.totals.tests, failed: r.totals.failed };
}

function time<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

const text = junit(N);
const expected = { tests: N, failed: Math.ceil(N / 25) };
console.log(`JUnit file: ${N} tests, ${(text.length / 1e6).toFixed(1)} MB`);
// Warm-up (JIT) of all three, checked to agree.
for (const got of [ours(text), reference(text, true), reference(text, false)]) {
  if (got.tests !== expected.tests || got.failed !== expected.failed)
    throw new Error(`disagreement: ${JSON.stringify(got)} vs ${JSON.stringify(expected)}`);
}
const ratios: number[] = [];
const bareRatios: number[] = [];
const oursMs: number[] = [];
const refMs: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const order = run % 2 === 0;
  const a = order ? time(() => ours(text)) : undefined;
  const ref = time(() => reference(text, true));
  const bare = time(() => reference(text, false));
  const b = a ?? time(() => ours(text));
  if (b.value.tests !== ref.value.tests || b.value.failed !== ref.value.failed)
    throw new Error("parseTestResults and the reference disagree");
  oursMs.push(b.ms);
  refMs.push(ref.ms);
  ratios.push(b.ms / ref.ms);
  bareRatios.push(b.ms / bare.ms);
  console.log(
    `run ${run + 1}: parseTestResults ${b.ms.toFixed(0)} ms, fast-xml-parser validate+parse ${ref.ms.toFixed(0)} ms, parse only ${bare.ms.toFixed(0)} ms → ${(b.ms / ref.ms).toFixed(2)}× / ${(b.ms / bare.ms).toFixed(2)}×`,
  );
}
const m = median(ratios);
console.log(
  `median: parseTestResults ${median(oursMs).toFixed(0)} ms vs fast-xml-parser validate+parse ${median(refMs).toFixed(0)} ms: ${m.toFixed(2)}× (target ≤ ${TARGET}×) ${m <= TARGET ? "OK" : "OVER TARGET"}; vs parse only (no validation): ${median(bareRatios).toFixed(2)}×`,
);
