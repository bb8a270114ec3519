/**
 * Per-module mutation scores for CI (issue #11 §5).
 *
 *   pnpm exec tsx scripts/mutation-groups.ts [--report FILE] [--groups FILE]
 *     [--equivalents DIR] [--only PREFIX]...
 *
 * --report FILE       Stryker's JSON report (default: stryker/reports/mutation.json; the
 *                     incremental file stryker/incremental.json has the same shape)
 * --groups FILE       the module groups and their break thresholds (default: stryker/groups.json)
 * --equivalents DIR   the equivalents list, one markdown file per area (default: stryker/equivalent)
 * --only PREFIX       judge only the files starting with PREFIX (repeatable): a narrowed run;
 *                     groups with no such file are left out instead of failing
 *
 * Prints one line per group (scripts/mutation/groups.ts `formatGroupScores`), listed
 * equivalents left out of the score, then every survivor the list does not name and every
 * entry that names no survivor (`formatAudit`). Exit 0 when every group is at or above its
 * break and no entry is stale; 1 when a group is below its break or matched no mutant, or an
 * entry is stale; 2 on bad usage, an unreadable file or a malformed list.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type EquivalentEntry, readEquivalents } from "./mutation/equivalents.js";
import {
  auditSurvivors,
  formatAudit,
  formatGroupScores,
  groupScores,
  type MutationReport,
} from "./mutation/groups.js";

const USAGE =
  "usage: mutation-groups.ts [--report FILE] [--groups FILE] [--equivalents DIR] [--only PREFIX]...";

function main(argv: string[]): number {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
  let values: { report?: string; groups?: string; equivalents?: string; only?: string[] };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        report: { type: "string" },
        groups: { type: "string" },
        equivalents: { type: "string" },
        only: { type: "string", multiple: true },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const only = values.only ?? [];
  let scores: ReturnType<typeof groupScores>;
  let audit: ReturnType<typeof auditSurvivors>;
  try {
    const full = JSON.parse(
      readFileSync(values.report ?? path.join(root, "stryker/reports/mutation.json"), "utf8"),
    ) as MutationReport;
    const report: MutationReport = {
      files: Object.fromEntries(
        Object.entries(full.files).filter(
          ([f]) => only.length === 0 || only.some((p) => f.replaceAll("\\", "/").startsWith(p)),
        ),
      ),
    };
    const groups = JSON.parse(
      readFileSync(values.groups ?? path.join(root, "stryker/groups.json"), "utf8"),
    ).groups;
    const dir = values.equivalents ?? path.join(root, "stryker/equivalent");
    const equivalents: EquivalentEntry[] = readEquivalents(dir, path.relative(root, dir));
    scores = groupScores(report, groups, equivalents);
    if (only.length > 0) scores = scores.filter((s) => s.score !== null);
    audit = auditSurvivors(report, equivalents);
  } catch (err) {
    process.stderr.write(`mutation-groups: ${(err as Error).message}\n`);
    return 2;
  }
  const audited = formatAudit(audit);
  process.stdout.write(`${formatGroupScores(scores)}\n${audited === "" ? "" : `${audited}\n`}`);
  return scores.some((s) => s.failed) || audit.stale.length > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
