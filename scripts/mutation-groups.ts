/**
 * Per-module mutation scores for CI (issue #11 §5).
 *
 *   pnpm exec tsx scripts/mutation-groups.ts [--report FILE] [--groups FILE]
 *
 * --report FILE  Stryker's JSON report (default: stryker/reports/mutation.json)
 * --groups FILE  the module groups and their break thresholds (default: stryker/groups.json)
 *
 * Prints one line per group (scripts/mutation/groups.ts `formatGroupScores`); exit 0 when
 * every group is at or above its break, 1 when one is below or matched no mutant, 2 on bad
 * usage or an unreadable file.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatGroupScores, groupScores } from "./mutation/groups.js";

const USAGE = "usage: mutation-groups.ts [--report FILE] [--groups FILE]";

function main(argv: string[]): number {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
  let values: { report?: string; groups?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { report: { type: "string" }, groups: { type: "string" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  let scores: ReturnType<typeof groupScores>;
  try {
    const report = JSON.parse(
      readFileSync(values.report ?? path.join(root, "stryker/reports/mutation.json"), "utf8"),
    );
    const groups = JSON.parse(
      readFileSync(values.groups ?? path.join(root, "stryker/groups.json"), "utf8"),
    ).groups;
    scores = groupScores(report, groups);
  } catch (err) {
    process.stderr.write(`mutation-groups: ${(err as Error).message}\n`);
    return 2;
  }
  process.stdout.write(`${formatGroupScores(scores)}\n`);
  return scores.some((s) => s.failed) ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
