/**
 * ReDoS inputs for host-supplied normalization patterns (harn-verification.md §3.7): each
 * case runs diagnosticDelta with one pattern on a signature that makes a backtracking engine
 * explore every way to split the text, and prints its time next to the time of the same
 * pattern on the JS engine's backtracking RegExp (the reference, measured in the same run on
 * a shorter text so that it ends) and the ratio between them.
 *
 * Every run checks its answer (issue #11 §5: this benchmark used to time without looking):
 * none of the patterns matches its text, so each delta removes the one previous signature
 * and adds "b", and the backtracking RegExp answers false.
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

function time(fn: () => unknown, check: (answer: unknown) => boolean): number {
  const start = performance.now();
  const answer = fn();
  const ms = performance.now() - start;
  if (!check(answer)) throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 300)}`);
  return ms;
}

/** The delta of a non-matching pattern: the previous signature removed, "b" added. */
const deltaAnswer = (answer: unknown): boolean => {
  const d = answer as { removed: string[]; added: string[] };
  return d.removed.length === 1 && d.added.length === 1 && d.added[0] === "b";
};

for (const c of CASES) {
  const ours = time(() => diagnosticDelta(side(c.text(c.n)), side("b"), c.options), deltaAnswer);
  const long = 100_000;
  const oursLong = time(
    () => diagnosticDelta(side(c.text(long)), side("b"), c.options),
    deltaAnswer,
  );
  const reference = time(
    () => c.native.test(c.text(c.referenceN)),
    (matched) => matched === false,
  );
  console.log(c.name);
  console.log(`  diagnosticDelta, ${c.n} chars          ${ours.toFixed(1)} ms`);
  console.log(`  diagnosticDelta, ${long} chars      ${oursLong.toFixed(1)} ms`);
  console.log(`  backtracking RegExp, ${c.referenceN} chars     ${reference.toFixed(1)} ms`);
  console.log(
    `  ratio (ours at ${c.n} chars) / (backtracking at ${c.referenceN} chars)   ${(ours / reference).toFixed(3)}×`,
  );
}
