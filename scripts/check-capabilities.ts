/**
 * CLI for the capability ledger check (issue 6 "Deliver" item 3).
 *
 *   pnpm exec tsx scripts/check-capabilities.ts [--root DIR] [--results DIR] [--no-results]
 *
 * --root DIR      repository root (default: the directory above this script)
 * --results DIR   directory with vitest.json, pytest.xml, go.json (default: <root>/results)
 * --no-results    structure only: cited tests are looked up in the sources, not in the results
 *
 * Exit 0 with `capability verification complete: N areas, C claims, M surfaces, K tests` on stdout;
 * exit 1 with one problem per line on stderr, then a closing count line; exit 2 on bad usage.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { checkCapabilities } from "./capabilities/check.js";

const USAGE = "usage: check-capabilities.ts [--root DIR] [--results DIR] [--no-results]";

function main(argv: string[]): number {
  let values: { root?: string; results?: string; "no-results"?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        root: { type: "string" },
        results: { type: "string" },
        "no-results": { type: "boolean" },
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

process.exitCode = main(process.argv.slice(2));
