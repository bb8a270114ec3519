/**
 * CLI for the capability ledger check (issue 6 "Deliver" item 3).
 *
 *   pnpm exec tsx scripts/check-capabilities.ts [--root DIR] [--results DIR] [--no-results]
 *   pnpm exec tsx scripts/check-capabilities.ts --bite [--seed S] [--root DIR]
 *
 * --root DIR      repository root (default: the directory above this script)
 * --results DIR   directory with vitest.json, pytest.xml, go.json (default: <root>/results)
 * --no-results    structure only: cited tests are looked up in the sources, not in the results
 * --bite          the bite check instead (scripts/capabilities/bite-check.ts): Stryker's mutants
 *                 on each claim's code lines must be killed by a test the claim cites, and the
 *                 curated wrong changes (every `always` one and 8 picked by seed) must each make
 *                 a cited test fail; prints the seed, each change, the bite rate per area
 * --seed S        the seed of the picks (an integer; default a fresh one, printed)
 *
 * Exit 0 with `capability verification complete: N areas, C claims, M surfaces, K tests` on stdout;
 * exit 1 with one problem per line on stderr, then a closing count line; exit 2 on bad usage.
 */

import { randomInt } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatBiteCheck, runBiteCheck } from "./capabilities/bite-check.js";
import { checkCapabilities } from "./capabilities/check.js";
import { readLedgerFiles } from "./capabilities/ledger-files.js";

const USAGE =
  "usage: check-capabilities.ts [--root DIR] [--results DIR] [--no-results] | --bite [--seed S] [--root DIR]";

/** The bite check: exit 0 when every claim it judges is bitten, 1 otherwise. */
async function bite(root: string, seedText: string | undefined): Promise<number> {
  const seed = seedText === undefined ? randomInt(2 ** 31) : Number(seedText);
  if (!Number.isSafeInteger(seed)) {
    process.stderr.write(`--seed: "${seedText}" is not an integer\n${USAGE}\n`);
    return 2;
  }
  process.stdout.write(`bite check seed: ${seed}\n`);
  const files = readLedgerFiles(root);
  if (files.map === undefined) {
    process.stderr.write(`${files.claimProblems.concat(files.problems).join("\n")}\n`);
    return 1;
  }
  const result = await runBiteCheck({
    root,
    areas: files.map,
    seed,
    onChange: (change, owner) =>
      process.stdout.write(`applying wrong change to ${change.file} for ${owner}\n`),
  });
  process.stdout.write(`${formatBiteCheck(result).slice(1).join("\n")}\n`);
  if (!result.ok) {
    process.stderr.write(`${result.problems.join("\n")}\n`);
    process.stderr.write(
      `bite check failed: ${result.problems.length} problem(s) (seed ${seed}; replay with --bite --seed ${seed})\n`,
    );
    return 1;
  }
  process.stdout.write(
    `bite check complete: ${result.stryker.length} claim(s) judged by Stryker, ${result.wrongChanges.length} wrong change(s) caught\n`,
  );
  return 0;
}

async function main(argv: string[]): Promise<number> {
  let values: {
    root?: string;
    results?: string;
    "no-results"?: boolean;
    bite?: boolean;
    seed?: string;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        root: { type: "string" },
        results: { type: "string" },
        "no-results": { type: "boolean" },
        bite: { type: "boolean" },
        seed: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const root = path.resolve(
    values.root ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."),
  );
  if (values.bite === true) {
    if (values.results !== undefined || values["no-results"] === true) {
      process.stderr.write(`--bite takes no --results or --no-results\n${USAGE}\n`);
      return 2;
    }
    return bite(root, values.seed);
  }
  if (values.seed !== undefined) {
    process.stderr.write(`--seed needs --bite\n${USAGE}\n`);
    return 2;
  }
  const result = checkCapabilities({
    root,
    resultsDir: values.results === undefined ? undefined : path.resolve(values.results),
    skipResults: values["no-results"] === true,
  });
  const { areas, claims, surfaces, tests } = result.counts;
  if (!result.resultsChecked) {
    process.stdout.write(
      `skipped result checks (--no-results): ${tests} test reference(s) were looked up in the sources only\n`,
    );
  }
  if (!result.ok) {
    process.stderr.write(`${result.problems.join("\n")}\n`);
    process.stderr.write(`capability verification failed: ${result.problems.length} problem(s)\n`);
    return 1;
  }
  if (!result.resultsChecked) {
    process.stdout.write(
      `capability structure check complete: ${areas} areas, ${claims} claims, ${surfaces} surfaces, ${tests} tests\n`,
    );
    return 0;
  }
  process.stdout.write(
    `capability verification complete: ${areas} areas, ${claims} claims, ${surfaces} surfaces, ${tests} tests\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`check-capabilities: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 2;
  },
);
