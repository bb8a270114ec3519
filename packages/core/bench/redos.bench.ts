/**
 * ReDoS inputs for host-supplied normalization patterns (harn-verification.md §3.7): each
 * case runs diagnosticDelta with one pattern on a signature that makes a backtracking engine
 * explore every way to split the text, and prints its time next to the time of the same
 * pattern on the JS engine's backtracking RegExp (the reference, measured in the same run on
 * a shorter text so that it ends) and the ratio between them.
 *
 * Run (from packages/core): pnpm exec tsx bench/redos.bench.ts
 */

import { diagnosticDelta } from "../src/index.js";

interface Case {
  name: string;
  options: Record<string, unknown>;
  text: (n: number) => string;
  n: number;
  /** Text length for the backtracking reference (doubling time per extra char). */
  referenceN: number;
  native: RegExp;
}

const side = (message: string) => ({ diagnostics: [message] });

const CASES: Case[] = [
  {
    name: 'strip_patterns ["(x+x+)+y"]',
    options: { strip_patterns: ["(x+x+)+y"] },
    text: (n) => "x".repeat(n),
    n: 30,
    referenceN: 22,
    native: /(x+x+)+y/u,
  },
  {
    name: 'ignore_patterns ["^(a|a)*$"]',
    options: { ignore_patterns: ["^(a|a)*$"] },
    text: (n) => `${"a".repeat(n)}!`,
    n: 28,
    referenceN: 22,
    native: /^(a|a)*$/u,
  },
  {
    name: 'ignore_patterns ["(a+)+$"]',
    options: { ignore_patterns: ["(a+)+$"] },
    text: (n) => `${"a".repeat(n)}!`,
    n: 28,
    referenceN: 22,
    native: /(a+)+$/u,
  },
];

function time(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

for (const c of CASES) {
  const ours = time(() => diagnosticDelta(side(c.text(c.n)), side("b"), c.options));
  const long = 100_000;
  const oursLong = time(() => diagnosticDelta(side(c.text(long)), side("b"), c.options));
  const reference = time(() => c.native.test(c.text(c.referenceN)));
  console.log(c.name);
  console.log(`  diagnosticDelta, ${c.n} chars          ${ours.toFixed(1)} ms`);
  console.log(`  diagnosticDelta, ${long} chars      ${oursLong.toFixed(1)} ms`);
  console.log(`  backtracking RegExp, ${c.referenceN} chars     ${reference.toFixed(1)} ms`);
  console.log(
    `  ratio (ours at ${c.n} chars) / (backtracking at ${c.referenceN} chars)   ${(ours / reference).toFixed(3)}×`,
  );
}
